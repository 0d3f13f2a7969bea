package audit

import (
	"math"
	"slices"
	"sort"
)

// bestEvent searches the threshold events {S ≥ t} and {S ≤ t} for the one
// with the largest ε lower bound when num is the numerator, on the search
// batch only. Candidate thresholds are order statistics of the numerator's
// sample at hit counts spaced geometrically from 1 to n, so the rare tail
// events that reveal large ε are searched as finely as the bulk.
func bestEvent(b *samples, num Side, delta, alpha float64, grid int) Event {
	a := slices.Clone(b.stats[num])
	c := slices.Clone(b.stats[num.other()])
	slices.Sort(a)
	slices.Sort(c)
	best, bestEps := Event{Numerator: num, Above: true, Threshold: a[0]}, math.Inf(-1)
	for _, k := range geometricCounts(len(a), grid) {
		for _, above := range []bool{true, false} {
			ev := Event{Numerator: num, Above: above}
			if above {
				ev.Threshold = a[len(a)-k]
			} else {
				ev.Threshold = a[k-1]
			}
			eps := score(a, c, ev, delta, alpha)
			if eps > bestEps {
				best, bestEps = ev, eps
			}
		}
	}
	return best
}

// score is the lower bound the event would give on the search batch, with
// ties to the threshold counted as hits.
func score(a, c []float64, ev Event, delta, alpha float64) float64 {
	kNum, kDen := countSorted(a, ev), countSorted(c, ev)
	lo := ClopperPearsonLower(kNum, len(a), alpha) - delta
	if lo <= 0 {
		return math.Inf(-1)
	}
	return math.Log(lo / ClopperPearsonUpper(kDen, len(c), alpha))
}

func countSorted(s []float64, ev Event) int {
	if ev.Above {
		return len(s) - sort.SearchFloat64s(s, ev.Threshold)
	}
	return sort.Search(len(s), func(i int) bool { return s[i] > ev.Threshold })
}

// geometricCounts returns up to grid distinct hit counts in [1, n], spaced
// geometrically.
func geometricCounts(n, grid int) []int {
	var ks []int
	for i := range grid {
		f := 0.0
		if grid > 1 {
			f = float64(i) / float64(grid-1)
		}
		k := int(math.Round(math.Exp(f * math.Log(float64(n)))))
		k = min(max(k, 1), n)
		if len(ks) == 0 || ks[len(ks)-1] != k {
			ks = append(ks, k)
		}
	}
	return ks
}
