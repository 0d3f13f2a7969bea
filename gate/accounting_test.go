package gate

import (
	"math"
	"testing"
)

// Clopper–Pearson's upper bound: 1 − (1 − conf)^(1/n) with no refusal,
// the Beta quantile otherwise; RefusalBound takes the largest, times the
// owners, and 1 away from the measured settings.
func TestRefusalBound(t *testing.T) {
	for _, tc := range []struct {
		m    Measurement
		want float64
	}{
		{Measurement{"x", 12, 0}, 1 - math.Pow(0.05, 1.0/12)},
		{Measurement{"x", 125, 0}, 1 - math.Pow(0.05, 1.0/125)},
		// 1 of 30: the 95% one-sided bound is 0.1486 (Beta(2, 29) quantile: P[Bin(30, 0.1486) ≤ 1] = 0.050).
		{Measurement{"x", 30, 1}, 0.14860},
		{Measurement{"x", 5, 5}, 1},
	} {
		if got := tc.m.Upper(0.95); math.Abs(got-tc.want) > 1e-4 {
			t.Errorf("%d of %d: upper %v, want %v", tc.m.Refusals, tc.m.Runs, got, tc.want)
		}
	}
	worst := 0.0
	for _, m := range Measured {
		worst = math.Max(worst, m.Upper(RefusalConfidence))
	}
	for _, tc := range []struct {
		defaults bool
		owners   int
		want     float64
	}{
		{true, 1, worst}, {true, 3, math.Min(1, 3*worst)}, {false, 1, 1},
	} {
		if got, src := RefusalBound(tc.defaults, tc.owners); got != tc.want || src == "" {
			t.Errorf("defaults %v, %d owners: %v (%q), want %v", tc.defaults, tc.owners, got, src, tc.want)
		}
	}
	if !DefaultSettings(0.1, 1000, 0.2, false) || DefaultSettings(0.05, 1000, 0.2, false) || DefaultSettings(0.1, 500, 0.2, false) || !DefaultSettings(0.2, 1000, 0.5, true) {
		t.Error("DefaultSettings misjudges the measured settings")
	}
}
