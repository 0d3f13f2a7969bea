package bayesnet

import (
	"fmt"
	"math"
	"slices"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// MaximalFamilies returns the attribute sets whose marginals determine
// every conditional of net: one per family, minus those contained in
// another family's set (read from that one instead). For a degree-k
// network this drops the first k families, all inside family k+1.
func MaximalFamilies(net Network) [][]int {
	var out [][]int
	for i, f := range net {
		attrs := f.Attrs()
		covered := false
		for j, g := range net {
			if j == i {
				continue
			}
			other := g.Attrs()
			// Keep the later of two equal sets so each set is released once.
			if contains(other, attrs) && (len(other) > len(attrs) || j > i) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, attrs)
		}
	}
	return out
}

// NoisyMarginals releases the count marginals of d over sets with the
// Laplace mechanism: replacing one record moves each count table by at
// most 2 in L1, so the m tables together move by at most 2m, and Laplace
// noise of scale 2m/ε on every cell makes the release ε-DP (Dwork et al.
// 2006). It charges sp once, before any noise is drawn.
func NoisyMarginals(d *Data, sets [][]int, eps float64, sp Spender, src *randx.Source) ([]Marginal, error) {
	if len(sets) == 0 {
		return nil, fmt.Errorf("privbayes: no marginals to release")
	}
	lap, err := dp.NewLaplace(dp.LaplaceOptions{L1Sensitivity: 2 * float64(len(sets)), Epsilon: eps})
	if err != nil {
		return nil, fmt.Errorf("privbayes: %w", err)
	}
	if err := sp.Spend(privacy.Charge{
		Purpose: fmt.Sprintf("network parameters: %d noisy count marginals (the maximal families), ε2/%d each", len(sets), len(sets)),
		Spec:    lap.Spec(),
	}); err != nil {
		return nil, err
	}
	noiser := dp.NewNoiser(src)
	out := make([]Marginal, len(sets))
	for i, s := range sets {
		out[i] = d.Marginal(s)
		lap.Release(noiser, out[i].Counts)
	}
	return out, nil
}

// AddCounts adds b's counts to a's cell by cell (same attributes in the
// same order).
func AddCounts(a, b Marginal) (Marginal, error) {
	if fmt.Sprint(a.Attrs) != fmt.Sprint(b.Attrs) || len(a.Counts) != len(b.Counts) {
		return Marginal{}, fmt.Errorf("privbayes: cannot add marginals over %v and %v", a.Attrs, b.Attrs)
	}
	out := Marginal{Attrs: a.Attrs, Cards: a.Cards, Counts: make([]float64, len(a.Counts))}
	for i := range a.Counts {
		out.Counts[i] = a.Counts[i] + b.Counts[i]
	}
	return out, nil
}

// Fit reads every conditional Pr[X | Π] of net off the first of the
// (noisy) marginals that contains X ∪ Π: project, and per parent
// configuration take the distribution closest to its noisy counts under
// their noisy total (normSub). A configuration whose noisy total is not
// positive gets the child's own clipped marginal from the same table
// (uniform if that is zero too). This is post-processing.
func Fit(cards []int, net Network, marginals []Marginal) (*Model, error) {
	if err := net.Validate(len(cards)); err != nil {
		return nil, err
	}
	m := &Model{Cards: append([]int(nil), cards...), Net: net, Cond: make([][]float64, len(net))}
	for i, f := range net {
		src := -1
		for j, mg := range marginals {
			if contains(mg.Attrs, f.Attrs()) {
				src = j
				break
			}
		}
		if src < 0 {
			return nil, fmt.Errorf("privbayes: no marginal covers family %v", f.Attrs())
		}
		// Parents first, child last: cell = π·|dom X| + x.
		table := marginals[src].Project(append(append([]int(nil), f.Parents...), f.Child))
		child := marginals[src].Project([]int{f.Child})
		m.Cond[i] = conditional(table.Counts, clipNormalise(child.Counts), cards[f.Child])
	}
	return m, nil
}

func conditional(counts, fallback []float64, card int) []float64 {
	out := make([]float64, len(counts))
	for p := 0; p < len(counts); p += card {
		row := normSub(counts[p : p+card])
		if row == nil {
			row = fallback
		}
		if row == nil {
			row = uniform(card)
		}
		copy(out[p:p+card], row)
	}
	return out
}

// clipNormalise returns max(v, 0)/Σ, or nil if the sum is zero.
func clipNormalise(v []float64) []float64 {
	out := make([]float64, len(v))
	sum := 0.0
	for i, x := range v {
		if x > 0 && !math.IsInf(x, 0) {
			out[i] = x
			sum += x
		}
	}
	if sum == 0 {
		return nil
	}
	for i := range out {
		out[i] /= sum
	}
	return out
}

// normSub returns max(v − s, 0)/T for the noisy counts v and their noisy
// total T = Σv, with the shift s ≥ 0 chosen so that the entries sum to 1
// (PrivSyn's Norm-Sub; the Euclidean projection of v onto the counts of
// total T), or nil when T ≤ 0. Clipping alone (clipNormalise) keeps every
// positive noise draw, so in a parent configuration with few rows the
// noise of its empty cells outweighs its real ones and the conditional
// drifts towards uniform; subtracting s first removes that mass.
// Post-processing of noisy counts.
func normSub(v []float64) []float64 {
	total := 0.0
	for _, x := range v {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return clipNormalise(v)
		}
		total += x
	}
	if !(total > 0) {
		return nil
	}
	sorted := slices.Clone(v)
	slices.Sort(sorted)
	slices.Reverse(sorted)
	// s = (S_k − T)/k for the largest k with sorted[k−1] > s, S_k the
	// sum of the k largest counts.
	shift, prefix := 0.0, 0.0
	for k, x := range sorted {
		prefix += x
		if s := (prefix - total) / float64(k+1); x > s {
			shift = s
		}
	}
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = math.Max(x-shift, 0) / total
	}
	return out
}

func uniform(card int) []float64 {
	out := make([]float64, card)
	for i := range out {
		out[i] = 1 / float64(card)
	}
	return out
}
