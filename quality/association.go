package quality

import (
	"math"

	"github.com/dppub/dppub/data"
)

// Association holds pairwise association matrices of the real and the
// synthetic table: Pearson's r between numeric and binary attributes
// (in [−1, 1]), Cramér's V for any pair with a categorical attribute of
// more than two categories (in [0, 1]; numeric attributes binned).
type Association struct {
	Names []string    `json:"names"`
	Real  [][]float64 `json:"real"`
	Synth [][]float64 `json:"synthetic"`
	// Measure[i][j] is "pearson" or "cramers_v".
	Measure [][]string `json:"measure"`
	// MeanAbsDiff is the mean |real − synthetic| over pairs i < j.
	MeanAbsDiff float64 `json:"mean_abs_difference"`
}

// associationBins bins numeric attributes for Cramér's V.
const associationBins = 10

func compareAssociation(real, synth *data.Table) Association {
	s := real.Schema
	d := len(s.Attributes)
	a := Association{Names: s.Names(), Real: square(d), Synth: square(d), Measure: make([][]string, d)}
	pairs := 0
	for i := range d {
		a.Measure[i] = make([]string, d)
		for j := range d {
			m := measure(s.Attributes[i], s.Attributes[j])
			a.Measure[i][j] = m
			if i == j {
				a.Real[i][j], a.Synth[i][j] = 1, 1
				continue
			}
			if j < i {
				a.Real[i][j], a.Synth[i][j] = a.Real[j][i], a.Synth[j][i]
				continue
			}
			a.Real[i][j], a.Synth[i][j] = associate(real, i, j, m), associate(synth, i, j, m)
			a.MeanAbsDiff += math.Abs(a.Real[i][j] - a.Synth[i][j])
			pairs++
		}
	}
	if pairs > 0 {
		a.MeanAbsDiff /= float64(pairs)
	}
	return a
}

func square(d int) [][]float64 {
	m := make([][]float64, d)
	for i := range m {
		m[i] = make([]float64, d)
	}
	return m
}

func measure(x, y data.Attribute) string {
	if x.Kind == data.Categorical && len(x.Categories) > 2 || y.Kind == data.Categorical && len(y.Categories) > 2 {
		return "cramers_v"
	}
	return "pearson"
}

func associate(t *data.Table, i, j int, m string) float64 {
	if m == "pearson" {
		return pearson(t, i, j)
	}
	return cramersV(t, i, j)
}

// pearson is Pearson's r of columns i and j (0 when either is constant).
func pearson(t *data.Table, i, j int) float64 {
	var sx, sy, sxx, syy, sxy float64
	for _, row := range t.Rows {
		x, y := row[i], row[j]
		sx, sy, sxx, syy, sxy = sx+x, sy+y, sxx+x*x, syy+y*y, sxy+x*y
	}
	n := float64(t.Len())
	cov := sxy/n - sx*sy/n/n
	vx, vy := sxx/n-sx*sx/n/n, syy/n-sy*sy/n/n
	if vx <= 0 || vy <= 0 {
		return 0
	}
	return max(-1, min(1, cov/math.Sqrt(vx*vy)))
}

// cramersV is √(χ²/(n·(min(r, c) − 1))) of the contingency table of
// columns i and j over the cells observed in t (0 when either has one
// observed cell).
func cramersV(t *data.Table, i, j int) float64 {
	ai, aj := t.Schema.Attributes[i], t.Schema.Attributes[j]
	ri, rj := cells(ai, associationBins), cells(aj, associationBins)
	joint := make([]float64, ri*rj)
	mi, mj := make([]float64, ri), make([]float64, rj)
	for _, row := range t.Rows {
		x, y := cell(ai, row[i], associationBins), cell(aj, row[j], associationBins)
		joint[x*rj+y]++
		mi[x]++
		mj[y]++
	}
	n := float64(t.Len())
	chi2 := 0.0
	for x := range ri {
		for y := range rj {
			if e := mi[x] * mj[y] / n; e > 0 {
				diff := joint[x*rj+y] - e
				chi2 += diff * diff / e
			}
		}
	}
	k := min(observed(mi), observed(mj))
	if k < 2 {
		return 0
	}
	return math.Sqrt(chi2 / (n * float64(k-1)))
}

func observed(m []float64) int {
	c := 0
	for _, v := range m {
		if v > 0 {
			c++
		}
	}
	return c
}
