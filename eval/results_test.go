package eval

import (
	"math"
	"testing"
)

// The accumulator keeps its points in first-seen order and summarises
// each one's repetitions: mean and sample standard deviation.
func TestAccumulator(t *testing.T) {
	a := NewAccumulator()
	b, c := Row{Method: "b", Metric: "m"}, Row{Method: "a", Metric: "m"}
	a.Add(b, 1)
	a.Add(c, 5)
	a.Add(b, 3)
	rows := a.Rows()
	if len(rows) != 2 || rows[0].Method != "b" || rows[1].Method != "a" {
		t.Fatalf("rows %+v, want b then a", rows)
	}
	if r := rows[0]; r.Reps != 2 || r.Mean != 2 || math.Abs(r.Std-math.Sqrt2) > 1e-12 {
		t.Errorf("b: %+v, want 2 reps, mean 2, sd √2", r)
	}
	if r := rows[1]; r.Reps != 1 || r.Mean != 5 || r.Std != 0 {
		t.Errorf("a: %+v, want 1 rep, mean 5, sd 0", r)
	}
}
