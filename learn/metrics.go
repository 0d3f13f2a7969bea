package learn

import "fmt"

// Accuracy is the fraction of positions where pred equals truth. It panics
// if the lengths differ and returns NaN for empty input.
func Accuracy(pred, truth []int) float64 {
	mustSameLength(pred, truth)
	correct := 0
	for i, p := range pred {
		if p == truth[i] {
			correct++
		}
	}
	return float64(correct) / float64(len(pred))
}

// MajorityShare is the share of the most common class in y: the accuracy
// of always predicting it, the bar a useful classifier clears (0 for no
// labels).
func MajorityShare(y []int) float64 {
	if len(y) == 0 {
		return 0
	}
	counts := map[int]int{}
	best := 0
	for _, v := range y {
		counts[v]++
		best = max(best, counts[v])
	}
	return float64(best) / float64(len(y))
}

// MisclassificationRate is 1 − Accuracy.
func MisclassificationRate(pred, truth []int) float64 { return 1 - Accuracy(pred, truth) }

// ConfusionMatrix counts m[t][p]: examples of true class t predicted as p.
// It panics if the lengths differ or a label is outside 0..classes−1.
func ConfusionMatrix(pred, truth []int, classes int) [][]int {
	mustSameLength(pred, truth)
	m := make([][]int, classes)
	for t := range m {
		m[t] = make([]int, classes)
	}
	for i, p := range pred {
		t := truth[i]
		if p < 0 || p >= classes || t < 0 || t >= classes {
			panic(fmt.Sprintf("learn: ConfusionMatrix label (true %d, predicted %d) outside 0..%d", t, p, classes-1))
		}
		m[t][p]++
	}
	return m
}

func mustSameLength(pred, truth []int) {
	if len(pred) != len(truth) {
		panic(fmt.Sprintf("learn: %d predictions for %d labels", len(pred), len(truth)))
	}
}
