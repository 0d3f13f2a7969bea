package bayesnet

import (
	"fmt"
	"math"
)

// UsefulDomain is τ = n·ε2/(2dθ): a marginal with at most τ cells is
// θ-useful when each of d marginals gets ε2/d and Laplace noise of scale
// 2d/(n·ε2) on its probabilities (replace-one sensitivity 2/n), i.e. the
// average cell mass 1/|dom| is at least θ times the noise scale (PrivBayes'
// θ-usefulness, general-domain version).
func UsefulDomain(n, eps2 float64, d int, theta float64) float64 {
	return n * eps2 / (2 * float64(d) * theta)
}

// subsetsOfSize returns every subset of set with exactly k elements, in
// lexicographic order of positions.
func subsetsOfSize(set []int, k int) [][]int {
	if k > len(set) {
		k = len(set)
	}
	var out [][]int
	cur := make([]int, 0, k)
	var rec func(start int)
	rec = func(start int) {
		if len(cur) == k {
			out = append(out, append([]int(nil), cur...))
			return
		}
		for i := start; i <= len(set)-(k-len(cur)); i++ {
			cur = append(cur, set[i])
			rec(i + 1)
			cur = cur[:len(cur)-1]
		}
	}
	rec(0)
	return out
}

// maximalParentSets returns the maximal subsets Π of set with
// |dom Π| ≤ limit (PrivBayes' MaximalParentSets): every returned set
// fits, and adding any other attribute of set would not. It returns no
// sets when limit < 1.
func maximalParentSets(cards []int, set []int, limit float64) [][]int {
	if limit < 1 {
		return nil
	}
	if len(set) == 0 {
		return [][]int{{}}
	}
	x, rest := set[0], set[1:]
	var out [][]int
	// Sets containing x: maximal sets of the rest under limit/|dom x|.
	for _, z := range maximalParentSets(cards, rest, limit/float64(cards[x])) {
		out = append(out, append([]int{x}, z...))
	}
	// Sets without x are maximal only if x does not fit beside them.
	for _, z := range maximalParentSets(cards, rest, limit) {
		if float64(domainOf(cards, z))*float64(cards[x]) > limit {
			out = append(out, z)
		}
	}
	return out
}

func domainOf(cards []int, attrs []int) int {
	size := 1
	for _, a := range attrs {
		if size > math.MaxInt32/cards[a] {
			return math.MaxInt32
		}
		size *= cards[a]
	}
	return size
}

// candidateParents lists the parent sets GreedyBayes considers for child
// among the placed attributes: all subsets of size min(k, |placed|) when
// k > 0, else the maximal sets with |dom X|·|dom Π| ≤ min(τ, maxCells).
// A child that fits with no parent at all gets Π = ∅.
func candidateParents(cards []int, child int, placed []int, k int, tau float64, maxCells int) ([][]int, error) {
	if k > 0 {
		sets := subsetsOfSize(placed, k)
		for _, s := range sets {
			if DomainSize(cards, append([]int{child}, s...), maxCells) == 0 {
				return nil, fmt.Errorf("privbayes: family of attribute %d with parents %v has more than %d cells (lower k or raise MaxCells)", child, s, maxCells)
			}
		}
		return sets, nil
	}
	limit := math.Min(tau, float64(maxCells)) / float64(cards[child])
	sets := maximalParentSets(cards, placed, limit)
	if len(sets) == 0 {
		return [][]int{{}}, nil
	}
	return sets, nil
}
