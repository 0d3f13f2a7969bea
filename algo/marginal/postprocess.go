package marginal

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// NormSub projects counts in place onto {x ≥ 0, Σx = total} in Euclidean
// distance: x_c = max(v_c − θ, 0) with θ chosen so the sum is total
// (PrivSyn's "Norm-Sub"). total must be non-negative.
func NormSub(counts []float64, total float64) {
	if len(counts) == 0 {
		return
	}
	if total <= 0 {
		clear(counts)
		return
	}
	u := slices.Clone(counts)
	sort.Sort(sort.Reverse(sort.Float64Slice(u)))
	cum, theta := 0.0, 0.0
	for j, v := range u {
		cum += v
		t := (cum - total) / float64(j+1)
		if v-t > 0 {
			theta = t
		} else {
			break
		}
	}
	for c, v := range counts {
		counts[c] = math.Max(v-theta, 0)
	}
}

// Noisy is a measured marginal and the variance of its noise per cell.
type Noisy struct {
	*Marginal
	Variance float64
}

// Merge combines measurements of the same attribute set by inverse-variance
// weighting (the minimum-variance unbiased combination).
func Merge(ms ...*Noisy) (*Noisy, error) {
	if len(ms) == 0 {
		return nil, fmt.Errorf("marginal: merge: nothing to merge")
	}
	out := &Noisy{Marginal: ms[0].Marginal.Clone()}
	clear(out.Counts)
	wsum := 0.0
	for _, m := range ms {
		if !slices.Equal(m.Attrs, ms[0].Attrs) {
			return nil, fmt.Errorf("marginal: merge: attribute sets %v and %v differ", m.Attrs, ms[0].Attrs)
		}
		if !(m.Variance > 0) {
			return nil, fmt.Errorf("marginal: merge: variance %v of %v must be positive", m.Variance, m.Attrs)
		}
		w := 1 / m.Variance
		wsum += w
		for c, v := range m.Counts {
			out.Counts[c] += w * v
		}
	}
	for c := range out.Counts {
		out.Counts[c] /= wsum
	}
	out.Variance = 1 / wsum
	return out, nil
}

// ConsistencyOptions configure Consistent.
type ConsistencyOptions struct {
	// Total is the public record count every marginal must sum to.
	Total float64
	// Rounds alternates consistency and non-negativity this many times
	// (default 3).
	Rounds int
}

// Consistent post-processes noisy marginals in place as PrivSyn does: for
// every attribute set shared by two or more marginals (the closure of their
// pairwise intersections, smallest first so that later steps keep earlier
// agreement), replace each marginal's projection by the inverse-variance
// weighted mean of all the projections, spreading the correction evenly
// over the cells that project together; then NormSub each marginal to
// Total. Repeated Rounds times; the result is non-negative, sums to Total,
// and is consistent up to what the last NormSub undid. The marginals must
// have distinct attribute sets (Merge duplicates first).
func Consistent(ms []*Noisy, o ConsistencyOptions) error {
	if o.Rounds == 0 {
		o.Rounds = 3
	}
	if o.Rounds < 0 || !(o.Total >= 0) || math.IsInf(o.Total, 0) {
		return fmt.Errorf("marginal: consistency: bad options %+v", o)
	}
	seen := map[string]bool{}
	for _, m := range ms {
		if seen[m.Key()] {
			return fmt.Errorf("marginal: consistency: attribute set %v measured twice (merge first)", m.Attrs)
		}
		seen[m.Key()] = true
		if !(m.Variance > 0) {
			return fmt.Errorf("marginal: consistency: variance %v of %v must be positive", m.Variance, m.Attrs)
		}
	}
	groups, err := consistencyGroups(ms)
	if err != nil {
		return err
	}
	for range o.Rounds {
		for _, g := range groups {
			g.apply(ms)
		}
		for _, m := range ms {
			NormSub(m.Counts, o.Total)
		}
	}
	return nil
}

// group is one shared attribute set and, for each marginal containing it,
// the projection of its cells onto the set.
type group struct {
	cells   int
	members []int
	proj    [][]int32
}

func consistencyGroups(ms []*Noisy) ([]group, error) {
	sets := intersectionClosure(ms)
	var out []group
	for _, s := range sets {
		g := group{}
		for i, m := range ms {
			if !subset(s, m.Attrs) {
				continue
			}
			p, cells, err := projector(m.Marginal, s)
			if err != nil {
				return nil, err
			}
			g.cells = cells
			g.members = append(g.members, i)
			g.proj = append(g.proj, p)
		}
		if len(g.members) >= 2 {
			out = append(out, g)
		}
	}
	return out, nil
}

// intersectionClosure returns every non-empty intersection of two or more
// marginals' attribute sets, closed under intersection, smallest first.
func intersectionClosure(ms []*Noisy) [][]int {
	found := map[string][]int{}
	var frontier [][]int
	add := func(s []int) {
		if len(s) == 0 {
			return
		}
		if _, ok := found[setKey(s)]; !ok {
			found[setKey(s)] = s
			frontier = append(frontier, s)
		}
	}
	for i := range ms {
		for j := i + 1; j < len(ms); j++ {
			add(intersect(ms[i].Attrs, ms[j].Attrs))
		}
	}
	for len(frontier) > 0 {
		next := frontier
		frontier = nil
		for _, s := range next {
			for _, t := range found {
				add(intersect(s, t))
			}
		}
	}
	sets := make([][]int, 0, len(found))
	for _, s := range found {
		sets = append(sets, s)
	}
	slices.SortFunc(sets, func(a, b []int) int {
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return slices.Compare(a, b)
	})
	return sets
}

func intersect(a, b []int) []int {
	var out []int
	for _, v := range a {
		if _, ok := slices.BinarySearch(b, v); ok {
			out = append(out, v)
		}
	}
	return out
}

func (g group) apply(ms []*Noisy) {
	target := make([]float64, g.cells)
	wsum := 0.0
	projs := make([][]float64, len(g.members))
	for k, i := range g.members {
		m := ms[i]
		p := make([]float64, g.cells)
		for c, t := range g.proj[k] {
			p[t] += m.Counts[c]
		}
		projs[k] = p
		// A projected cell sums cells(m)/cells(set) noisy cells.
		w := 1 / (m.Variance * float64(m.Cells()) / float64(g.cells))
		wsum += w
		for t, v := range p {
			target[t] += w * v
		}
	}
	for t := range target {
		target[t] /= wsum
	}
	for k, i := range g.members {
		m := ms[i]
		spread := float64(m.Cells()) / float64(g.cells)
		for c, t := range g.proj[k] {
			m.Counts[c] += (target[t] - projs[k][t]) / spread
		}
	}
}
