package pdpmvds

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
)

// commoditySetup: S deals a mask seed for every (own attribute,
// recipient); the party sends every other party each attribute's one-hot
// column plus that mask (uniformly random words), and the lower-numbered
// party of every pair sends the pair's seed for the sign step's common
// randomness.
func (p *Party) commoditySetup() func(*job) (bool, error) {
	sentPairs, sentMasked := false, false
	return func(j *job) (bool, error) {
		s := p.session
		if !sentPairs {
			for q := p.index + 1; q < s.Parties; q++ {
				var sd seed
				for i := range sd {
					sd[i] = byte(p.src.Uint64())
				}
				p.pairSeeds[q] = sd
				if err := p.send(PartyID(q), &Body{Kind: "pair-seed", ID: j.req.ID, Words: seedWords(sd)}); err != nil {
					return false, err
				}
			}
			sentPairs = true
		}
		if !sentMasked {
			m := j.take("mask-seeds", ThirdPartyID, 0, 0)
			if m == nil {
				return false, nil
			}
			if err := p.readMaskSeeds(m.Words); err != nil {
				return false, err
			}
			for q := range s.Parties {
				if q == p.index {
					continue
				}
				for _, a := range p.attrs {
					v := maskOneHot(p.column([]int{a}), s.Sizes[a], p.maskSeeds[[2]int{a, q}])
					if err := p.send(PartyID(q), &Body{Kind: "masked", ID: j.req.ID, Index: a, Words: v}); err != nil {
						return false, err
					}
				}
			}
			sentMasked = true
		}
		// Wait for every other party's masked columns and pair seeds.
		for q := range s.Parties {
			if q == p.index {
				continue
			}
			if q < p.index && !j.has("pair-seed", PartyID(q), 0, 0) {
				return false, nil
			}
			for _, a := range s.attrsOf(q) {
				if !j.has("masked", PartyID(q), 0, a) {
					return false, nil
				}
			}
		}
		for q := range s.Parties {
			if q == p.index {
				continue
			}
			if q < p.index {
				w := j.take("pair-seed", PartyID(q), 0, 0).Words
				if len(w) != 4 {
					return false, fmt.Errorf("pair seed of %d words", len(w))
				}
				p.pairSeeds[q] = wordsSeed(w)
			}
			for _, a := range s.attrsOf(q) {
				v := j.take("masked", PartyID(q), 0, a).Words
				if len(v) != p.n*s.Sizes[a] {
					return false, fmt.Errorf("masked column of attribute %d has %d words, want %d", a, len(v), p.n*s.Sizes[a])
				}
				p.masked[[2]int{q, a}] = v
			}
		}
		p.setupOK = true
		return true, p.send(CoordinatorID, &Body{Kind: "ready", ID: j.req.ID})
	}
}

// readMaskSeeds reads S's (attribute, recipient, seed) triples.
func (p *Party) readMaskSeeds(w []uint64) error {
	const width = 6
	if len(w)%width != 0 {
		return fmt.Errorf("mask seeds of %d words", len(w))
	}
	for i := 0; i < len(w); i += width {
		a, q := int(w[i]), int(w[i+1])
		if !slices.Contains(p.attrs, a) || q < 0 || q >= p.session.Parties || q == p.index {
			return fmt.Errorf("mask seed for attribute %d and recipient %d", a, q)
		}
		p.maskSeeds[[2]int{a, q}] = wordsSeed(w[i+2 : i+6])
	}
	if len(p.maskSeeds) != len(p.attrs)*(p.session.Parties-1) {
		return fmt.Errorf("got %d mask seeds, want %d", len(p.maskSeeds), len(p.attrs)*(p.session.Parties-1))
	}
	return nil
}

// commodityState is a party's progress through a joint request.
type commodityState struct {
	pl       *plan
	noiseOK  bool
	own      []uint64 // own noise share (holders), fixed point
	stage    int      // products of stages < stage are done
	sentMask map[int]bool
	ua       map[int][]uint64 // A-side results by product
	vb       map[int][]uint64 // B-side results by product
	cur      []uint64         // record-level shares (row mode) or final shares
	shares   []uint64         // final shares, engine order
	tShare   []uint64         // score: shares of t, engine order
	queried  bool
}

// commodityFlow is a party's part of a joint request in the commodity
// suite: noise shares, the chain of products, then (for a score) the sign
// step, and the holder's total for the coordinator.
func (p *Party) commodityFlow(pl *plan) func(*job) (bool, error) {
	st := &commodityState{pl: pl, stage: 1, sentMask: map[int]bool{}, ua: map[int][]uint64{}, vb: map[int][]uint64{}}
	return func(j *job) (bool, error) {
		if !st.noiseOK {
			if err := p.commodityNoise(j, st); err != nil {
				return false, err
			}
			st.noiseOK = true
		}
		if !pl.isHolder(p.index) {
			return true, nil
		}
		ok, err := p.runProducts(j, st)
		if !ok || err != nil {
			return false, err
		}
		if st.shares == nil {
			st.shares = make([]uint64, len(pl.layout))
			for c, i := range pl.layout {
				st.shares[c] = st.cur[i]
			}
		}
		if pl.req.Kind == KindScore {
			return p.commodityScore(j, st)
		}
		return p.commodityTotals(j, st, scaleShares(st.shares, 1<<pl.enc.countShift))
	}
}

func scaleShares(v []uint64, k uint64) []uint64 {
	out := make([]uint64, len(v))
	for i, x := range v {
		out[i] = x * k
	}
	return out
}

// commodityNoise draws the party's integer noise share (in ring units of
// the release's encoding); a contributor that holds no share splits it
// among the holders.
func (p *Party) commodityNoise(j *job, st *commodityState) error {
	pl := st.pl
	if !pl.isContributor(p.index) {
		return nil
	}
	k, err := p.noiseShares(pl)
	if err != nil {
		return err
	}
	words, err := pl.enc.noiseWords(k, pl.req.Kind, len(pl.contributors))
	if err != nil {
		return err
	}
	if pl.isHolder(p.index) {
		st.own = words
		return nil
	}
	return splitNoise(&p.base, p.src, pl, j.req.ID, "noise", p.index, words)
}

// splitNoise sends every holder a uniformly random part of words (a noise
// share, or S's dither), the parts summing to words mod 2^64: no holder
// learns them.
func splitNoise(b *base, src interface{ Uint64() uint64 }, pl *plan, id uint64, kind string, from int, words []uint64) error {
	rest := slices.Clone(words)
	for i, h := range pl.holders {
		part := rest
		if i < len(pl.holders)-1 {
			part = make([]uint64, len(words))
			for c := range part {
				part[c] = src.Uint64()
				rest[c] -= part[c]
			}
		}
		if err := b.send(PartyID(h), &Body{Kind: kind, ID: id, Index: from, Words: part}); err != nil {
			return err
		}
	}
	return nil
}

// runProducts advances through the chain of products; it returns true
// once the party holds its final shares in st.cur.
func (p *Party) runProducts(j *job, st *commodityState) (bool, error) {
	pl := st.pl
	last := len(pl.chain) - 1
	for st.stage <= last {
		stage := st.stage
		mine := false
		for _, pr := range pl.products {
			if pr.stage != stage || (pr.a != p.index && pr.b != p.index) {
				continue
			}
			mine = true
			if err := p.sendMasked(j, st, pr); err != nil {
				return false, err
			}
		}
		if !mine {
			st.stage++
			continue
		}
		for _, pr := range pl.products {
			if pr.stage != stage || (pr.a != p.index && pr.b != p.index) {
				continue
			}
			if _, ok := st.ua[pr.index]; ok {
				continue
			}
			if _, ok := st.vb[pr.index]; ok {
				continue
			}
			done, err := p.finishProduct(j, st, pr)
			if err != nil || !done {
				return false, err
			}
		}
		// Every product of the stage is done: fold the results.
		if pl.chain[stage].party == p.index {
			var sum []uint64
			for _, pr := range pl.products {
				if pr.stage == stage {
					if sum == nil {
						sum = st.vb[pr.index]
					} else {
						addInto(sum, st.vb[pr.index])
					}
				}
			}
			st.cur = sum
		} else {
			for _, pr := range pl.products {
				if pr.stage == stage && pr.a == p.index {
					st.cur = st.ua[pr.index]
				}
			}
		}
		st.stage++
	}
	return true, nil
}

// dealFor reads S's deal for one side of a product.
func dealFor(j *job, pr product, side int) *Body {
	return j.take("deal", ThirdPartyID, side, pr.index)
}

// sendMasked sends this party's masked input of a product, once, as soon
// as S's deal (and, for A, the previous stage's shares) is there.
func (p *Party) sendMasked(j *job, st *commodityState, pr product) error {
	key := pr.index*2 + sideOf(pr, p.index)
	if st.sentMask[key] {
		return nil
	}
	if pr.a == p.index && pr.aAttr >= 0 || pr.b == p.index && pr.bAttr >= 0 {
		st.sentMask[key] = true // cached at setup
		return nil
	}
	side := sideOf(pr, p.index)
	d := j.inbox[inboxKey("deal", ThirdPartyID, side, pr.index)]
	if d == nil || len(d.Words) < 4 {
		return nil
	}
	sd := wordsSeed(d.Words[:4])
	var v []uint64
	to := pr.a
	if side == 0 {
		to = pr.b
		if pr.stage == 1 {
			v = maskOneHot(p.column(st.pl.chain[0].attrs), pr.du, sd)
		} else {
			v = maskWords(st.cur, sd)
		}
	} else {
		v = maskOneHot(p.column(st.pl.chain[pr.stage].attrs), pr.dz, sd)
	}
	st.sentMask[key] = true
	return p.send(PartyID(to), &Body{Kind: "masked", ID: j.req.ID, Index: pr.index, Stage: side, Words: v})
}

func sideOf(pr product, k int) int {
	if pr.a == k {
		return 0
	}
	return 1
}

// finishProduct computes this party's share of one product once its
// inputs are there.
func (p *Party) finishProduct(j *job, st *commodityState, pr product) (bool, error) {
	side := sideOf(pr, p.index)
	if !j.has("deal", ThirdPartyID, side, pr.index) {
		return false, nil
	}
	other := 1 - side
	partner := pr.b
	cachedOther := pr.bAttr
	if side == 1 {
		partner, cachedOther = pr.a, pr.aAttr
	}
	var masked []uint64
	if cachedOther >= 0 {
		masked = p.masked[[2]int{partner, cachedOther}]
	} else {
		m := j.inbox[inboxKey("masked", PartyID(partner), other, pr.index)]
		if m == nil {
			return false, nil
		}
		masked = m.Words
		j.take("masked", PartyID(partner), other, pr.index)
	}
	d := dealFor(j, pr, side)
	n := p.n
	if side == 0 {
		want := n * pr.dz
		corrLen := pr.du * pr.dz
		if pr.mode == rowMode {
			corrLen *= n
		}
		if len(masked) != want || len(d.Words) != 4+corrLen {
			return false, fmt.Errorf("product %d: masked input of %d words (want %d), deal of %d (want %d)", pr.index, len(masked), want, len(d.Words), 4+corrLen)
		}
		sd := wordsSeed(d.Words[:4])
		if pr.aAttr >= 0 {
			sd = p.maskSeeds[[2]int{pr.aAttr, pr.b}]
		}
		ra := p.maskCache.get(sd, n*pr.du, pr.aAttr >= 0)
		st.ua[pr.index] = productA(pr.mode, pr.du, pr.dz, ra, d.Words[4:], masked, p.o.Workers)
		return true, nil
	}
	if len(masked) != n*pr.du || len(d.Words) != 8 {
		return false, fmt.Errorf("product %d: masked input of %d words (want %d), deal of %d (want 8)", pr.index, len(masked), n*pr.du, len(d.Words))
	}
	col := p.column(st.pl.chain[pr.stage].attrs)
	st.vb[pr.index] = productB(pr.mode, pr.du, pr.dz, masked, col, wordsSeed(d.Words[4:8]), p.o.Workers)
	return true, nil
}

// commodityTotals adds the party's own noise and the parts received from
// the other contributors (and, for a score, its part of S's dither) to its
// shares and sends the total.
func (p *Party) commodityTotals(j *job, st *commodityState, shares []uint64) (bool, error) {
	pl := st.pl
	for _, c := range pl.contributors {
		if c == p.index || pl.isHolder(c) {
			continue
		}
		if !j.has("noise", contributorID(c), 0, c) {
			return false, nil
		}
	}
	score := pl.req.Kind == KindScore
	if score && !j.has("dither", ThirdPartyID, 0, ThirdPartyIndex) {
		return false, nil
	}
	total := slices.Clone(shares)
	if score {
		m := j.take("dither", ThirdPartyID, 0, ThirdPartyIndex)
		if len(m.Words) != len(total) {
			return false, fmt.Errorf("dither part of %d words, want %d", len(m.Words), len(total))
		}
		addInto(total, m.Words)
	}
	if st.own != nil {
		addInto(total, st.own)
	}
	for _, c := range pl.contributors {
		if c == p.index || pl.isHolder(c) {
			continue
		}
		m := j.take("noise", contributorID(c), 0, c)
		if len(m.Words) != len(total) {
			return false, fmt.Errorf("noise part of %d words, want %d", len(m.Words), len(total))
		}
		addInto(total, m.Words)
	}
	return true, p.send(CoordinatorID, &Body{Kind: "totals", ID: j.req.ID, Words: total})
}

func contributorID(c int) string {
	if c == ThirdPartyIndex {
		return ThirdPartyID
	}
	return PartyID(c)
}

// signStream returns the common randomness of the pair's sign step for a
// request: per cell a multiplier r ∈ [1, 2^signMaskBits), an offset
// r' ∈ [0, r) and a sign s ∈ {±1}, unknown to S.
func signStream(pair seed, id uint64) *rand.ChaCha8 {
	h := sha256.New()
	h.Write(pair[:])
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], id)
	h.Write(b[:])
	var k seed
	copy(k[:], h.Sum(nil))
	return rand.NewChaCha8(k)
}

func signMask(c *rand.ChaCha8) (r, off uint64, neg bool) {
	r = 1 + c.Uint64()%((1<<signMaskBits)-1)
	off = c.Uint64() % r
	neg = c.Uint64()&1 == 1
	return r, off, neg
}

// commodityScore is Algorithm 1, steps 3–9, on additive shares: the pair
// forms shares of t_ij = Â_ij − n·2^f·N_ij (Â = N*_i·N*_j·2^f), sends S
// s·(r·t + r') with common (r, r', s) per cell, learns sign(t) from S's
// reply, and sends the coordinator its share of Σ|t| plus noise.
func (p *Party) commodityScore(j *job, st *commodityState) (bool, error) {
	pl := st.pl
	s := p.session
	q := pl.req
	partner := pl.holders[0]
	if partner == p.index {
		partner = pl.holders[1]
	}
	first := p.index < partner
	if st.tShare == nil {
		frac := s.signFrac()
		scale := uint64(s.Records) << frac
		st.tShare = make([]uint64, len(st.shares))
		nb := len(q.RefB)
		for c, v := range st.shares {
			st.tShare[c] = -scale * v
			if first {
				a, err := fixedWord(q.RefA[c/nb]*q.RefB[c%nb], frac)
				if err != nil {
					return false, err
				}
				st.tShare[c] += a
			}
		}
	}
	stream := func() *rand.ChaCha8 { return signStream(p.pairSeeds[partner], q.ID) }
	if !st.queried {
		c := stream()
		w := make([]uint64, len(st.tShare))
		for i, t := range st.tShare {
			r, off, neg := signMask(c)
			v := r * t
			if first {
				v += off
			}
			if neg {
				v = -v
			}
			w[i] = v
		}
		st.queried = true
		if err := p.send(ThirdPartyID, &Body{Kind: "sign-query", ID: q.ID, Words: w}); err != nil {
			return false, err
		}
	}
	sg := j.inbox[inboxKey("signs", ThirdPartyID, 0, 0)]
	if sg == nil {
		return false, nil
	}
	if len(sg.Words) != len(st.tShare) {
		return false, fmt.Errorf("%d signs for %d cells", len(sg.Words), len(st.tShare))
	}
	c := stream()
	var abs uint64
	for i, t := range st.tShare {
		_, _, neg := signMask(c)
		// sign(t) = s·σ: flip the share when exactly one of them is −1.
		if neg != (sg.Words[i] == 1) {
			abs -= t
		} else {
			abs += t
		}
	}
	// Σ|t| = n·2^f·IInDif, scaled so that a grid step is a whole number of
	// ring units (encoding).
	done, err := p.commodityTotals(j, st, []uint64{abs << pl.enc.shift})
	if done {
		j.take("signs", ThirdPartyID, 0, 0)
	}
	return done, err
}
