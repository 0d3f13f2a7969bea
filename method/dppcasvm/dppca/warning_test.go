package dppca

import (
	"strings"
	"testing"
)

// The noise on A drowns it when its largest eigenvalue, about 2s√d for a
// per-entry standard deviation s, exceeds the 1 the data can carry. On
// WDBC's shape (569 rows, d = 30), the sound DPPCA-SVM at ε = 1 spends
// 0.5 on the components: s = √2·31/(569·0.5) ≈ 0.154, so 2s√30 ≈ 1.69,
// and the warning names ag-svm; at ε = 4 it is about 0.42. The Gaussian
// methods get no advice to use themselves.
func TestNoiseWarning(t *testing.T) {
	const n, d = 569, 30
	delta := 1.0 / (n * n)
	for _, c := range []struct {
		name      string
		m         Method
		eps       float64 // the components' share of the budget
		warn      bool
		mentionAG bool
	}{
		{"dppca-svm at eps 1", DPPCASVM, 0.5, true, true},
		{"dppca-svm at eps 4", DPPCASVM, 2, false, false},
		{"ag-svm at eps 0.1", AGSVM, 0.05, true, false},
		{"ag-svm at eps 4", AGSVM, 2, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := PlanMatrixNoise(PlanOptions{Method: c.m, Calibration: Sound, N: n, D: d, Epsilon: c.eps, Delta: delta})
			if err != nil {
				t.Fatal(err)
			}
			w := NoiseWarning(&Result{MatrixNoise: p}, d)
			if got := w != ""; got != c.warn {
				t.Fatalf("scale %.3g (%s): warns %v, want %v: %q", p.Scale, p.Mechanism, got, c.warn, w)
			}
			if c.warn && (!strings.Contains(w, "mostly noise") || !strings.Contains(w, "would do better")) {
				t.Errorf("the warning does not say what is noise and what would do better: %q", w)
			}
			if got := strings.Contains(w, "ag-svm"); got != c.mentionAG {
				t.Errorf("mentions ag-svm %v, want %v: %q", got, c.mentionAG, w)
			}
		})
	}
	plan := &NoisePlan{Mechanism: "laplace", Scale: 1}
	for _, c := range []struct {
		name string
		fit  *Result
		d    int
	}{
		{"no fit", nil, 30},
		{"pca-dpsvm: no noise on A", &Result{}, 30},
		{"no columns", &Result{MatrixNoise: plan}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if w := NoiseWarning(c.fit, c.d); w != "" {
				t.Errorf("warned: %q", w)
			}
		})
	}
}
