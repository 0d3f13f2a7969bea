package eval

import (
	"math"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/randx"
)

// Hand-computed metrics on two tiny tables over one binary and one
// three-valued attribute.
func TestSynthMetricsKnownAnswers(t *testing.T) {
	s := data.Schema{Attributes: []data.Attribute{
		{Name: "x", Kind: data.Binary, Categories: []string{"no", "yes"}},
		{Name: "y", Kind: data.Categorical, Categories: []string{"a", "b", "c"}},
	}}
	real := &data.Table{Schema: s, Rows: [][]float64{{0, 0}, {0, 1}, {1, 2}, {1, 2}}}
	synth := &data.Table{Schema: s, Rows: [][]float64{{0, 0}, {0, 0}, {0, 2}, {1, 2}}}
	dom, err := domain.New(s, domain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := SynthTVD(real, synth, dom, nil)
	if err != nil {
		t.Fatal(err)
	}
	// x: (.5,.5) vs (.75,.25) → .25; y: (.25,.25,.5) vs (.5,0,.5) → .25;
	// (x,y): real {00:.25, 01:.25, 12:.5}, synth {00:.5, 02:.25, 12:.25}
	// → (.25+.25+.25+.25)/2 = .5.
	if math.Abs(st.OneWay-0.25) > 1e-12 || math.Abs(st.TwoWay-0.5) > 1e-12 || math.Abs(st.All-1.0/3) > 1e-12 {
		t.Errorf("TVD %+v, want 1-way .25, 2-way .5, all 1/3", st)
	}
	same, _ := SynthTVD(real, real, dom, nil)
	if same.All != 0 {
		t.Errorf("TVD of a table with itself is %v", same.All)
	}
	if e, _ := RangeQueryError(real, real, dom, 50, 2, randx.NewSeeded(1)); e != 0 {
		t.Errorf("range error of a table with itself is %v", e)
	}
	// Every query over both attributes of a 4-row table: errors are
	// multiples of 1/4 and at most 1; the mean must be in (0, 1).
	if e, _ := RangeQueryError(real, synth, dom, 200, 2, randx.NewSeeded(2)); e <= 0 || e >= 1 {
		t.Errorf("range error %v", e)
	}
}
