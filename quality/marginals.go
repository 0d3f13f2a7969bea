package quality

import (
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/utility"
)

// Marginal summarises the total variation distances of every k-way
// marginal evaluated (numeric attributes in equal-width bins).
type Marginal struct {
	Order int `json:"order"`
	// Sets is the number of attribute sets of this order; Evaluated how
	// many were compared (all, or MaxSets taken evenly).
	Sets      int     `json:"sets"`
	Evaluated int     `json:"evaluated"`
	Mean      float64 `json:"mean_tvd"`
	Max       float64 `json:"max_tvd"`
	// Worst names the attributes of the set with the largest distance.
	Worst []string `json:"worst"`
}

func compareMarginals(real, synth *data.Table, bins, maxSets int) []Marginal {
	d := len(real.Schema.Attributes)
	var out []Marginal
	for k := 1; k <= min(3, d); k++ {
		total := binomial(d, k)
		step := max(1, (total+maxSets-1)/maxSets)
		m := Marginal{Order: k, Sets: total}
		idx := 0
		combinations(d, k, func(set []int) {
			defer func() { idx++ }()
			if idx%step != 0 {
				return
			}
			dist := marginalTVD(real, synth, set, bins)
			m.Evaluated++
			m.Mean += dist
			if dist >= m.Max {
				m.Max, m.Worst = dist, names(real.Schema, set)
			}
		})
		m.Mean /= float64(m.Evaluated)
		out = append(out, m)
	}
	return out
}

func names(s data.Schema, set []int) []string {
	out := make([]string, len(set))
	for i, j := range set {
		out[i] = s.Attributes[j].Name
	}
	return out
}

func binomial(n, k int) int {
	r := 1
	for i := 1; i <= k; i++ {
		r = r * (n - k + i) / i
	}
	return r
}

// combinations calls f with every k-subset of 0..n−1 in lexicographic
// order (f must not keep the slice).
func combinations(n, k int, f func([]int)) {
	set := make([]int, k)
	var rec func(pos, start int)
	rec = func(pos, start int) {
		if pos == k {
			f(set)
			return
		}
		for j := start; j <= n-(k-pos); j++ {
			set[pos] = j
			rec(pos+1, j+1)
		}
	}
	rec(0, 0)
}

// marginalTVD is the total variation distance between the two tables'
// joint distributions of the attributes in set: utility's, which the
// publishing commands' summaries print, so that both say the same.
func marginalTVD(real, synth *data.Table, set []int, bins int) float64 {
	return utility.SetTVD(real, synth, set, bins)
}
