package gate

import (
	"context"
	"errors"
	"github.com/dppub/dppub/method/synthesize"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method/methodtest"
	"github.com/dppub/dppub/method/ppcadpmh"
	"github.com/dppub/dppub/randx"
)

// adultSplit returns n real rows of Adult (the members) and n held-out
// rows (non-members), disjoint, in a random order.
func adultSplit(t *testing.T, n int, src *randx.Source) (real, holdout *data.Table) {
	t.Helper()
	tab := methodtest.Table(t, "adult")
	perm := src.Perm(tab.Len())
	return tab.Subset(perm[:n]), tab.Subset(perm[n : 2*n])
}

// The gate refuses a table that copies the owner's rows (every member has
// an exact copy, about 1% of held-out Adult rows do by coincidence, so
// the DCR advantage is about 0.99) and one made by PPCA-DP-MH with the
// paper's latent codes (projections of the real rows, --paper-latent) at
// ε = 1000 on 1,000 rows (DCR advantage about 0.8: the owner's rows have
// a synthetic row at median distance 0.14, held-out rows at 1.1); it
// accepts PPCA-DP-MH's sound default at ε = 1 (codes drawn from N(0, I))
// and synthesize at ρ = 1 on the same rows. Those tables' true advantage
// is near 0: the estimate's standard error at 500 + 500 queries is about
// 0.042, and a table is refused only when the interval's lower end
// (about 2.2 standard errors below) is above 0.1, so a sound table is
// refused with probability well under 0.1% per attack over seeds (the
// seed is fixed). About 4 s.
func TestGateRefusesLeakyAcceptsSound(t *testing.T) {
	src := randx.NewSeeded(41)
	real, holdout := adultSplit(t, 1000, src)
	ppcaTable := func(eps float64, paperLatent bool) *data.Table {
		st := ppcadpmh.Settings{Epsilon: eps, PaperLatent: paperLatent}
		if paperLatent {
			st.Contribution = 0.99
		}
		res, err := ppcadpmh.Publish(context.Background(), ppcadpmh.Options{Settings: st, Owners: []*data.Table{real}, Source: src.Child()})
		if err != nil {
			t.Fatal(err)
		}
		return res.Synthetic
	}
	synth, err := synthesize.Publish(context.Background(), synthesize.Options{Table: real, Rho: 1, Source: src.Child()})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		table  *data.Table
		refuse bool
	}{
		{"copies of the real rows", real, true},
		{"ppca-dp-mh --paper-latent", ppcaTable(1000, true), true},
		{"ppca-dp-mh default", ppcaTable(1, false), false},
		{"synthesize default", synth.Synthetic, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Check(Options{Real: real, Holdout: holdout, Synthetic: tc.table, Source: src.Child()})
			if res == nil {
				t.Fatal(err)
			}
			for _, a := range res.Attacks {
				t.Logf("%s: advantage %.3f [%.3f, %.3f]; %s", a.Name, a.Advantage, a.Lower, a.Upper, a.Detail)
			}
			if refused := errors.Is(err, ErrRefused); refused != tc.refuse || res.Refused != tc.refuse {
				t.Errorf("refused = %v (err %v), want %v", refused, err, tc.refuse)
			}
			if tc.refuse && (err == nil || !strings.Contains(err.Error(), "above the 0.1 the owner accepts")) {
				t.Errorf("refusal does not say why: %v", err)
			}
		})
	}
}

// AUC by ranks with ties counted half, and the interval around it.
func TestAdvantage(t *testing.T) {
	if a := aucOf([]float64{3, 4}, []float64{1, 2}); a != 1 {
		t.Errorf("separated: AUC %v, want 1", a)
	}
	if a := aucOf([]float64{1, 1}, []float64{1, 1}); a != 0.5 {
		t.Errorf("all tied: AUC %v, want 0.5", a)
	}
	if a := aucOf([]float64{2, 0}, []float64{1, 1}); a != 0.5 {
		t.Errorf("one above, one below both: AUC %v, want 0.5", a)
	}
	at := advantage("x", []float64{3, 4, 5}, []float64{1, 2, 0}, 1.96, "")
	if at.Advantage != 1 || !(at.Lower < 1) || at.Upper != 1 {
		t.Errorf("perfect attack: %+v", at)
	}
	if math.Abs(advantage("x", []float64{1, 2}, []float64{1, 2}, 1.96, "").Advantage) > 1e-12 {
		t.Error("identical scores gave an advantage")
	}
}

func TestCheckValidates(t *testing.T) {
	src := randx.NewSeeded(1)
	real, holdout := adultSplit(t, 50, src)
	for _, o := range []Options{
		{Real: real, Holdout: holdout},
		{Real: real, Holdout: holdout, Synthetic: real, MaxAdvantage: 1.5},
		{Real: real, Holdout: real.Subset([]int{1, 2}), Synthetic: real},
	} {
		o.Source = src
		if _, err := Check(o); err == nil {
			t.Errorf("options accepted: %+v", o)
		}
	}
}

// A table that copies a quarter of its members: with 500 queries a side
// the DCR advantage (0.26, interval 0.18 to 0.34) is shown above 0.1 and
// the table is refused; with 20 a side the estimate is above 0.1 too
// (0.44) but its interval reaches below it (0.08), so it passes, and the
// pass says that its rows were too few.
func TestRefusalNeedsEvidence(t *testing.T) {
	src := randx.NewSeeded(3)
	tab := methodtest.Table(t, "adult")
	perm := src.Perm(tab.Len())
	real, holdout := tab.Subset(perm[:1000]), tab.Subset(perm[1000:2000])
	// A quarter copies of members, the rest other rows of Adult.
	synth := tab.Subset(append(slices.Clone(perm[:250]), perm[2000:2750]...))
	for _, tc := range []struct {
		queries int
		refuse  bool
	}{{500, true}, {20, false}} {
		res, err := Check(Options{Real: real, Holdout: holdout, Synthetic: synth, MaxQueries: tc.queries, Source: src.Child()})
		if res == nil {
			t.Fatal(err)
		}
		dcr := res.Attacks[0]
		t.Logf("%d queries: DCR advantage %.3f [%.3f, %.3f]; warnings %q", tc.queries, dcr.Advantage, dcr.Lower, dcr.Upper, res.Warnings)
		// Both estimates are above 0.1; only the first is shown to be.
		if dcr.Advantage <= 0.1 || tc.queries == 500 && math.Abs(dcr.Advantage-0.25) > 0.1 {
			t.Errorf("%d queries: DCR advantage %.3f, want about 0.25", tc.queries, dcr.Advantage)
		}
		if res.Refused != tc.refuse || errors.Is(err, ErrRefused) != tc.refuse {
			t.Errorf("%d queries: refused %v (%v), want %v", tc.queries, res.Refused, err, tc.refuse)
		}
		if !tc.refuse && (len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "too few")) {
			t.Errorf("%d queries: a pass on weak evidence does not say so: %q", tc.queries, res.Warnings)
		}
	}
}
