package quality

import (
	"math"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/randx"
	"github.com/dppub/dppub/utility"
)

// zeroInflated is a table whose numeric column is exactly 0 in share of
// its n rows and spread over (0, 100] otherwise, beside a category.
func zeroInflated(n int, share float64, lo float64) *data.Table {
	s := data.Schema{Attributes: []data.Attribute{
		{Name: "freq", Kind: data.Numeric, Min: 0, Max: 100},
		{Name: "label", Kind: data.Binary, Categories: []string{"a", "b"}},
	}}
	t := &data.Table{Schema: s}
	for i := range n {
		v := lo + float64(i%97)*(100-lo)/97
		if float64(i) < share*float64(n) {
			v = 0
		}
		t.Rows = append(t.Rows, []float64{v, float64(i % 2)})
	}
	return t
}

// A zero-inflated column's 0 has a bar of its own in the histogram, and
// the report warns when the synthetic table loses it (the issue's
// 'make' column: 77.1 % zeros real, 0.0 % synthetic, invisible on
// equal-width bins, where every small value shares the first bin).
func TestPointMassShownAndChecked(t *testing.T) {
	real := zeroInflated(1000, 0.77, 0.2)
	lost := zeroInflated(1000, 0, 0.2)
	for i := range lost.Rows[:770] {
		lost.Rows[i][0] = 0.5 // small, in the first bin, but never 0
	}
	kept := zeroInflated(1000, 0.75, 0.2)
	cases := []struct {
		name  string
		synth *data.Table
		warn  bool
	}{{"zeros lost", lost, true}, {"zeros kept", kept, false}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Compare(real, c.synth, Options{Source: randx.NewSeeded(1)})
			if err != nil {
				t.Fatal(err)
			}
			col := r.Columns[0]
			if col.PointMass == nil || col.PointMass.Value != 0 || col.Labels[0] != "= 0" || math.Abs(col.Real[0]-0.77) > 1e-9 {
				t.Fatalf("no bar of its own for the zeros: %+v, labels %v, real %v", col.PointMass, col.Labels, col.Real)
			}
			sum := 0.0
			for _, x := range col.Real {
				sum += x
			}
			if math.Abs(sum-1) > 1e-9 {
				t.Errorf("the bars' real shares sum to %v", sum)
			}
			warned := strings.Contains(strings.Join(r.Warnings, "\n"), "column freq: value 0: 77.0% real, 0.0% synthetic")
			if warned != c.warn {
				t.Errorf("warned %v, want %v: %q", warned, c.warn, r.Warnings)
			}
			if r.Columns[1].PointMass != nil {
				t.Errorf("a categorical column got a point mass")
			}
		})
	}
}

// compare's marginal distances are the publishing commands' (utility's
// code at utility.DefaultBins), and the report says how it binned.
func TestMarginalsAreUtilitys(t *testing.T) {
	real := zeroInflated(1000, 0.3, 0)
	synth := zeroInflated(800, 0.1, 10)
	r, err := Compare(real, synth, Options{Source: randx.NewSeeded(1)})
	if err != nil {
		t.Fatal(err)
	}
	_, one, err := utility.MarginalTVD(real, synth, utility.DefaultBins)
	if err != nil {
		t.Fatal(err)
	}
	two, err := utility.PairTVD(real, synth, utility.DefaultBins)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.Marginals[0].Mean-one) > 1e-12 || math.Abs(r.Marginals[1].Mean-two) > 1e-12 {
		t.Errorf("compare's 1-way %v and 2-way %v, utility's %v and %v", r.Marginals[0].Mean, r.Marginals[1].Mean, one, two)
	}
	if !strings.Contains(r.Binning, "16 equal-width bins") {
		t.Errorf("binning %q", r.Binning)
	}
}
