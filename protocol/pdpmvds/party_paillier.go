package pdpmvds

import (
	"fmt"
	"math"
	"math/big"
	"slices"

	"github.com/dppub/dppub/algo/marginal"
	"github.com/dppub/dppub/crypto/dlpa"
	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/randx"
)

// Value ranges of the Paillier suite (L = bit length of n, f =
// paillierFrac, σ = StatBits, c = the release's countShift, u = the noise
// scale in grid steps times fine; see encoding):
//
//	scalar-product digits N − m:  |·| < 2^{σ+L}          slots of σ+L+2 bits
//	sign step t·r + r':           |·| < 2^{2L+f+σ}       slots of 2L+f+σ+2 bits
//	noisy counts c·2^c + noise:   |·| < 2^{max(L+c, log u+12)+1}, slots 1 bit wider
//
// The noise bound covers 2^12 noise scales (tails below e^{-4000}); an
// overflow is detected when unpacking.

func (s *Session) signPacking(keyBits int) (packing, error) {
	return newPacking(keyBits, 2*s.recordBits()+paillierFrac+s.StatBits+2)
}

func (s *Session) outPacking(keyBits int, e encoding) (packing, error) {
	count := s.recordBits() + int(e.countShift)
	noise := int(math.Ceil(math.Log2(e.plan.Units()*float64(e.fine)+1))) + 12
	return newPacking(keyBits, max(count, noise)+2)
}

// fixedBig returns round(x·2^frac) as an integer.
func fixedBig(x float64, frac int) (*big.Int, error) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil, fmt.Errorf("pdpmvds: cannot encode %v", x)
	}
	f := new(big.Float).SetFloat64(x)
	f.SetMantExp(f, frac)
	if x >= 0 {
		f.Add(f, big.NewFloat(0.5))
	} else {
		f.Sub(f, big.NewFloat(0.5))
	}
	out, _ := f.Int(nil) // truncation toward zero after ±½: round half away
	return out, nil
}

func (p *Party) newOwnKey() (*paillier.PrivateKey, error) {
	r := paillier.NewReader(p.src.Child())
	if p.session.KeyBits < paillier.MinBits {
		return paillier.GenerateInsecureTestKey(r, p.session.KeyBits)
	}
	return paillier.GenerateKey(r, p.session.KeyBits)
}

// precomputedCopy returns a private, precomputed copy of a public key.
func precomputedCopy(pk *paillier.PublicKey, p *Party) (*paillier.PublicKey, error) {
	c, err := paillier.NewPublicKey(pk.N)
	if err != nil {
		return nil, err
	}
	if err := c.Precompute(paillier.NewReader(p.src.Child())); err != nil {
		return nil, err
	}
	return c, nil
}

// paillierSetup: every party makes its own Paillier key for the scalar
// products and sends its public half to the others; every encrypting
// party encrypts the packed one-hot vectors of all its attributes once
// and sends them to every other party, who reuses them for every partner
// attribute and value.
func (p *Party) paillierSetup() func(*job) (bool, error) {
	started := false
	return func(j *job) (bool, error) {
		s := p.session
		enc, lays, err := s.encrypting()
		if err != nil {
			return false, err
		}
		if !started {
			started = true
			if err := p.startPaillierSetup(j, enc[p.index], lays[p.index]); err != nil {
				return false, err
			}
		}
		for q := range s.Parties {
			if q == p.index {
				continue
			}
			if !j.has("public-key", PartyID(q), 0, 0) {
				return false, nil
			}
			if enc[q] {
				for b := range lays[q].blocks {
					if !j.has("vector", PartyID(q), 0, b) {
						return false, nil
					}
				}
			}
		}
		for q := range s.Parties {
			if q == p.index {
				continue
			}
			m := j.take("public-key", PartyID(q), 0, 0)
			if len(m.Blobs) != 1 {
				return false, fmt.Errorf("public key message with %d fields", len(m.Blobs))
			}
			pk, err := paillier.NewPublicKey(new(big.Int).SetBytes(m.Blobs[0]))
			if err != nil {
				return false, err
			}
			if pk.Bits() != s.KeyBits {
				return false, fmt.Errorf("party %d's key has %d bits, the session %d", q+1, pk.Bits(), s.KeyBits)
			}
			if err := pk.Precompute(paillier.NewReader(p.src.Child())); err != nil {
				return false, err
			}
			p.peers[q] = pk
			if !enc[q] {
				continue
			}
			blocks := make([][]*paillier.Ciphertext, lays[q].blocks)
			for b := range blocks {
				v, err := readCiphers(j.take("vector", PartyID(q), 0, b), 0, pk, p.n)
				if err != nil {
					return false, err
				}
				blocks[b] = v
			}
			p.vectors[q] = blocks
		}
		p.setupOK = true
		return true, p.send(CoordinatorID, &Body{Kind: "ready", ID: j.req.ID})
	}
}

func (p *Party) startPaillierSetup(j *job, encrypts bool, lay layout) error {
	s := p.session
	if p.own == nil {
		sk, err := p.newOwnKey()
		if err != nil {
			return err
		}
		p.own = sk
	}
	if !p.own.PublicKey.IsPrecomputed() {
		if err := p.own.PublicKey.Precompute(paillier.NewReader(p.src.Child())); err != nil {
			return err
		}
	}
	shared, err := precomputedCopy(p.o.Keys.PublicKey, p)
	if err != nil {
		return err
	}
	p.shared = shared
	for q := range s.Parties {
		if q != p.index {
			if err := p.send(PartyID(q), &Body{Kind: "public-key", ID: j.req.ID, Blobs: [][]byte{p.own.N.Bytes()}}); err != nil {
				return err
			}
		}
	}
	if !encrypts {
		return nil
	}
	cols := make([][]int32, len(p.attrs))
	for u, a := range p.attrs {
		cols[u] = p.column([]int{a})
	}
	blocks, err := encryptOneHots(&p.own.PublicKey, lay, cols, p.n, p.src, p.o.Workers, &p.meter)
	if err != nil {
		return err
	}
	for b, cts := range blocks {
		raw := p.own.PublicKey.MarshalCiphertexts(cts)
		for q := range s.Parties {
			if q != p.index {
				if err := p.send(PartyID(q), &Body{Kind: "vector", ID: j.req.ID, Index: b, Blobs: [][]byte{raw}}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// readCiphers decodes count ciphertexts under pk from blob number blob of
// a body.
func readCiphers(m *Body, blob int, pk *paillier.PublicKey, count int) ([]*paillier.Ciphertext, error) {
	if m == nil || len(m.Blobs) <= blob {
		return nil, fmt.Errorf("missing ciphertexts")
	}
	cts, err := pk.UnmarshalCiphertexts(m.Blobs[blob])
	if err != nil {
		return nil, err
	}
	if len(cts) != count {
		return nil, fmt.Errorf("%s carries %d ciphertexts, want %d", m.Kind, len(cts), count)
	}
	return cts, nil
}

// aliceLayout is where Alice's values sit: her setup vector (cached) or a
// fresh packing of her composite; first and count are the blocks used.
func (s *Session) aliceLayout(pl *plan) (lay layout, unit, first, count int, err error) {
	gp, err := s.goethalsPacking()
	if err != nil {
		return layout{}, 0, 0, 0, err
	}
	if pl.aliceCached {
		_, lays, _ := s.encrypting()
		lay = lays[pl.chain[0].party]
		first, count = lay.blocksOf(pl.aliceUnit)
		return lay, pl.aliceUnit, first, count, nil
	}
	lay = newLayout(gp, []int{pl.chain[0].size})
	return lay, 0, 0, lay.blocks, nil
}

// paillierState is a party's progress through a joint request.
type paillierState struct {
	pl          *plan
	noiseDone   bool
	aliceSent   bool
	chainDone   bool
	sharesSent  bool
	shares      []*big.Int // engine order (Alice's N − m or Bob's m)
	dlpaParties []*dlpa.Party
	dlpaDone    bool
	signsDone   bool
	resultDone  bool
	partials    map[int]bool
}

// paillierFlow is a party's part of a joint request in the Paillier suite.
func (p *Party) paillierFlow(pl *plan) func(*job) (bool, error) {
	st := &paillierState{pl: pl, partials: map[int]bool{}}
	pos := pl.position(p.index)
	return func(j *job) (bool, error) {
		if !st.noiseDone {
			if err := p.paillierNoise(j, st); err != nil {
				return false, err
			}
			st.noiseDone = true
		}
		if !st.dlpaDone {
			ok, err := p.dlpaContribute(j, st)
			if err != nil || !ok {
				return false, err
			}
			st.dlpaDone = true
		}
		if pos >= 0 && !st.chainDone {
			ok, err := p.paillierChain(j, st, pos)
			if err != nil || !ok {
				return false, err
			}
			st.chainDone = true
		}
		if pl.isHolder(p.index) && !st.sharesSent {
			if err := p.sendShares(j, st); err != nil {
				return false, err
			}
			st.sharesSent = true
		}
		if p.index != pl.helper && p.index != pl.combiner {
			return true, nil
		}
		if pl.req.Kind == KindScore && !st.signsDone {
			ok, err := p.jointDecrypt(j, st, 1)
			if err != nil || !ok {
				return false, err
			}
			st.signsDone = true
		}
		return p.jointDecrypt(j, st, 2)
	}
}

// paillierNoise encrypts this contributor's noise share for S (shares
// mode) or commits to the DLPA shares (exact mode, Laplace).
func (p *Party) paillierNoise(j *job, st *paillierState) error {
	pl := st.pl
	if !pl.isContributor(p.index) {
		return nil
	}
	if p.usesDLPA(pl) {
		return p.dlpaCommit(j, st)
	}
	k, err := p.noiseShares(pl)
	if err != nil {
		return err
	}
	cts, err := encryptInts(p.shared, &p.session, pl, pl.enc.noiseInts(k, pl.req.Kind), p.src, p.o.Workers, &p.meter)
	if err != nil {
		return err
	}
	return p.send(ThirdPartyID, &Body{Kind: "noise-ciphers", ID: j.req.ID, Index: p.index, Blobs: [][]byte{p.shared.MarshalCiphertexts(cts)}})
}

// usesDLPA reports whether a release's noise comes from DLPA: exact
// Laplace noise in the Paillier suite.
func (s *Session) usesDLPA(pl *plan) bool {
	return s.Suite == SuitePaillier && s.Noise == NoiseExact && pl.req.Release.Noise.Mechanism == marginal.Laplace
}

func (p *Party) usesDLPA(pl *plan) bool { return p.session.usesDLPA(pl) }

// encryptInts encrypts integers: one ciphertext per value for a score's
// cells (S needs them one by one), packed output blocks for a marginal.
func encryptInts(pk *paillier.PublicKey, s *Session, pl *plan, ints []*big.Int, src *randx.Source, workers int, mt *meter) ([]*paillier.Ciphertext, error) {
	var plains []*big.Int
	if pl.req.Kind == KindScore {
		plains = ints
	} else {
		op, err := s.outPacking(pk.Bits(), pl.enc)
		if err != nil {
			return nil, err
		}
		for lo := 0; lo < len(ints); lo += op.slots {
			plains = append(plains, op.pack(ints[lo:min(lo+op.slots, len(ints))]))
		}
	}
	out := make([]*paillier.Ciphertext, len(plains))
	w := heavyWorkers(len(plains), workers)
	rs := readers(src, w)
	errs := make([]error, w)
	chunks(len(plains), w, func(k, lo, hi int) {
		for i := lo; i < hi; i++ {
			c, err := pk.Encrypt(rs[k], plains[i])
			if err != nil {
				errs[k] = err
				return
			}
			out[i] = c
		}
	})
	mt.enc.Add(int64(len(plains)))
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("pdpmvds: encrypting: %w", err)
		}
	}
	return out, nil
}

// outBlocks is the number of ciphertexts of a released value vector.
func (s *Session) outBlocks(pl *plan, keyBits int) int {
	if pl.req.Kind == KindScore {
		return 1
	}
	op, _ := s.outPacking(keyBits, pl.enc)
	return (pl.values + op.slots - 1) / op.slots
}

// dlpaLambda is the Laplace scale of the DLPA noise η̂ in its integer
// units, G/fine (encoding): the release's discrete Laplace scale t grid
// steps, drawn fine = 2^dlpa.FineBits times finer and rounded back to the
// grid by the decoder.
func (s *Session) dlpaLambda(pl *plan) float64 {
	return pl.enc.plan.Units() * float64(pl.enc.fine)
}

// dlpaCommit draws the party's DLPA shares for every released value and
// sends their encryptions to the involved parties after it (round 1).
func (p *Party) dlpaCommit(j *job, st *paillierState) error {
	pl := st.pl
	idx := slices.Index(pl.involved, p.index) + 1
	st.dlpaParties = make([]*dlpa.Party, pl.values)
	blobs := make([][]byte, pl.values)
	for v := range blobs {
		d, err := dlpa.New(dlpa.Options{PublicKey: p.shared, Parties: len(pl.involved), Index: idx,
			Lambda: p.session.dlpaLambda(pl), Random: p.src.Child()})
		if err != nil {
			return err
		}
		msg, err := d.Commit()
		if err != nil {
			return err
		}
		p.meter.enc.Add(4)
		st.dlpaParties[v] = d
		if blobs[v], err = msg.MarshalBinary(); err != nil {
			return err
		}
	}
	for _, q := range pl.involved {
		if q > p.index {
			if err := p.send(PartyID(q), &Body{Kind: "dlpa-commit", ID: j.req.ID, Index: p.index, Blobs: blobs}); err != nil {
				return err
			}
		}
	}
	return nil
}

// dlpaContribute sends S the party's round-2 DLPA contribution for every
// value once the earlier parties' commitments are there.
func (p *Party) dlpaContribute(j *job, st *paillierState) (bool, error) {
	pl := st.pl
	if st.dlpaParties == nil {
		return true, nil
	}
	var earlier []int
	for _, q := range pl.involved {
		if q < p.index {
			if !j.has("dlpa-commit", PartyID(q), 0, q) {
				return false, nil
			}
			earlier = append(earlier, q)
		}
	}
	msgs := make([][]*dlpa.SharesMessage, pl.values)
	for _, q := range earlier {
		m := j.take("dlpa-commit", PartyID(q), 0, q)
		if len(m.Blobs) != pl.values {
			return false, fmt.Errorf("DLPA commitments for %d values, want %d", len(m.Blobs), pl.values)
		}
		for v, b := range m.Blobs {
			var sm dlpa.SharesMessage
			if err := sm.UnmarshalBinary(b); err != nil {
				return false, err
			}
			msgs[v] = append(msgs[v], &sm)
		}
	}
	blobs := make([][]byte, pl.values)
	for v, d := range st.dlpaParties {
		c, err := d.Contribute(msgs[v])
		if err != nil {
			return false, err
		}
		p.meter.enc.Add(4)
		p.meter.exp.Add(int64(4 * len(earlier)))
		if blobs[v], err = c.MarshalBinary(); err != nil {
			return false, err
		}
	}
	return true, p.send(ThirdPartyID, &Body{Kind: "dlpa-contrib", ID: j.req.ID, Index: p.index, Blobs: blobs})
}

// vectorCount is the number of vectors Alice's vector becomes after the
// middle parties before chain position pos.
func vectorCount(pl *plan, pos int) int {
	c := 1
	for _, m := range pl.chain[1:pos] {
		c *= m.size
	}
	return c
}

// paillierChain runs this party's part of the packed scalar products:
// Alice encrypts (unless her setup vector serves), middle parties select
// and rerandomise, Bob multiplies and masks, Alice decrypts. It returns
// true once the party holds its shares (or has nothing more to do).
func (p *Party) paillierChain(j *job, st *paillierState, pos int) (bool, error) {
	pl := st.pl
	last := len(pl.chain) - 1
	lay, unit, first, nb, err := p.session.aliceLayout(pl)
	if err != nil {
		return false, err
	}
	alice := pl.chain[0].party
	switch {
	case pos == 0:
		return p.aliceStep(j, st, lay, unit, first, nb)
	case pos < last:
		in, ok, err := p.chainInput(j, pl, pos, first, nb)
		if err != nil || !ok {
			return false, err
		}
		return true, p.middleStep(j, pl, pos, in, alice)
	default:
		return p.bobStep(j, st, lay, unit, first, nb)
	}
}

// cacheKey names Alice's setup-vector block against Bob's attributes.
func cacheKey(alice, block int, bobAttrs []int) string {
	return fmt.Sprintf("%d/%d/%v", alice, block, bobAttrs)
}

func (pl *plan) cacheable() bool { return pl.aliceCached && len(pl.chain) == 2 }

// aliceStep: send a fresh vector if needed, then decrypt Bob's replies.
func (p *Party) aliceStep(j *job, st *paillierState, lay layout, unit, first, nb int) (bool, error) {
	pl := st.pl
	s := p.session
	next := pl.chain[1].party
	if !pl.aliceCached && !st.aliceSent {
		col := p.column(pl.chain[0].attrs)
		blocks, err := encryptOneHots(&p.own.PublicKey, lay, [][]int32{col}, p.n, p.src, p.o.Workers, &p.meter)
		if err != nil {
			return false, err
		}
		for b, cts := range blocks {
			if err := p.send(PartyID(next), &Body{Kind: "vector", ID: j.req.ID, Index: b, Blobs: [][]byte{p.own.PublicKey.MarshalCiphertexts(cts)}}); err != nil {
				return false, err
			}
		}
		st.aliceSent = true
	}
	bob := pl.chain[len(pl.chain)-1]
	nv := vectorCount(pl, len(pl.chain)-1)
	gp, _ := s.goethalsPacking()
	digits := make([][][][]*big.Int, nv) // vector → block → group → slot
	for v := range digits {
		digits[v] = make([][][]*big.Int, nb)
		for bi := range nb {
			if pl.cacheable() {
				if d, ok := p.digits[cacheKey(p.index, first+bi, bob.attrs)]; ok {
					digits[v][bi] = d
					continue
				}
			}
			if !j.has("replies", PartyID(bob.party), 0, v*nb+bi) {
				return false, nil
			}
		}
	}
	for v := range digits {
		for bi := range nb {
			if digits[v][bi] != nil {
				continue
			}
			cts, err := readCiphers(j.take("replies", PartyID(bob.party), 0, v*nb+bi), 0, &p.own.PublicKey, bob.size)
			if err != nil {
				return false, err
			}
			d, err := decryptReplies(p.own, gp, cts, p.o.Workers, &p.meter)
			if err != nil {
				return false, err
			}
			digits[v][bi] = d
			if pl.cacheable() {
				p.digits[cacheKey(p.index, first+bi, bob.attrs)] = d
			}
		}
	}
	st.shares = chainShares(pl, lay, unit, first, nv, bob.size, digits)
	return true, nil
}

// chainShares maps per-(vector, block, group, slot) values to engine-order
// cells: chain index (alice value i, vector v, bob value g).
func chainShares(pl *plan, lay layout, unit, first, nv, groups int, vals [][][][]*big.Int) []*big.Int {
	na := pl.chain[0].size
	byChain := make([]*big.Int, na*nv*groups)
	for i := range na {
		b, s := lay.digit(unit, i)
		for v := range nv {
			for g := range groups {
				byChain[(i*nv+v)*groups+g] = vals[v][b-first][g][s]
			}
		}
	}
	out := make([]*big.Int, len(pl.layout))
	for c, idx := range pl.layout {
		out[c] = byChain[idx]
	}
	return out
}

// chainInput returns the vectors the party at chain position pos works
// on: Alice's (setup or fresh) when pos = 1, else the previous middle
// party's selections; vector → block → record.
func (p *Party) chainInput(j *job, pl *plan, pos, first, nb int) ([][][]*paillier.Ciphertext, bool, error) {
	alice := pl.chain[0].party
	apk := p.peers[alice]
	if pos == 1 {
		if pl.aliceCached {
			return [][][]*paillier.Ciphertext{p.vectors[alice][first : first+nb]}, true, nil
		}
		for b := range nb {
			if !j.has("vector", PartyID(alice), 0, b) {
				return nil, false, nil
			}
		}
		v := make([][]*paillier.Ciphertext, nb)
		for b := range nb {
			cts, err := readCiphers(j.take("vector", PartyID(alice), 0, b), 0, apk, p.n)
			if err != nil {
				return nil, false, err
			}
			v[b] = cts
		}
		return [][][]*paillier.Ciphertext{v}, true, nil
	}
	prev := PartyID(pl.chain[pos-1].party)
	nv := vectorCount(pl, pos)
	for v := range nv {
		if !j.has("selected", prev, 0, v) {
			return nil, false, nil
		}
	}
	out := make([][][]*paillier.Ciphertext, nv)
	for v := range nv {
		m := j.take("selected", prev, 0, v)
		if len(m.Blobs) != nb {
			return nil, false, fmt.Errorf("selected vector with %d blocks, want %d", len(m.Blobs), nb)
		}
		out[v] = make([][]*paillier.Ciphertext, nb)
		for b := range nb {
			cts, err := readCiphers(m, b, apk, p.n)
			if err != nil {
				return nil, false, err
			}
			out[v][b] = cts
		}
	}
	return out, true, nil
}

// middleStep: for every input vector and every value k of the party's
// composite, keep (rerandomised) the records with value k and replace the
// others by fresh encryptions of 0, so the next party can multiply by its
// own indicator without learning which records were kept.
func (p *Party) middleStep(j *job, pl *plan, pos int, in [][][]*paillier.Ciphertext, alice int) error {
	apk := p.peers[alice]
	col := p.column(pl.chain[pos].attrs)
	size := pl.chain[pos].size
	next := PartyID(pl.chain[pos+1].party)
	for v, vec := range in {
		for k := range size {
			blobs := make([][]byte, len(vec))
			for b, cts := range vec {
				sel, err := p.selectRecords(apk, cts, col, int32(k))
				if err != nil {
					return err
				}
				blobs[b] = apk.MarshalCiphertexts(sel)
			}
			if err := p.send(next, &Body{Kind: "selected", ID: j.req.ID, Index: v*size + k, Blobs: blobs}); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *Party) selectRecords(pk *paillier.PublicKey, cts []*paillier.Ciphertext, col []int32, k int32) ([]*paillier.Ciphertext, error) {
	out := make([]*paillier.Ciphertext, len(cts))
	w := heavyWorkers(len(cts), p.o.Workers)
	rs := readers(p.src, w)
	errs := make([]error, w)
	zero := new(big.Int)
	chunks(len(cts), w, func(t, lo, hi int) {
		for r := lo; r < hi; r++ {
			var c *paillier.Ciphertext
			var err error
			if col[r] == k {
				c, err = pk.Rerandomize(rs[t], cts[r])
			} else {
				c, err = pk.Encrypt(rs[t], zero)
			}
			if err != nil {
				errs[t] = err
				return
			}
			out[r] = c
		}
	})
	p.meter.enc.Add(int64(len(cts)))
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// bobStep: multiply, for every input vector, block and own value j, the
// ciphertexts of the records with value j, mask every slot, and send the
// replies to Alice; Bob's shares are the masks.
func (p *Party) bobStep(j *job, st *paillierState, lay layout, unit, first, nb int) (bool, error) {
	pl := st.pl
	s := p.session
	last := len(pl.chain) - 1
	alice := pl.chain[0].party
	bob := pl.chain[last]
	nv := vectorCount(pl, last)
	masks := make([][][][]*big.Int, nv)
	for v := range masks {
		masks[v] = make([][][]*big.Int, nb)
	}
	need := false
	for bi := range nb {
		if pl.cacheable() {
			if m, ok := p.masks[cacheKey(alice, first+bi, bob.attrs)]; ok {
				masks[0][bi] = m
				continue
			}
		}
		need = true
	}
	if need {
		in, ok, err := p.chainInput(j, pl, last, first, nb)
		if err != nil || !ok {
			return false, err
		}
		gp, _ := s.goethalsPacking()
		col := p.column(bob.attrs)
		apk := p.peers[alice]
		for v, vec := range in {
			for bi, cts := range vec {
				if masks[v][bi] != nil {
					continue
				}
				prods := groupProducts(apk, cts, col, bob.size, p.o.Workers, &p.meter)
				replies, m, err := maskReplies(apk, gp, prods, s.maskBits(), p.src, p.o.Workers, &p.meter)
				if err != nil {
					return false, err
				}
				masks[v][bi] = m
				if pl.cacheable() {
					p.masks[cacheKey(alice, first+bi, bob.attrs)] = m
				}
				if err := p.send(PartyID(alice), &Body{Kind: "replies", ID: j.req.ID, Index: v*nb + bi, Blobs: [][]byte{apk.MarshalCiphertexts(replies)}}); err != nil {
					return false, err
				}
			}
		}
	}
	st.shares = chainShares(pl, lay, unit, first, nv, bob.size, masks)
	return true, nil
}

// sendShares: a holder encrypts its shares under the shared key for S,
// per cell for a score (S transforms them one by one), packed (a count c
// as c·fine/G, exactly: encoding) for a marginal.
func (p *Party) sendShares(j *job, st *paillierState) error {
	pl := st.pl
	ints := st.shares
	if pl.req.Kind == KindMarginal {
		ints = make([]*big.Int, len(st.shares))
		for i, v := range st.shares {
			ints[i] = new(big.Int).Lsh(v, pl.enc.countShift)
		}
	}
	cts, err := encryptInts(p.shared, &p.session, pl, ints, p.src, p.o.Workers, &p.meter)
	if err != nil {
		return err
	}
	kind := "out-shares"
	if pl.req.Kind == KindScore {
		kind = "cell-shares"
	}
	return p.send(ThirdPartyID, &Body{Kind: kind, ID: j.req.ID, Index: p.index, Blobs: [][]byte{p.shared.MarshalCiphertexts(cts)}})
}

// jointDecrypt is the pair's shared decryption of S's ciphertexts: stage 1
// the sign step's packed t·r + r' (the combiner sends S one bit per cell),
// stage 2 the noisy result (the combiner sends it to the coordinator).
func (p *Party) jointDecrypt(j *job, st *paillierState, stage int) (bool, error) {
	pl := st.pl
	kind := "result-ciphers"
	if stage == 1 {
		kind = "sign-ciphers"
	}
	if !j.has(kind, ThirdPartyID, stage, 0) {
		return false, nil
	}
	partner := pl.combiner
	if p.index == pl.combiner {
		partner = pl.helper
		if !j.has("partials", PartyID(partner), stage, 0) {
			return false, nil
		}
	}
	m := j.take(kind, ThirdPartyID, stage, 0)
	cts, err := p.shared.UnmarshalCiphertexts(m.Blobs[0])
	if err != nil {
		return false, err
	}
	share := p.o.Keys.Pairs[partner]
	mine, err := partialDecrypt(share, cts, p.o.Workers, &p.meter)
	if err != nil {
		return false, err
	}
	if p.index == pl.helper {
		blobs := make([][]byte, len(mine))
		for i, pd := range mine {
			if blobs[i], err = pd.MarshalBinary(); err != nil {
				return false, err
			}
		}
		return true, p.send(PartyID(pl.combiner), &Body{Kind: "partials", ID: j.req.ID, Stage: stage, Blobs: blobs})
	}
	pm := j.take("partials", PartyID(partner), stage, 0)
	if len(pm.Blobs) != len(cts) {
		return false, fmt.Errorf("%d partial decryptions for %d ciphertexts", len(pm.Blobs), len(cts))
	}
	plains := make([]*big.Int, len(cts))
	for i, c := range cts {
		var theirs paillier.PartialDecryption
		if err := theirs.UnmarshalBinary(pm.Blobs[i]); err != nil {
			return false, err
		}
		if plains[i], err = paillier.Combine(p.shared, share.Sharing, c, []*paillier.PartialDecryption{mine[i], &theirs}); err != nil {
			return false, err
		}
	}
	p.meter.comb.Add(int64(len(cts)))
	if stage == 1 {
		return true, p.sendSigns(j, pl, plains)
	}
	return true, p.sendResult(j, pl, plains)
}

func partialDecrypt(share *paillier.KeyShare, cts []*paillier.Ciphertext, workers int, mt *meter) ([]*paillier.PartialDecryption, error) {
	out := make([]*paillier.PartialDecryption, len(cts))
	w := heavyWorkers(len(cts), workers)
	errs := make([]error, w)
	chunks(len(cts), w, func(k, lo, hi int) {
		for i := lo; i < hi; i++ {
			pd, err := share.PartialDecrypt(nil, cts[i])
			if err != nil {
				errs[k] = err
				return
			}
			out[i] = pd
		}
	})
	mt.pdec.Add(int64(len(cts)))
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// sendSigns decodes the packed t·r + r' values and sends S one bit per
// cell: 1 when negative. The combiner learns t·r + r' for every cell (the
// paper's step 5 reveals t·r to the pair).
func (p *Party) sendSigns(j *job, pl *plan, plains []*big.Int) error {
	sp, err := p.session.signPacking(p.shared.Bits())
	if err != nil {
		return err
	}
	cells := p.session.Sizes[pl.attrs[0]] * p.session.Sizes[pl.attrs[1]]
	bits := make([]uint64, 0, cells)
	for _, m := range plains {
		count := min(sp.slots, cells-len(bits))
		d, err := sp.unpack(p.shared, m, count)
		if err != nil {
			return err
		}
		for _, v := range d {
			if v.Sign() < 0 {
				bits = append(bits, 1)
			} else {
				bits = append(bits, 0)
			}
		}
	}
	if len(bits) != cells {
		return fmt.Errorf("decoded %d signs for %d cells", len(bits), cells)
	}
	return p.send(ThirdPartyID, &Body{Kind: "signs", ID: j.req.ID, Words: bits})
}

// sendResult decodes the noisy result on the release's grid (encoding)
// and sends it to the coordinator.
func (p *Party) sendResult(j *job, pl *plan, plains []*big.Int) error {
	var vals []float64
	if pl.req.Kind == KindScore {
		vals = []float64{pl.enc.decode(p.shared.Signed(plains[0]), KindScore)}
	} else {
		op, err := p.session.outPacking(p.shared.Bits(), pl.enc)
		if err != nil {
			return err
		}
		for _, m := range plains {
			count := min(op.slots, pl.values-len(vals))
			d, err := op.unpack(p.shared, m, count)
			if err != nil {
				return err
			}
			for _, x := range d {
				vals = append(vals, pl.enc.decode(x, KindMarginal))
			}
		}
	}
	if len(vals) != pl.values {
		return fmt.Errorf("decoded %d values, want %d", len(vals), pl.values)
	}
	return p.send(CoordinatorID, &Body{Kind: "result", ID: j.req.ID, Floats: vals})
}
