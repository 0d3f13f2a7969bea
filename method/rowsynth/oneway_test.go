package rowsynth_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/method/rowsynth"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// sparseDigits is a table like `digits`' pixels: rows records of 24
// integer columns 0..16 and a class of 3. Columns s0..s5 are 97 % zero
// (else uniform on 1..16), z0..z5 are zero unless the row's latent
// stroke passes through them (about 20 % of rows), p0..p11 follow the
// stroke's intensity with noise, so that the pixels are correlated.
func sparseDigits(rows int, seed uint64) *data.Table {
	var sc data.Schema
	add := func(prefix string, k int) {
		for i := range k {
			sc.Attributes = append(sc.Attributes, data.Attribute{Name: fmt.Sprintf("%s%d", prefix, i), Kind: data.Numeric, Min: 0, Max: 16, Integer: true})
		}
	}
	add("s", 6)
	add("z", 6)
	add("p", 12)
	sc.Attributes = append(sc.Attributes, data.Attribute{Name: "class", Kind: data.Categorical, Categories: []string{"a", "b", "c"}})
	src := randx.NewSeeded(seed)
	t := &data.Table{Schema: sc}
	for range rows {
		class := src.IntN(3)
		stroke := (float64(class) + src.Float64()) / 3
		row := make([]float64, 0, len(sc.Attributes))
		for range 6 {
			v := 0.0
			if src.Float64() >= 0.97 {
				v = float64(1 + src.IntN(16))
			}
			row = append(row, v)
		}
		for i := range 6 {
			v := 0.0
			if math.Abs(stroke-float64(i)/5) < 0.1 {
				v = float64(8 + src.IntN(9))
			}
			row = append(row, v)
		}
		for i := range 12 {
			x := 16*stroke*float64(i%4+1)/4 + 2*src.NormFloat64()
			row = append(row, math.Round(min(max(x, 0), 16)))
		}
		t.Rows = append(t.Rows, append(row, float64(class)))
	}
	return t
}

// Owners of rows release a small integer column's one-way marginal once,
// as one owner of synthesize does (marginal.OneWayFirst, MST's order):
// on 1 500 rows of sparseDigits (25 attributes, 24 integer 0..16) at
// ε = 0.3 the adaptive method's noise swamps the average bin, so every
// owner is charged each pixel's histogram exactly once, at the rounds'
// one-way ρ ("one-way marginal and bins of"), with no "bins of" release
// and no first round measuring its one-way again (a later round may
// select a pixel alone, as it may any set), in each noise mode and
// relation, and spends exactly its budget. The bins then follow the
// one-way noise: in insider-safe mode each 97 %-zero column keeps 0 in a
// bin of its own and the six end with at most 34 bins together (300
// seeds of the run: mean 24, at most 32, none above, so a sound run
// fails well under 1 % of the time; before this change, with their
// histograms at the bin share, 60 seeds gave 39 to 59 bins, 0 sharing a
// bin with 1 in 9 of them). At ε = 8 the floor's gate is shut and every
// column is charged its "bins of" release, as before.
func TestOwnersReleaseSmallIntegerOneWaysOnce(t *testing.T) {
	tab := sparseDigits(1500, 1)
	for _, tc := range []struct {
		name    string
		st      rowsynth.Settings
		oneWay  bool
		coarse  bool
		purpose string
	}{
		{"insider-safe at ε 0.3", rowsynth.Settings{Epsilon: 0.3, Delta: 1e-6}, true, true, "one-way marginal and bins of "},
		{"exact at ε 0.3", rowsynth.Settings{Epsilon: 0.3, Delta: 1e-6, Noise: rowsynth.NoiseExact}, true, false, "one-way marginal and bins of "},
		{"add-remove at ε 0.3", rowsynth.Settings{Epsilon: 0.3, Delta: 1e-6, EngineSettings: method.EngineSettings{Neighbours: dp.NeighboursAddRemove}}, true, false, "one-way marginal and bins of "},
		{"insider-safe at ε 8", rowsynth.Settings{Epsilon: 8, Delta: 1e-6}, false, false, "bins of "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, tab, 3, adaptive(tc.st), 2)
			res := r.Outcome.Detail.(*rowsynth.Result)
			if got := len(res.OneWays) > 0; got != tc.oneWay {
				t.Fatalf("one-way first for %v, want %v", res.OneWays, tc.oneWay)
			}
			chosen := map[string]int{}
			for _, rd := range res.Engine.Rounds {
				if len(rd.Attrs) == 1 {
					chosen[res.Domain.Name(rd.Attrs[0])]++
				}
			}
			for _, a := range r.Accountants {
				checkOneWayCharges(t, a.Party(), a.Charges(), tab.Schema, tc.purpose, res.OneWayRho, chosen)
				if got := a.Spent().Rho; math.Abs(got-res.Rho) > 1e-9*res.Rho {
					t.Errorf("%s spent ρ = %v, budget %v", a.Party(), got, res.Rho)
				}
			}
			if tc.oneWay && !strings.Contains(strings.Join(r.Outcome.Report.Assumptions, "\n"), "were chosen from their one-way marginals") {
				t.Errorf("the report does not say the bins came from the one-way marginals")
			}
			if !tc.coarse {
				return
			}
			total := 0
			for j := range 6 {
				total += res.Domain.Sizes()[j]
				if b, _ := res.Domain.Bin(j, 1); b == 0 {
					t.Errorf("%s: 0 shares a bin with 1", res.Domain.Name(j))
				}
			}
			if total > 34 {
				t.Errorf("the six 97 %%-zero columns have %d bins together (%v), want at most 34", total, res.Domain.Sizes()[:6])
			}
		})
	}
}

// checkOneWayCharges checks that party was charged each integer column
// of sc once, with purpose (at ρ = rho, the rounds' one-way ρ, when rho
// > 0), and, when rho > 0, that the adaptive rounds measured its one-way
// again only in the rounds that selected it (chosen, by name).
func checkOneWayCharges(t *testing.T, party string, charges []privacy.Charge, sc data.Schema, purpose string, rho float64, chosen map[string]int) {
	t.Helper()
	for _, a := range sc.Attributes {
		if a.Kind != data.Numeric {
			continue
		}
		var got []privacy.Charge
		rounds := 0
		for _, c := range charges {
			switch c.Purpose {
			case "bins of " + a.Name, "one-way marginal and bins of " + a.Name:
				got = append(got, c)
			case "adaptive marginal " + a.Name:
				rounds++
			}
		}
		if len(got) != 1 || got[0].Purpose != purpose+a.Name || (rho > 0 && got[0].Spec.Guarantee.Rho != rho) {
			t.Errorf("%s: charges for %s's one-way %+v, want one %q at ρ = %v", party, a.Name, got, purpose+a.Name, rho)
		}
		if rho > 0 && rounds != chosen[a.Name] {
			t.Errorf("%s: %d adaptive measurements of %s alone, %d rounds selected it", party, rounds, a.Name, chosen[a.Name])
		}
	}
}
