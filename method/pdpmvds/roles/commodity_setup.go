package roles

import (
	"fmt"
	"slices"

	"github.com/dppub/dppub/crypto/sspp"
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
				sd := sspp.NewSeed(p.src)
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
					v, err := sspp.MaskOneHot(p.column([]int{a}), s.Sizes[a], p.maskSeeds[[2]int{a, q}])
					if err != nil {
						return false, err
					}
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
