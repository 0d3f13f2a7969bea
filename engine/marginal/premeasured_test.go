package marginal

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/infer"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// The rounds take a one-way marginal released before them, at their
// one-way budget (OneWayRho), in place of measuring it again: the
// release is the plan's first, no other one-way of that attribute is
// measured, and the owner's budget is spent exactly. A release at any
// other ρ is refused before anything is measured.
func TestPremeasuredOneWay(t *testing.T) {
	dom, ds := load(t, "wdbc")
	rho := rhoAt(t, 1)
	d := dom.Len()
	for _, c := range []struct {
		name   string
		factor float64 // of the rounds' one-way ρ the release is made at
		err    string
	}{
		{"at the rounds' budget", 1, ""},
		{"at another budget", 1.01, "premeasured one-way"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := zcdpAccountant(t, "owner", rho)
			o := Options{Domain: dom, Records: len(ds.Cols[0]), Method: MethodAdaptive, Parties: owner("owner", rho, d), Source: randx.NewSeeded(3)}
			oneRho, ok, err := o.OneWayRho(d)
			if err != nil || !ok {
				t.Fatalf("OneWayRho on %d attributes: %v, %v", d, ok, err)
			}
			o.Adaptive.Premeasured = []Premeasured{releaseOneWay(t, ds, 1, c.factor*oneRho, a)}
			lm, err := measurement.NewLocalMeasurer(measurement.LocalOptions{Data: ds, Accountants: []*privacy.Accountant{a}, Source: randx.NewSeeded(2)})
			if err != nil {
				t.Fatal(err)
			}
			res, err := Synthesize(context.Background(), lm, o)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one about %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Plan[0].Release.Purpose != "premeasured" {
				t.Errorf("first release %q, want the premeasured one", res.Plan[0].Release.Purpose)
			}
			for _, p := range res.Plan[1:] {
				if len(p.Attrs) == 1 && p.Attrs[0] == 1 {
					t.Errorf("attribute 1's one-way measured again: %q", p.Release.Purpose)
				}
			}
			if spent := a.Spent().Rho; math.Abs(spent-rho) > 1e-9*rho {
				t.Errorf("spent ρ = %v of %v", spent, rho)
			}
		})
	}
}

// releaseOneWay releases attribute j's one-way marginal of ds with the
// rounds' Gaussian noise at rho, charged to a, as a caller of
// AdaptiveOptions.Premeasured does.
func releaseOneWay(t *testing.T, ds *domain.Dataset, j int, rho float64, a *privacy.Accountant) Premeasured {
	t.Helper()
	mg, err := domain.Count(ds, []int{j})
	if err != nil {
		t.Fatal(err)
	}
	noise, err := measurement.CountNoise(measurement.Gaussian, dp.NeighboursReplaceOne, rho)
	if err != nil {
		t.Fatal(err)
	}
	r := measurement.Release{Purpose: "premeasured", Parties: []int{0}, Noise: noise}
	if err := a.Spend(r.Charge()); err != nil {
		t.Fatal(err)
	}
	noise.Release(dp.NewNoiser(randx.NewSeeded(5)), mg.Counts)
	return Premeasured{Noisy: &infer.Noisy{Marginal: mg, Variance: noise.Variance()}, Release: r}
}

// A one-way whose bins sum several released cells is reported with its
// noisiest bin's σ, not its single cells': its error bar and the noise
// warnings read WorstVariance.
func TestErrorBarOfSummedBins(t *testing.T) {
	mg, err := domain.NewMarginal([]int{3}, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	copy(mg.Counts, []float64{900, 60, 40})
	n := &infer.Noisy{Marginal: mg, Variance: 100, CellVariance: []float64{100, 100, 1600}}
	bars := errorBars([]int{3}, []*infer.Noisy{n}, [][]int{{0}}, 1000)
	if got := bars[0].Sigma; got != 40 {
		t.Fatalf("σ %v, want the summed bin's 40", got)
	}
}
