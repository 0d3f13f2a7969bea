package roles

import (
	"fmt"
	"math"
	"slices"

	"github.com/dppub/dppub/crypto/sspp"
)

// plan is what every role derives, identically, from the session and a
// request: who takes part, in which order the parties' indicator vectors
// are multiplied, who holds the shares, who draws noise, who decrypts.
type plan struct {
	req      *Request
	attrs    []int
	comps    []composite // per involved party, in party order
	involved []int
	// local: one party owns every attribute and answers alone.
	local bool
	// values is the number of released values: cells, or 1 for a score.
	values       int
	contributors []int
	// chain orders the composites for the products; holders are the
	// parties that end with additive shares of the counts (chain order).
	chain   []composite
	holders []int
	// layout maps every engine-order cell to its index in chain order.
	layout []int
	// products are the commodity suite's two-party products.
	products []product
	// aliceUnit and aliceCached: the Paillier suite's Alice (chain[0])
	// uses her setup vector (unit = attribute position) when cached.
	aliceCached bool
	aliceUnit   int
	// helper and combiner jointly decrypt (Paillier suite): the two
	// lowest-numbered involved parties.
	helper, combiner int
	// enc is how a joint release travels in integers (noise.go).
	enc encoding
}

// product is one commodity two-party product: A (holding U, n × du)
// with B's one-hot composite (dz values).
type product struct {
	index        int
	stage        int
	a, b         int
	mode         sspp.Mode
	du, dz       int
	aAttr, bAttr int // the cached single attribute of each side, or −1
}

func (s *Session) plan(q *Request) (*plan, error) {
	if err := s.validAttrs(q.Attrs); err != nil {
		return nil, err
	}
	p := &plan{req: q, attrs: q.Attrs, comps: s.composites(q.Attrs), involved: s.involved(q.Attrs)}
	p.local = len(p.involved) == 1
	switch q.Kind {
	case KindScore:
		if len(q.Attrs) != 2 {
			return nil, fmt.Errorf("pdpmvds: a score needs 2 attributes, got %v", q.Attrs)
		}
		if len(q.RefA) != s.Sizes[q.Attrs[0]] || len(q.RefB) != s.Sizes[q.Attrs[1]] {
			return nil, fmt.Errorf("pdpmvds: score of %v needs references of lengths %d and %d, got %d and %d",
				q.Attrs, s.Sizes[q.Attrs[0]], s.Sizes[q.Attrs[1]], len(q.RefA), len(q.RefB))
		}
		if err := s.checkReferences(q); err != nil {
			return nil, err
		}
		p.values = 1
	case KindMarginal:
		p.values = 1
		for _, a := range q.Attrs {
			p.values *= s.Sizes[a]
		}
	default:
		return nil, fmt.Errorf("pdpmvds: no plan for a %q request", q.Kind)
	}
	if p.local {
		return p, nil
	}
	p.contributors = s.contributors(p.involved)
	p.helper, p.combiner = p.involved[0], p.involved[1]
	if s.Suite == SuiteCommodity {
		s.commodityChain(p)
	} else {
		s.paillierChain(p)
	}
	p.layout = s.cellLayout(q.Attrs, p.chain)
	enc, err := s.encoding(p)
	if err != nil {
		return nil, err
	}
	p.enc = enc
	return p, nil
}

// checkReferences refuses a score whose public reference counts are not
// what a coordinator can honestly send: every role checks them here,
// before a party charges anything. Honest references are noisy one-way
// counts (the engine's NormSub projects them onto non-negative counts
// summing to n), so each lies within ±2n and the sums of their magnitudes
// multiply to about n². Without this check a coordinator's references of
// 1e200 made a party charge the release, then panic on the non-finite
// score (one party's pair) or fail in the fixed point (a joint pair), with
// the charge recorded; and large finite ones could carry the commodity
// suite's Σ|t| past its ring (checkScoreRange now uses these sums).
func (s *Session) checkReferences(q *Request) error {
	n := float64(s.Records)
	var sums [2]float64
	for k, refs := range [2][]float64{q.RefA, q.RefB} {
		for i, v := range refs {
			if !(math.Abs(v) <= 2*n) {
				return fmt.Errorf("pdpmvds: score of %v: reference %d of attribute %d is %v, outside ±2n = ±%v", q.Attrs, i, q.Attrs[k], v, 2*n)
			}
			sums[k] += math.Abs(v)
		}
	}
	if sums[0]*sums[1] > 4*n*n {
		return fmt.Errorf("pdpmvds: score of %v: references whose magnitudes sum to %v and %v, beyond (2n)² = %v for n = %d records", q.Attrs, sums[0], sums[1], 4*n*n, s.Records)
	}
	return nil
}

// refMass is Σ|RefA|·Σ|RefB|, which bounds Σ_ij |RefA_i·RefB_j|.
func refMass(q *Request) float64 {
	var a, b float64
	for _, v := range q.RefA {
		a += math.Abs(v)
	}
	for _, v := range q.RefB {
		b += math.Abs(v)
	}
	return a * b
}

// commodityChain orders the composites by size (the record-level
// intermediate products grow with the product of the first sizes) and
// lists the products.
func (s *Session) commodityChain(p *plan) {
	p.chain = slices.Clone(p.comps)
	slices.SortStableFunc(p.chain, func(a, b composite) int { return a.size - b.size })
	m := len(p.chain)
	holders := []int{p.chain[0].party}
	du := p.chain[0].size
	for st := 1; st < m; st++ {
		b := p.chain[st]
		mode := sspp.Row
		if st == m-1 {
			mode = sspp.Sum
		}
		for _, h := range holders {
			pr := product{index: len(p.products), stage: st, a: h, b: b.party, mode: mode, du: du, dz: b.size, aAttr: -1, bAttr: -1}
			if m == 2 {
				if len(p.chain[0].attrs) == 1 {
					pr.aAttr = p.chain[0].attrs[0]
				}
				if len(b.attrs) == 1 {
					pr.bAttr = b.attrs[0]
				}
			}
			p.products = append(p.products, pr)
		}
		holders = append(holders, b.party)
		du *= b.size
	}
	p.holders = holders
}

// encrypting reports which parties encrypt their one-hot vectors once at
// setup (Paillier suite): all but the one with the most blocks, so that
// every pair of parties has at least one encrypted side.
func (s *Session) encrypting() ([]bool, []sspp.Layout, error) {
	pk, err := s.goethalsPacking()
	if err != nil {
		return nil, nil, err
	}
	lays := make([]sspp.Layout, s.Parties)
	skip := 0
	for k := range s.Parties {
		var sizes []int
		for _, a := range s.attrsOf(k) {
			sizes = append(sizes, s.Sizes[a])
		}
		lays[k] = sspp.NewLayout(pk, sizes)
		if lays[k].Blocks >= lays[skip].Blocks {
			skip = k
		}
	}
	enc := make([]bool, s.Parties)
	for k := range enc {
		enc[k] = k != skip
	}
	return enc, lays, nil
}

// paillierChain picks Alice (preferably a party with one attribute in the
// set and a setup vector: nothing new to encrypt), Bob (the largest
// composite: grouping by it is free) and the middle parties, whose cost
// (one rerandomisation per record and value) grows with their size. Among
// cached candidates Alice is the one whose whole setup vector costs the
// others least: her blocks times the other parties' attributes, which is
// how many group products Bob computes over all the pair's requests.
func (s *Session) paillierChain(p *plan) {
	enc, lays, _ := s.encrypting()
	alice, best := -1, 0
	for i, c := range p.comps {
		if len(c.attrs) != 1 || !enc[c.party] {
			continue
		}
		cost := lays[c.party].Blocks
		for _, o := range p.comps {
			if o.party != c.party {
				cost *= len(s.attrsOf(o.party))
			}
		}
		if alice < 0 || cost < best {
			alice, best = i, cost
			p.aliceUnit = slices.Index(s.attrsOf(c.party), c.attrs[0])
		}
	}
	p.aliceCached = alice >= 0
	if alice < 0 {
		alice = 0
		for i, c := range p.comps {
			if c.size < p.comps[alice].size {
				alice = i
			}
		}
	}
	rest := slices.Clone(p.comps)
	rest = slices.Delete(rest, alice, alice+1)
	slices.SortStableFunc(rest, func(a, b composite) int { return a.size - b.size })
	p.chain = append([]composite{p.comps[alice]}, rest...)
	p.holders = []int{p.chain[0].party, p.chain[len(p.chain)-1].party}
}

// isHolder reports whether party k ends with shares.
func (p *plan) isHolder(k int) bool { return slices.Contains(p.holders, k) }

// isContributor reports whether party k (or S, ThirdPartyIndex) draws
// noise.
func (p *plan) isContributor(k int) bool { return slices.Contains(p.contributors, k) }

// position returns the index of party k in the chain, or −1.
func (p *plan) position(k int) int {
	for i, c := range p.chain {
		if c.party == k {
			return i
		}
	}
	return -1
}
