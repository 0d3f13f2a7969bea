package roles

import (
	"fmt"
	"math"
	"math/big"

	"github.com/dppub/dppub/crypto/dlpa"
	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/crypto/sspp"
	"github.com/dppub/dppub/engine/marginal/measurement"
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

// goethalsPacking is the slot layout of scalar-product replies.
func (s *Session) goethalsPacking() (sspp.Packing, error) {
	return sspp.NewPacking(s.KeyBits, s.maskBits()+2)
}

// maskBits is the size of Bob's per-digit masks: σ + L.
func (s *Session) maskBits() int { return s.StatBits + s.recordBits() }

func (s *Session) signPacking(keyBits int) (sspp.Packing, error) {
	return sspp.NewPacking(keyBits, 2*s.recordBits()+paillierFrac+s.StatBits+2)
}

func (s *Session) outPacking(keyBits int, e encoding) (sspp.Packing, error) {
	count := s.recordBits() + int(e.countShift)
	noise := int(math.Ceil(math.Log2(e.plan.Units()*float64(e.fine)+1))) + 12
	return sspp.NewPacking(keyBits, max(count, noise)+2)
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
	return s.Suite == SuitePaillier && s.Noise == NoiseExact && pl.req.Release.Noise.Mechanism == measurement.Laplace
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
		for lo := 0; lo < len(ints); lo += op.Slots {
			plains = append(plains, op.Pack(ints[lo:min(lo+op.Slots, len(ints))]))
		}
	}
	out, err := sspp.EncryptBatch(pk, plains, src, workers)
	if err != nil {
		return nil, err
	}
	mt.enc.Add(int64(len(plains)))
	return out, nil
}

// outBlocks is the number of ciphertexts of a released value vector.
func (s *Session) outBlocks(pl *plan, keyBits int) int {
	if pl.req.Kind == KindScore {
		return 1
	}
	op, _ := s.outPacking(keyBits, pl.enc)
	return (pl.values + op.Slots - 1) / op.Slots
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
	mine, err := sspp.PartialDecryptBatch(share, cts, p.o.Workers)
	if err != nil {
		return false, err
	}
	p.meter.pdec.Add(int64(len(cts)))
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

// sendSigns decodes the packed t·r + r' values and sends S one bit per
// cell: 1 when negative. The combiner learns t·r + r' for every cell (the
// paper's step 5 reveals t·r to the pair).
func (p *Party) sendSigns(j *job, pl *plan, plains []*big.Int) error {
	sp, err := p.session.signPacking(p.shared.Bits())
	if err != nil {
		return err
	}
	cells := p.session.Sizes[pl.attrs[0]] * p.session.Sizes[pl.attrs[1]]
	bits, err := sspp.DecodeSigns(p.shared, sp, plains, cells)
	if err != nil {
		return err
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
			count := min(op.Slots, pl.values-len(vals))
			d, err := op.Unpack(p.shared, m, count)
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
