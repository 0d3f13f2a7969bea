package roles

import (
	"fmt"
	"math/big"

	"github.com/dppub/dppub/crypto/dlpa"
	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/crypto/sspp"
)

// thirdState is S's progress through a joint request (Paillier suite).
type thirdState struct {
	own      []*paillier.Ciphertext // S's noise share
	started  bool
	signSent bool
	t        []*paillier.Ciphertext // the score's C[t_ij]
	base     []*paillier.Ciphertext // C[Σ|t|] or the packed counts
}

// paillierFlow is S's part of a joint request in the Paillier suite:
// Algorithm 1, steps 4, 6 and 8 for a score; for a marginal, the product
// of the holders' encrypted shares and the noise.
func (t *ThirdParty) paillierFlow(pl *plan) func(*job) (bool, error) {
	st := &thirdState{}
	return func(j *job) (bool, error) {
		if !st.started {
			st.started = true
			if pl.isContributor(ThirdPartyIndex) {
				sp, err := t.session.shareSpec(pl.req.Release.Noise, pl.values, len(pl.contributors))
				if err != nil {
					return false, err
				}
				ints := pl.enc.noiseInts(sp.draw(t.noiser, pl.values), pl.req.Kind)
				cts, err := encryptInts(t.shared, &t.session, pl, ints, t.src, t.o.Workers, &t.meter)
				if err != nil {
					return false, err
				}
				st.own = cts
			}
		}
		if st.base == nil {
			ok, err := t.aggregate(j, pl, st)
			if err != nil || !ok {
				return false, err
			}
		}
		noise, ok, err := t.collectNoise(j, pl, st)
		if err != nil || !ok {
			return false, err
		}
		res := make([]*paillier.Ciphertext, len(st.base))
		for i, c := range st.base {
			res[i] = t.shared.Add(c, noise[i])
		}
		t.meter.mul.Add(int64(len(res)))
		raw := t.shared.MarshalCiphertexts(res)
		for _, k := range []int{pl.helper, pl.combiner} {
			if err := t.send(PartyID(k), &Body{Kind: "result-ciphers", ID: j.req.ID, Stage: 2, Blobs: [][]byte{raw}}); err != nil {
				return false, err
			}
		}
		return true, nil
	}
}

// holderCiphers reads both holders' encrypted shares.
func (t *ThirdParty) holderCiphers(j *job, pl *plan, kind string, count int) ([][]*paillier.Ciphertext, bool, error) {
	for _, h := range pl.holders {
		if !j.has(kind, PartyID(h), 0, h) {
			return nil, false, nil
		}
	}
	out := make([][]*paillier.Ciphertext, len(pl.holders))
	for i, h := range pl.holders {
		cts, err := readCiphers(j.take(kind, PartyID(h), 0, h), 0, t.shared, count)
		if err != nil {
			return nil, false, err
		}
		out[i] = cts
	}
	return out, true, nil
}

// aggregate sets st.base: for a marginal the product of the holders'
// packed shares; for a score, after the sign step, C[Σ|t_ij|].
func (t *ThirdParty) aggregate(j *job, pl *plan, st *thirdState) (bool, error) {
	pk := t.shared
	if pl.req.Kind == KindMarginal {
		nb := t.session.outBlocks(pl, pk.Bits())
		hs, ok, err := t.holderCiphers(j, pl, "out-shares", nb)
		if err != nil || !ok {
			return false, err
		}
		st.base = make([]*paillier.Ciphertext, nb)
		for i := range nb {
			st.base[i] = pk.Add(hs[0][i], hs[1][i])
		}
		t.meter.mul.Add(int64(nb))
		return true, nil
	}
	cells := len(pl.req.RefA) * len(pl.req.RefB)
	if !st.signSent {
		hs, ok, err := t.holderCiphers(j, pl, "cell-shares", cells)
		if err != nil || !ok {
			return false, err
		}
		if err := t.signStep(j, pl, st, hs[0], hs[1]); err != nil {
			return false, err
		}
		st.signSent = true
	}
	sg := j.take("signs", PartyID(pl.combiner), 0, 0)
	if sg == nil {
		return false, nil
	}
	if len(sg.Words) != cells {
		return false, fmt.Errorf("%d signs for %d cells", len(sg.Words), cells)
	}
	// Step 6 and the product of step 8: c_ij = C[t] or C[−t].
	sum, err := sspp.AbsSum(pk, st.t, sg.Words)
	if err != nil {
		return false, err
	}
	t.meter.mul.Add(int64(cells))
	// Σ|t| = n·2^f·IInDif, scaled so that a grid step is a whole number of
	// plaintext units, plus S's dither U uniform in [0, step): the
	// decoder's ⌊T/step⌋ is then the stochastic rounding of IInDif to the
	// release's grid (encoding).
	sum = pk.MulPlain(sum, new(big.Int).Lsh(big.NewInt(1), pl.enc.shift))
	sum = pk.AddPlain(sum, pl.enc.dither(t.src))
	t.meter.exp.Add(1)
	t.meter.mul.Add(1)
	st.base = []*paillier.Ciphertext{sum}
	return true, nil
}

// signStep is Algorithm 1, step 4: C[t] = C[Â]·(C[S_x]·C[S_y])^{−n·2^f}
// with Â = N*_i·N*_j·2^f, then C[t·r + r'] for a fresh r ∈ [1, 2^σ) and
// r' ∈ [0, r) per cell (r' keeps the sign and hides t's divisors), packed
// into slots for the pair's joint decryption.
func (t *ThirdParty) signStep(j *job, pl *plan, st *thirdState, cx, cy []*paillier.Ciphertext) error {
	pk := t.shared
	s := t.session
	q := pl.req
	cells := len(cx)
	scale := new(big.Int).Lsh(big.NewInt(int64(s.Records)), paillierFrac)
	scale.Neg(scale)
	ahat := make([]*big.Int, cells)
	nb := len(q.RefB)
	for c := range cells {
		var err error
		if ahat[c], err = sspp.FixedPoint(q.RefA[c/nb]*q.RefB[c%nb], paillierFrac); err != nil {
			return err
		}
	}
	tc, v, err := sspp.BlindSigns(pk, cx, cy, ahat, scale, s.StatBits, t.src, t.o.Workers)
	if err != nil {
		return err
	}
	st.t = tc
	t.meter.mul.Add(int64(3 * cells))
	t.meter.exp.Add(int64(2 * cells))
	sp, err := s.signPacking(pk.Bits())
	if err != nil {
		return err
	}
	packed := sp.PackAll(pk, v, t.o.Workers)
	t.meter.exp.Add(int64(cells - len(packed)))
	t.meter.mul.Add(int64(cells - len(packed)))
	raw := pk.MarshalCiphertexts(packed)
	for _, k := range []int{pl.helper, pl.combiner} {
		if err := t.send(PartyID(k), &Body{Kind: "sign-ciphers", ID: j.req.ID, Stage: 1, Blobs: [][]byte{raw}}); err != nil {
			return err
		}
	}
	return nil
}

// collectNoise returns the encrypted noise per output ciphertext: the
// product of every contributor's share (shares mode) or DLPA's combined
// noise, packed like the output (exact Laplace).
func (t *ThirdParty) collectNoise(j *job, pl *plan, st *thirdState) ([]*paillier.Ciphertext, bool, error) {
	pk := t.shared
	nb := t.session.outBlocks(pl, pk.Bits())
	if t.session.usesDLPA(pl) {
		return t.dlpaNoise(j, pl)
	}
	for _, c := range pl.contributors {
		if c != ThirdPartyIndex && !j.has("noise-ciphers", PartyID(c), 0, c) {
			return nil, false, nil
		}
	}
	out := st.own
	for _, c := range pl.contributors {
		if c == ThirdPartyIndex {
			continue
		}
		cts, err := readCiphers(j.take("noise-ciphers", PartyID(c), 0, c), 0, pk, nb)
		if err != nil {
			return nil, false, err
		}
		if out == nil {
			out = cts
			continue
		}
		for i := range out {
			out[i] = pk.Add(out[i], cts[i])
		}
		t.meter.mul.Add(int64(nb))
	}
	return out, true, nil
}

// dlpaNoise combines the involved parties' DLPA contributions for every
// value (Rastogi & Nath; Algorithm 1, step 7) and packs them like the
// output.
func (t *ThirdParty) dlpaNoise(j *job, pl *plan) ([]*paillier.Ciphertext, bool, error) {
	pk := t.shared
	for _, k := range pl.involved {
		if !j.has("dlpa-contrib", PartyID(k), 0, k) {
			return nil, false, nil
		}
	}
	contribs := make([][]*dlpa.Contribution, pl.values)
	for _, k := range pl.involved {
		m := j.take("dlpa-contrib", PartyID(k), 0, k)
		if len(m.Blobs) != pl.values {
			return nil, false, fmt.Errorf("DLPA contributions for %d values, want %d", len(m.Blobs), pl.values)
		}
		for v, b := range m.Blobs {
			var c dlpa.Contribution
			if err := c.UnmarshalBinary(b); err != nil {
				return nil, false, err
			}
			contribs[v] = append(contribs[v], &c)
		}
	}
	noise := make([]*paillier.Ciphertext, pl.values)
	for v, cs := range contribs {
		c, err := dlpa.Combine(pk, len(pl.involved), cs)
		if err != nil {
			return nil, false, err
		}
		noise[v] = c
	}
	t.meter.mul.Add(int64(pl.values * len(pl.involved)))
	if pl.req.Kind == KindScore {
		// η̂ counts steps of G/fine: step/fine plaintext units each.
		f := new(big.Int).Quo(pl.enc.step, big.NewInt(pl.enc.fine))
		noise[0] = pk.MulPlain(noise[0], f)
		t.meter.exp.Add(1)
		return noise, true, nil
	}
	op, err := t.session.outPacking(pk.Bits(), pl.enc)
	if err != nil {
		return nil, false, err
	}
	out := op.PackAll(pk, noise, t.o.Workers)
	t.meter.exp.Add(int64(len(noise) - len(out)))
	t.meter.mul.Add(int64(len(noise) - len(out)))
	return out, true, nil
}
