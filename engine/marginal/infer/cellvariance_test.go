package infer

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/dppub/dppub/engine/marginal/domain"
)

// oneWay is a measurement of attribute 0 of a domain of sizes {len(counts)}.
func oneWay(t *testing.T, counts []float64, variance float64, cells []float64) *Noisy {
	t.Helper()
	mg, err := domain.NewMarginal([]int{len(counts)}, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	copy(mg.Counts, counts)
	return &Noisy{Marginal: mg, Variance: variance, CellVariance: cells}
}

// Merge weighs each cell by its own variance: a cell that one
// measurement knows poorly takes its value from the other.
func TestMergeWeighsEachCell(t *testing.T) {
	a := oneWay(t, []float64{10, 20}, 1, []float64{1, 100})
	b := oneWay(t, []float64{14, 30}, 4, nil)
	got, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	for c, want := range []struct{ count, variance float64 }{
		{(10/1.0 + 14/4.0) / (1/1.0 + 1/4.0), 1 / (1/1.0 + 1/4.0)},
		{(20/100.0 + 30/4.0) / (1/100.0 + 1/4.0), 1 / (1/100.0 + 1/4.0)},
	} {
		if math.Abs(got.Counts[c]-want.count) > 1e-12 || math.Abs(got.CellVariance[c]-want.variance) > 1e-12 {
			t.Errorf("cell %d: %v ± %v, want %v ± %v", c, got.Counts[c], got.CellVariance[c], want.count, want.variance)
		}
	}
	if math.Abs(got.Variance-0.8) > 1e-12 {
		t.Errorf("variance %v, want the scalar variances' combination 0.8", got.Variance)
	}
}

// A measurement that disagrees with the total is fitted cell by cell:
// with equal variances the model splits the excess (60 / 40 from 70 /
// 50 with 100 records), with the second cell 10 000 times less certain
// it keeps the first cell's count and puts the rest in the second.
func TestEstimateWeighsEachCell(t *testing.T) {
	for _, c := range []struct {
		name  string
		cells []float64
		want  float64 // the first cell's fitted count
	}{
		{"equal variances", nil, 60},
		{"the second cell uncertain", []float64{1, 1e4}, 70},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := Estimate(context.Background(), []int{2}, []*Noisy{oneWay(t, []float64{70, 50}, 1, c.cells)}, EstimateOptions{Total: 100, Iters: 2000})
			if err != nil {
				t.Fatal(err)
			}
			mg, err := m.Marginal([]int{0})
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(mg.Counts[0]-c.want) > 0.05 {
				t.Fatalf("first cell %.3f, want %v", mg.Counts[0], c.want)
			}
		})
	}
}

// A cell variance below the measurement's, or one per cell missing, is
// refused.
func TestCellVarianceChecked(t *testing.T) {
	for _, c := range []struct {
		name  string
		cells []float64
		err   string
	}{
		{"below the variance", []float64{1, 0.5}, "below the measurement's"},
		{"too few", []float64{1}, "1 cell variances for 2 cells"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Estimate(context.Background(), []int{2}, []*Noisy{oneWay(t, []float64{70, 30}, 1, c.cells)}, EstimateOptions{Total: 100})
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("error %v, want one with %q", err, c.err)
			}
		})
	}
}
