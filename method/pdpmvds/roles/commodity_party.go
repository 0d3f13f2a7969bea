package roles

import (
	"fmt"
	"slices"

	"github.com/dppub/dppub/crypto/sspp"
	"github.com/dppub/dppub/randx"
)

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
func splitNoise(b *base, src *randx.Source, pl *plan, id uint64, kind string, from int, words []uint64) error {
	parts := sspp.SplitWords(words, len(pl.holders), src)
	for i, h := range pl.holders {
		if err := b.send(PartyID(h), &Body{Kind: kind, ID: id, Index: from, Words: parts[i]}); err != nil {
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
						sspp.AddInto(sum, st.vb[pr.index])
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
	var err error
	to := pr.a
	if side == 0 {
		to = pr.b
		if pr.stage == 1 {
			v, err = sspp.MaskOneHot(p.column(st.pl.chain[0].attrs), pr.du, sd)
		} else {
			v = sspp.MaskWords(st.cur, sd)
		}
	} else {
		v, err = sspp.MaskOneHot(p.column(st.pl.chain[pr.stage].attrs), pr.dz, sd)
	}
	if err != nil {
		return err
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
		if pr.mode == sspp.Row {
			corrLen *= n
		}
		if len(masked) != want || len(d.Words) != 4+corrLen {
			return false, fmt.Errorf("product %d: masked input of %d words (want %d), deal of %d (want %d)", pr.index, len(masked), want, len(d.Words), 4+corrLen)
		}
		sd := wordsSeed(d.Words[:4])
		if pr.aAttr >= 0 {
			sd = p.maskSeeds[[2]int{pr.aAttr, pr.b}]
		}
		ra := p.maskCache.Get(sd, n*pr.du, pr.aAttr >= 0)
		u, err := sspp.ShareA(pr.mode, pr.du, pr.dz, ra, d.Words[4:], masked, p.o.Workers)
		if err != nil {
			return false, fmt.Errorf("product %d: %w", pr.index, err)
		}
		st.ua[pr.index] = u
		return true, nil
	}
	if len(masked) != n*pr.du || len(d.Words) != 8 {
		return false, fmt.Errorf("product %d: masked input of %d words (want %d), deal of %d (want 8)", pr.index, len(masked), n*pr.du, len(d.Words))
	}
	col := p.column(st.pl.chain[pr.stage].attrs)
	v, err := sspp.ShareB(pr.mode, pr.du, pr.dz, masked, col, wordsSeed(d.Words[4:8]), p.o.Workers)
	if err != nil {
		return false, fmt.Errorf("product %d: %w", pr.index, err)
	}
	st.vb[pr.index] = v
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
		sspp.AddInto(total, m.Words)
	}
	if st.own != nil {
		sspp.AddInto(total, st.own)
	}
	for _, c := range pl.contributors {
		if c == p.index || pl.isHolder(c) {
			continue
		}
		m := j.take("noise", contributorID(c), 0, c)
		if len(m.Words) != len(total) {
			return false, fmt.Errorf("noise part of %d words, want %d", len(m.Words), len(total))
		}
		sspp.AddInto(total, m.Words)
	}
	return true, p.send(CoordinatorID, &Body{Kind: "totals", ID: j.req.ID, Words: total})
}

func contributorID(c int) string {
	if c == ThirdPartyIndex {
		return ThirdPartyID
	}
	return PartyID(c)
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
	if !st.queried {
		w := sspp.SignQuery(p.pairSeeds[partner], q.ID, st.tShare, first)
		st.queried = true
		if err := p.send(ThirdPartyID, &Body{Kind: "sign-query", ID: q.ID, Words: w}); err != nil {
			return false, err
		}
	}
	sg := j.inbox[inboxKey("signs", ThirdPartyID, 0, 0)]
	if sg == nil {
		return false, nil
	}
	abs, err := sspp.AbsShare(p.pairSeeds[partner], q.ID, st.tShare, sg.Words)
	if err != nil {
		return false, err
	}
	// Σ|t| = n·2^f·IInDif, scaled so that a grid step is a whole number of
	// ring units (encoding).
	done, err := p.commodityTotals(j, st, []uint64{abs << pl.enc.shift})
	if done {
		j.take("signs", ThirdPartyID, 0, 0)
	}
	return done, err
}
