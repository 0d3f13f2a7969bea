package synthesize

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/randx"
)

// firstRows is the table's first n rows, as a small owner's file would be.
func firstRows(tb testing.TB, name string, n int) *data.Table {
	tb.Helper()
	tab, err := datasets.Load(name)
	if err != nil {
		tb.Fatal(err)
	}
	if n <= 0 || n >= tab.Len() {
		return tab
	}
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	return tab.Subset(rows)
}

// The marginal engine's measured marginals are mostly noise on a few
// hundred rows at a small budget (Adult's first 300 rows at ρ = 0.01:
// per-cell σ many times the average count), and not on the whole of
// Adult at ρ = 0.1 (σ at most an eighth of it).
func TestMarginalNoiseWarning(t *testing.T) {
	for _, c := range []struct {
		name string
		rows int
		rho  float64
		want bool
	}{
		{"adult 300 rows, rho 0.01", 300, 0.01, true},
		{"adult, rho 0.1", 0, 0.1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !c.want && testing.Short() {
				t.Skip("synthesises the whole of Adult; skipped with -short")
			}
			tab := firstRows(t, "adult", c.rows)
			res, err := Publish(context.Background(), Options{Table: tab, Rho: c.rho, Source: randx.NewSeeded(1)})
			if err != nil {
				t.Fatal(err)
			}
			w := marginal.NoiseWarning(res.Engine, res.Domain, tab.Len())
			if got := w != ""; got != c.want {
				t.Fatalf("warns %v, want %v: %q", got, c.want, w)
			}
			if c.want && (!strings.Contains(w, "mostly noise") || !strings.Contains(w, "would do better") || !strings.Contains(w, "(worst: ")) {
				t.Errorf("the warning does not say what is noise and what would do better: %q", w)
			}
		})
	}
	if w := marginal.NoiseWarning(nil, nil, 10); w != "" {
		t.Errorf("no result: %q", w)
	}
}

// The label warning follows the measurements that join the label with
// other columns: on the whole of WDBC at ε = 0.3 the default's label pairs
// are mostly noise even pooled (1.9–2.6 times the average count per cell
// over seeds 1–3), at ε = 4 they are not; without those measurements the
// label is independent of everything, and without a label there is
// nothing to warn of.
func TestLabelWarning(t *testing.T) {
	tab := firstRows(t, "wdbc", 0)
	run := func(t *testing.T, eps float64) *Result {
		t.Helper()
		res, err := Publish(context.Background(), Options{Table: tab, Epsilon: eps, Label: "diagnosis", Source: randx.NewSeeded(1)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	low, high := run(t, 0.3), run(t, 4)
	label := 0 // diagnosis is WDBC's first attribute
	if high.Domain.Name(label) != "diagnosis" {
		t.Fatalf("attribute 0 is %q", high.Domain.Name(label))
	}
	unjoined := *high.Engine
	unjoined.Measured = nil
	for _, m := range high.Engine.Measured {
		if !slices.Contains(m.Attrs, label) || len(m.Attrs) == 1 {
			unjoined.Measured = append(unjoined.Measured, m)
		}
	}
	for _, c := range []struct {
		name  string
		res   *Result
		eng   *marginal.Result
		label string
		want  string
	}{
		{"eps 0.3", low, low.Engine, "diagnosis", "mostly noise even pooled"},
		{"eps 4", high, high.Engine, "diagnosis", ""},
		{"eps 4, label pairs left out", high, &unjoined, "diagnosis", "no measured marginal joins the label"},
		{"no label", low, low.Engine, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := marginal.LabelWarning(c.eng, c.res.Domain, tab.Len(), c.label)
			if (c.want == "") != (w == "") || !strings.Contains(w, c.want) {
				t.Fatalf("warning %q, want one saying %q", w, c.want)
			}
			if c.eng == low.Engine && c.label != "" && !slices.Contains(c.res.Report.Warnings, w) {
				t.Errorf("the privacy report does not carry the warning: %q", c.res.Report.Warnings)
			}
		})
	}
}

// The label check warns only when the released accuracy's whole interval
// lies below the synthetic rows' majority share: Musk2's figures with its
// label named at ε = 1 warn; an interval that reaches the share, or an
// accuracy above it (Adult's), does not.
func TestLabelCheckWarning(t *testing.T) {
	for _, c := range []struct {
		name                 string
		real, half, majority float64
		warns                bool
	}{
		{"below the majority share", 0.767, 0.011, 0.835, true},
		{"interval reaches it", 0.83, 0.011, 0.835, false},
		{"above it", 0.85, 0.002, 0.76, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			lc := LabelCheck{Label: "target", Real: c.real, HalfWidth: c.half, Majority: c.majority}
			w := lc.Warning()
			if (w != "") != c.warns {
				t.Fatalf("warning %q, want one: %v", w, c.warns)
			}
			if c.warns && !strings.Contains(w, "0.767 ± 0.011") {
				t.Errorf("warning %q does not state the released accuracy", w)
			}
		})
	}
}
