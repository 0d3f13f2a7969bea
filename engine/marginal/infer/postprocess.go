package infer

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/internal/attrset"
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
// CellVariance, when set, gives each cell its own variance (one entry per
// count) and Variance is then the smallest of them: a one-way marginal
// released on a finer grid and summed into bins carries k times a grid
// cell's variance in a bin of k grid cells (McKenna, Miklau & Sheldon's
// MST re-expresses its compressed one-way measurements the same way).
// Estimate and Merge weigh every cell by its own variance; error bars
// and noise warnings read WorstVariance, Consistent (the paper engine's,
// whose measurements have no CellVariance) Variance alone.
type Noisy struct {
	*domain.Marginal
	Variance     float64
	CellVariance []float64
}

// WorstVariance is the largest variance of any cell's noise: Variance,
// or the largest CellVariance. Statements about the measurement's noise
// (error bars, warnings) read it, so that a bin summed from several
// released cells is not reported as precise as one.
func (n *Noisy) WorstVariance() float64 {
	if n.CellVariance == nil {
		return n.Variance
	}
	return slices.Max(n.CellVariance)
}

// cellVariance is the variance of cell c's noise.
func (n *Noisy) cellVariance(c int) float64 {
	if n.CellVariance != nil {
		return n.CellVariance[c]
	}
	return n.Variance
}

// check refuses a variance that is not positive and finite, or a
// CellVariance of the wrong length, or with a cell below Variance.
func (n *Noisy) check(what string) error {
	if !(n.Variance > 0) || math.IsInf(n.Variance, 0) {
		return fmt.Errorf("infer: %s: variance %v of %v must be positive", what, n.Variance, n.Attrs)
	}
	if n.CellVariance == nil {
		return nil
	}
	if len(n.CellVariance) != len(n.Counts) {
		return fmt.Errorf("infer: %s: %d cell variances for %d cells of %v", what, len(n.CellVariance), len(n.Counts), n.Attrs)
	}
	for c, v := range n.CellVariance {
		if !(v >= n.Variance) || math.IsInf(v, 0) {
			return fmt.Errorf("infer: %s: cell %d of %v has variance %v, below the measurement's %v", what, c, n.Attrs, v, n.Variance)
		}
	}
	return nil
}

// Merge combines measurements of the same attribute set by inverse-variance
// weighting, cell by cell (the minimum-variance unbiased combination).
func Merge(ms ...*Noisy) (*Noisy, error) {
	if len(ms) == 0 {
		return nil, fmt.Errorf("infer: merge: nothing to merge")
	}
	out := &Noisy{Marginal: ms[0].Marginal.Clone()}
	clear(out.Counts)
	wsum := make([]float64, len(out.Counts))
	scalar := 0.0
	cells := false
	for _, m := range ms {
		if !slices.Equal(m.Attrs, ms[0].Attrs) {
			return nil, fmt.Errorf("infer: merge: attribute sets %v and %v differ", m.Attrs, ms[0].Attrs)
		}
		if err := m.check("merge"); err != nil {
			return nil, err
		}
		cells = cells || m.CellVariance != nil
		scalar += 1 / m.Variance
		for c, v := range m.Counts {
			w := 1 / m.cellVariance(c)
			wsum[c] += w
			out.Counts[c] += w * v
		}
	}
	for c := range out.Counts {
		out.Counts[c] /= wsum[c]
	}
	out.Variance = 1 / scalar
	if cells {
		out.CellVariance = make([]float64, len(wsum))
		for c, w := range wsum {
			out.CellVariance[c] = max(1/w, out.Variance)
		}
	}
	return out, nil
}

// ConsistencyOptions configure Consistent.
type ConsistencyOptions struct {
	// Total is the public record count every marginal must sum to.
	Total float64
	// Rounds alternates consistency and non-negativity this many times
	// (default 3).
	Rounds int
	// RakeRounds is the number of raking passes that end the
	// post-processing (default 10; negative for none).
	RakeRounds int
}

// Consistent post-processes noisy marginals in place, after PrivSyn. For
// every attribute set shared by two or more marginals (the closure of
// their pairwise intersections, smallest first so that later steps keep
// earlier agreement), it estimates the set's marginal once: the
// inverse-variance weighted mean of the marginals' projections on it (as
// corrected by the smaller sets before it). Then, Rounds times, it
// replaces each marginal's projection by that estimate, spreading the
// correction evenly over the cells that project together, and NormSubs
// each marginal to Total. Last, raking (iterative proportional fitting,
// RakeRounds passes) scales each marginal's cells so that its projection
// on every shared set matches the estimate made non-negative: the
// results are non-negative, sum to Total and agree on their shared sets
// (up to cells a table holds no mass for), which GUM needs to reproduce
// them all. The marginals must have distinct attribute sets (Merge
// duplicates first).
//
// PrivSyn recomputes the estimates every round from the NormSub'ed
// tables. Their projections are biased: NormSub subtracts θ from every
// cell of a large sparse table and clips what goes negative, which takes
// mass from rows spread thin over many small cells and gives it to rows
// of a few large ones; averaged in round after round, the shared
// estimates drift with them (marital-status's one-way error doubled on
// Adult at ε = 0.3), so here they are made once, from the noisy
// measurements.
func Consistent(ms []*Noisy, o ConsistencyOptions) error {
	if o.Rounds == 0 {
		o.Rounds = 3
	}
	if o.RakeRounds == 0 {
		o.RakeRounds = 10
	}
	if o.Rounds < 0 || !(o.Total >= 0) || math.IsInf(o.Total, 0) {
		return fmt.Errorf("infer: consistency: bad options %+v", o)
	}
	seen := map[string]bool{}
	for _, m := range ms {
		if seen[m.Key()] {
			return fmt.Errorf("infer: consistency: attribute set %v measured twice (merge first)", m.Attrs)
		}
		seen[m.Key()] = true
		if !(m.Variance > 0) {
			return fmt.Errorf("infer: consistency: variance %v of %v must be positive", m.Variance, m.Attrs)
		}
	}
	groups, err := consistencyGroups(ms)
	if err != nil {
		return err
	}
	estimates := make([][]float64, len(groups))
	for round := range o.Rounds {
		for i, g := range groups {
			if round == 0 {
				estimates[i] = g.estimate(ms)
			}
			g.enforce(ms, estimates[i])
		}
		for _, m := range ms {
			NormSub(m.Counts, o.Total)
		}
	}
	for i := range estimates {
		NormSub(estimates[i], o.Total)
	}
	for range max(o.RakeRounds, 0) {
		for i, g := range groups {
			g.rake(ms, estimates[i])
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
			if !attrset.Subset(s, m.Attrs) {
				continue
			}
			p, cells, err := domain.Projector(m.Marginal, s)
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
		if _, ok := found[attrset.Key(s)]; !ok {
			found[attrset.Key(s)] = s
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

// project sums member k's cells onto the set.
func (g group) project(m *Noisy, k int) []float64 {
	p := make([]float64, g.cells)
	for c, t := range g.proj[k] {
		p[t] += m.Counts[c]
	}
	return p
}

// estimate is the inverse-variance weighted mean of the members'
// projections.
func (g group) estimate(ms []*Noisy) []float64 {
	est := make([]float64, g.cells)
	wsum := 0.0
	for k, i := range g.members {
		m := ms[i]
		// A projected cell sums cells(m)/cells(set) noisy cells.
		w := 1 / (m.Variance * float64(m.Cells()) / float64(g.cells))
		wsum += w
		for t, v := range g.project(m, k) {
			est[t] += w * v
		}
	}
	for t := range est {
		est[t] /= wsum
	}
	return est
}

// enforce gives every member the projection est, adding each projected
// cell's correction evenly to the cells that project onto it.
func (g group) enforce(ms []*Noisy, est []float64) {
	for k, i := range g.members {
		m := ms[i]
		p := g.project(m, k)
		spread := float64(m.Cells()) / float64(g.cells)
		for c, t := range g.proj[k] {
			m.Counts[c] += (est[t] - p[t]) / spread
		}
	}
}

// rake scales every member's cells so that its projection is est where
// the member holds mass (a non-negative table stays non-negative).
func (g group) rake(ms []*Noisy, est []float64) {
	for k, i := range g.members {
		m := ms[i]
		p := g.project(m, k)
		for c, t := range g.proj[k] {
			if p[t] > 0 {
				m.Counts[c] *= est[t] / p[t]
			}
		}
	}
}
