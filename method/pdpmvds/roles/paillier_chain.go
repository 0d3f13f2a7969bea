package roles

import (
	"fmt"
	"math/big"

	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/crypto/sspp"
)

// aliceLayout is where Alice's values sit: her setup vector (cached) or a
// fresh packing of her composite; first and count are the blocks used.
func (s *Session) aliceLayout(pl *plan) (lay sspp.Layout, unit, first, count int, err error) {
	gp, err := s.goethalsPacking()
	if err != nil {
		return sspp.Layout{}, 0, 0, 0, err
	}
	if pl.aliceCached {
		_, lays, _ := s.encrypting()
		lay = lays[pl.chain[0].party]
		first, count = lay.BlocksOf(pl.aliceUnit)
		return lay, pl.aliceUnit, first, count, nil
	}
	lay = sspp.NewLayout(gp, []int{pl.chain[0].size})
	return lay, 0, 0, lay.Blocks, nil
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
func (p *Party) aliceStep(j *job, st *paillierState, lay sspp.Layout, unit, first, nb int) (bool, error) {
	pl := st.pl
	s := p.session
	next := pl.chain[1].party
	if !pl.aliceCached && !st.aliceSent {
		col := p.column(pl.chain[0].attrs)
		blocks, err := sspp.EncryptOneHots(&p.own.PublicKey, lay, [][]int32{col}, p.src, p.o.Workers)
		if err != nil {
			return false, err
		}
		p.meter.enc.Add(int64(p.n * lay.Blocks))
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
			d, err := sspp.DecryptReplies(p.own, gp, cts, p.o.Workers)
			if err != nil {
				return false, err
			}
			p.meter.dec.Add(int64(len(cts)))
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
func chainShares(pl *plan, lay sspp.Layout, unit, first, nv, groups int, vals [][][][]*big.Int) []*big.Int {
	na := pl.chain[0].size
	byChain := make([]*big.Int, na*nv*groups)
	for i := range na {
		b, s := lay.Digit(unit, i)
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
				sel, err := sspp.Select(apk, cts, col, int32(k), p.src, p.o.Workers)
				if err != nil {
					return err
				}
				p.meter.enc.Add(int64(len(cts)))
				blobs[b] = apk.MarshalCiphertexts(sel)
			}
			if err := p.send(next, &Body{Kind: "selected", ID: j.req.ID, Index: v*size + k, Blobs: blobs}); err != nil {
				return err
			}
		}
	}
	return nil
}

// bobStep: multiply, for every input vector, block and own value j, the
// ciphertexts of the records with value j, mask every slot, and send the
// replies to Alice; Bob's shares are the masks.
func (p *Party) bobStep(j *job, st *paillierState, lay sspp.Layout, unit, first, nb int) (bool, error) {
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
				replies, m, err := sspp.Reply(apk, gp, cts, col, bob.size, s.maskBits(), p.src, p.o.Workers)
				if err != nil {
					return false, err
				}
				p.meter.mul.Add(int64(len(cts) + len(replies)))
				p.meter.enc.Add(int64(len(replies)))
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
