package dpsubn3

import (
	"context"
	"strings"
	"testing"

	"github.com/dppub/dppub/method/methodtest"
	bn "github.com/dppub/dppub/method/privbayes"
	"github.com/dppub/dppub/randx"
)

// On WDBC (569 rows, 31 attributes) at ε = 0.1 the θ-useful parent domain
// τ = nε₂/(2dθ) ≈ 0.16 is below every family's domain, so every attribute,
// the label included, gets no parent whatever the noise: both warnings
// must be in the result and in the report.
func TestPrivBayesWarnsWhenLabelIsIndependent(t *testing.T) {
	tab := methodtest.Table(t, "wdbc")
	res, err := bn.Publish(context.Background(), bn.Options{Table: tab,
		BayesNetOptions: bn.BayesNetOptions{Settings: bn.Settings{Epsilon: 0.1}, Source: randx.NewSeeded(1), Label: "diagnosis"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 2 || !strings.Contains(res.Warnings[0], `label "diagnosis"`) || !strings.Contains(res.Warnings[1], "no edge") {
		t.Fatalf("warnings %q", res.Warnings)
	}
	report := strings.Join(res.Report.Warnings, "\n")
	for _, w := range res.Warnings {
		if !strings.Contains(report, w) {
			t.Errorf("report warnings lack %q", w)
		}
	}
}

func TestBaselineLabelMustExist(t *testing.T) {
	tab := methodtest.Table(t, "nltcs")
	_, err := bn.Publish(context.Background(), bn.Options{Table: tab,
		BayesNetOptions: bn.BayesNetOptions{Settings: bn.Settings{Epsilon: 1}, Source: randx.NewSeeded(1), Label: "salary"}})
	if err == nil || !strings.Contains(err.Error(), `"salary"`) {
		t.Fatalf("unknown label accepted: %v", err)
	}
}

// Both pipelines on Adult at ε = 1 (DP-SUBN3 with 3 owners): capital-gain
// and capital-loss are 0 in 91.6 % and 95.3 % of rows, and were 0 in
// 0.0 % of synthetic rows before their minimum got a code of its own.
// method/privbayes/bayesnet measured a shortfall of 0.5–3.7 points over 8 seeds for
// PrivBayes; DP-SUBN3's owners hold a third of the rows each, so its
// noise is larger: 10 points is the bound here (a seeded run; see
// TestAdultKeepsZeroMassAndIntegers for the spread). The network links
// income to other attributes (τ ≈ 264 cells leaves every family after
// the first parents), so no warning is due.
func TestBaselinesKeepAdultZeroMass(t *testing.T) {
	if testing.Short() {
		t.Skip("two syntheses of 45222 Adult rows (about 5 s)")
	}
	tab := methodtest.Table(t, "adult")
	owners := methodtest.Split(t, tab, 3, 2)
	st := bn.Settings{Epsilon: 1}
	pb, err := bn.Publish(context.Background(), bn.Options{Table: tab,
		BayesNetOptions: bn.BayesNetOptions{Settings: st, Source: randx.NewSeeded(3), Label: "income"}})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := Publish(context.Background(), Options{Owners: owners, Source: randx.NewSeeded(4), Label: "income",
		Settings: Settings{Settings: st}})
	if err != nil {
		t.Fatal(err)
	}
	for name, res := range map[string]*bn.Published{"privbayes": pb, "dp-subn3": sub} {
		t.Run(name, func(t *testing.T) {
			if len(res.Warnings) != 0 {
				t.Errorf("warnings %q", res.Warnings)
			}
			for _, col := range []string{"capital-gain", "capital-loss"} {
				real, got := methodtest.ZeroShare(t, tab, col), methodtest.ZeroShare(t, res.Synthetic, col)
				t.Logf("%s = 0: real %.3f, synthetic %.3f", col, real, got)
				if got < real-0.1 || got > real+0.1 {
					t.Errorf("%s = 0 in %.3f of synthetic rows, %.3f of real ones", col, got, real)
				}
			}
		})
	}
}
