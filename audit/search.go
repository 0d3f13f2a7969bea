package audit

import (
	"math"
	"slices"
	"sort"
)

// sortedSides returns the search batch's statistics sorted, the
// numerator's side first: every search of one direction shares them.
func sortedSides(b *samples, num Side) (a, c []float64) {
	a, c = slices.Clone(b.stats[num]), slices.Clone(b.stats[num.other()])
	slices.Sort(a)
	slices.Sort(c)
	return a, c
}

// bestEvent searches the threshold events {S ≥ t} and {S ≤ t} for the one
// with the largest ε lower bound when num is the numerator, on the search
// batch only (a, c: sortedSides). Candidate thresholds are order
// statistics of the numerator's sample at hit counts spaced geometrically
// from 1 to n, so the rare tail events that reveal large ε are searched
// as finely as the bulk.
func bestEvent(a, c []float64, num Side, delta, alpha float64, grid int) Event {
	return searchEvent(a, c, Event{Numerator: num, Above: true, Threshold: a[0]}, geometricCounts(len(a), grid),
		func(kNum, kDen int) float64 {
			lo := ClopperPearsonLower(kNum, len(a), alpha) - delta
			if lo <= 0 {
				return math.Inf(-1)
			}
			return math.Log(lo / ClopperPearsonUpper(kDen, len(c), alpha))
		})
}

// searchEvent returns, among the events above and below the numerator's
// order statistics at hit counts ks, the one whose counts on the sorted
// samples a (numerator) and c get the largest bound (ties to the
// threshold counted as hits); first, if none beats −∞.
func searchEvent(a, c []float64, first Event, ks []int, bound func(kNum, kDen int) float64) Event {
	best, bestBound := first, math.Inf(-1)
	for _, k := range ks {
		for _, above := range []bool{true, false} {
			ev := Event{Numerator: first.Numerator, Above: above, Threshold: a[k-1]}
			if above {
				ev.Threshold = a[len(a)-k]
			}
			if v := bound(countSorted(a, ev), countSorted(c, ev)); v > bestBound {
				best, bestBound = ev, v
			}
		}
	}
	return best
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
