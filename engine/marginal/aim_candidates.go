// The adaptive method's candidates: the default workload, its downward
// closure with AIM's weights, and the query that scores the candidates
// the model cap allows against the current model.

package marginal

import (
	"slices"

	"github.com/dppub/dppub/engine/marginal/infer"
	"github.com/dppub/dppub/engine/marginal/internal/attrset"
	"github.com/dppub/dppub/engine/marginal/internal/parallel"
	"github.com/dppub/dppub/engine/marginal/measurement"
)

// DefaultWorkload is every pair of the attributes of a domain of sizes,
// every triple of binary attributes (maxTripleCells), and every triple
// holding label when label ≥ 0.
func DefaultWorkload(sizes []int, label int) [][]int {
	d := len(sizes)
	w := allPairs(d)
	for a := range d {
		for b := a + 1; b < d; b++ {
			for c := b + 1; c < d; c++ {
				if a != label && b != label && c != label && sizes[a]*sizes[b]*sizes[c] <= maxTripleCells {
					w = append(w, []int{a, b, c})
				}
			}
		}
	}
	if label < 0 {
		return w
	}
	for a := range d {
		for b := a + 1; b < d; b++ {
			if a != label && b != label {
				t := []int{a, b, label}
				slices.Sort(t)
				w = append(w, t)
			}
		}
	}
	return w
}

// labelCandidates caps, apart from AdaptiveOptions.MaxCandidates, the
// candidates holding a named label that a capped round offers: every one
// of them on a table of up to 77 attributes (the label's one-way
// marginal, d − 1 pairs and (d − 1)(d − 2)/2 triples). A classifier of
// the label needs its joints with two attributes at once (`wide`'s label
// is a parity of two roots, which no pair with the label carries), and
// on a wide table the label's triples are half the candidates (2 556 of
// `wide`'s 5 292), so a random 500 of all held the triple that matters
// in few of the rounds after the tree. Ten seeds, `wide` with --label,
// GBT accuracy and 2-way TVD, the label's candidates within the 500 →
// offered apart (docs/results/synthesis/label.md, "The label's
// candidates offered apart"): at ε = 1 0.742 / 0.0726 → 0.782 / 0.0721
// (MST, which has no label, 0.768 / 0.0914 at the same guarantee), at
// ε = 4 0.777 / 0.0515 → 0.815 / 0.0510, at ε = 0.3 under add/remove
// 0.656 / 0.1189 → 0.675 / 0.1193. The cap keeps the cost bounded where
// the label's triples run to thousands (Musk2, 167 attributes: 13 861
// candidates, 31–43 CPU-s a run offered whole, 6–12 under the cap,
// against 3–4 before).
const labelCandidates = 3000

// maxTripleCells is the largest triple the default workload holds
// without a label: three binary attributes. A triple of 8 cells costs a
// measurement no noisier per cell than a pair of categorical attributes,
// and on binary data (NLTCS, 16 attributes, three seeds, model marginals
// against the real ones) adding every such triple lowered 2-way TVD by
// 14 / 15 / 27 % and 3-way by 16 / 26 / 54 % at ε = 0.3 / 1 / 4. Larger
// triples did not pay on Adult (every triple of at most 64 cells: 2-way
// 0.0219 → 0.0228 at ε = 1) and multiply the candidates whose model
// marginal each round computes across cliques.
const maxTripleCells = 8

// allPairs is every pair of d attributes.
func allPairs(d int) [][]int {
	var w [][]int
	for a := range d {
		for b := a + 1; b < d; b++ {
			w = append(w, []int{a, b})
		}
	}
	return w
}

// candidates returns the downward closure of the workload (every
// non-empty subset of a workload set), each with AIM's weight
// Σ_W |S ∩ W|: how much of the workload its marginal informs.
func candidates(workload [][]int) ([][]int, []float64) {
	seen := map[string]bool{}
	var out [][]int
	for _, w := range workload {
		for mask := 1; mask < 1<<len(w); mask++ {
			var s []int
			for k, a := range w {
				if mask&(1<<k) != 0 {
					s = append(s, a)
				}
			}
			if !seen[attrset.Key(s)] {
				seen[attrset.Key(s)] = true
				out = append(out, s)
			}
		}
	}
	// Σ_W |S ∩ W| = Σ_{a ∈ S} #{W ∋ a}: one count per attribute instead
	// of an intersection per candidate and workload set (on a table of
	// 167 attributes, 14 000 of each).
	holding := map[int]float64{}
	for _, w := range workload {
		for _, a := range w {
			holding[a]++
		}
	}
	weights := make([]float64, len(out))
	for i, s := range out {
		for _, a := range s {
			weights[i] += holding[a]
		}
	}
	return out, weights
}

// query offers every candidate the model-size cap allows (or that the
// model already holds), with the model's estimates and their penalties
// (AdaptiveOptions.Penalty) at noise sigma. With
// AdaptiveOptions.MaxCandidates it offers at most that many of the
// candidates without the label, and at most labelCandidates of those
// holding it: the first that fit in an order drawn afresh each time from
// the run's randomness, which is independent of the records, so the
// offer is public and the selection over it is charged as any other.
func (a *adaptive) query(limit, sigma float64) (measurement.SelectQuery, []float64) {
	sizes := a.o.Domain.Sizes()
	order := a.candidateOrder()
	now := a.model.Cells()
	var q measurement.SelectQuery
	var offered []int
	var growth []float64
	// Offers so far and their caps: without the label, with it. Once
	// every cap that can fill is full, no later candidate is offered.
	var offers [2]int
	caps := [2]int{a.ao.MaxCandidates, labelCandidates}
	full := func() bool { return offers[0] == caps[0] && (a.label < 0 || offers[1] == caps[1]) }
	for _, i := range order {
		if a.ao.MaxCandidates > 0 && full() {
			break
		}
		s := a.cands[i]
		kind := 0
		if a.label >= 0 && slices.Contains(s, a.label) {
			kind = 1
		}
		if a.ao.MaxCandidates > 0 && offers[kind] == caps[kind] {
			continue
		}
		grows := 0.0
		if !a.model.Holds(s) {
			with := infer.ModelCells(sizes, append(slices.Clip(a.model.Sets()), s))
			if with > limit {
				continue
			}
			grows = with - now
		}
		offered = append(offered, i)
		growth = append(growth, grows)
		q.Candidates = append(q.Candidates, s)
		q.Weights = append(q.Weights, a.weights[i])
		offers[kind]++
	}
	q.Estimates = make([][]float64, len(offered))
	q.Penalties = make([]float64, len(offered))
	parallel.For(len(offered), func(k int) {
		est, err := a.model.Marginal(q.Candidates[k])
		if err != nil {
			panic(err) // candidates are valid attribute sets of the domain
		}
		q.Estimates[k] = est.Counts
		q.Penalties[k] = a.ao.Penalty.of(est.Counts, sigma)
	}, func(int) int { return 1 << 10 })
	return q, growth
}

// candidateOrder is the order query tries the candidates in: their own
// without a cap on their number (or with fewer candidates than the cap),
// a random permutation otherwise, from a stream of the run's randomness
// made the first time one is needed.
func (a *adaptive) candidateOrder() []int {
	order := make([]int, len(a.cands))
	for i := range order {
		order[i] = i
	}
	if a.ao.MaxCandidates <= 0 || len(a.cands) <= a.ao.MaxCandidates {
		return order
	}
	if a.shuffle == nil {
		a.shuffle = a.o.Source.Child()
	}
	a.shuffle.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	return order
}
