package synthesize

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/randx"
)

// Records read into tallies (two, as two reader workers, in another
// order) and merged into weighted tuples give, for a seed, the synthetic
// table and report of the same records held as a table one row each:
// with the bins chosen from the data (the tuples merged again after
// recoding), with the schema's bins for two parties, and with the
// adaptive method. The records repeat (Adult's first 3000 rows three
// times), so the merged rows are fewer than the records.
func TestSynthesizeMergedRecordsPublishTheSame(t *testing.T) {
	adult, err := datasets.Load("adult")
	if err != nil {
		t.Fatal(err)
	}
	tab := &data.Table{Schema: adult.Schema}
	for k := range 3 {
		for i := range 3000 {
			tab.Rows = append(tab.Rows, adult.Rows[(i*(k+1))%3000])
		}
	}
	parties, err := EvenParties(tab.Schema, []float64{0.5, 0.2})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		o    Options
	}{
		{"bins from the data", Options{Epsilon: 1}},
		{"two parties", Options{Parties: parties}},
		{"adaptive", Options{Epsilon: 1, Method: marginal.MethodAdaptive, AdaptiveRounds: 16}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := c.o
			o.Table, o.Source = tab, randx.NewSeeded(21)
			whole, err := Publish(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			pre, err := DomainFor(tab.Schema, c.o)
			if err != nil {
				t.Fatal(err)
			}
			var pieces domain.Chunks
			clamped := 0
			for w := range 2 {
				tl := domain.NewTally(pre.Sizes())
				for i := tab.Len() - 1 - w; i >= 0; i -= 2 * 500 {
					var rows [][]float64
					for k := i; k > i-2*500 && k >= 0; k -= 2 {
						rows = append(rows, tab.Rows[k])
					}
					n, err := tl.AddRows(pre, rows)
					if err != nil {
						t.Fatal(err)
					}
					clamped += n
				}
				pieces = append(pieces, tl.Chunks()...)
			}
			merged, err := pieces.Merged()
			if err != nil {
				t.Fatal(err)
			}
			enc := &Encoded{Domain: pre, Chunks: merged, Clamped: clamped}
			o = c.o
			o.Encoded, o.Source = enc, randx.NewSeeded(21)
			got, err := Publish(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if got.Real.Len() != tab.Len() || got.Real.Distinct() >= tab.Len() || got.Real.Distinct() > 3000 {
				t.Errorf("%d records in %d rows, want %d in at most 3000", got.Real.Len(), got.Real.Distinct(), tab.Len())
			}
			if got.Clamped != whole.Clamped {
				t.Errorf("%d values clamped, the table %d", got.Clamped, whole.Clamped)
			}
			if got.Synthetic.Len() != whole.Synthetic.Len() {
				t.Fatalf("%d synthetic rows, the table's run %d", got.Synthetic.Len(), whole.Synthetic.Len())
			}
			for i, row := range got.Synthetic.Rows {
				if !slices.Equal(row, whole.Synthetic.Rows[i]) {
					t.Fatalf("synthetic row %d: %v, the table's run %v", i, row, whole.Synthetic.Rows[i])
				}
			}
			a, errA := got.Report.JSON()
			b, errB := whole.Report.JSON()
			if errA != nil || errB != nil || !bytes.Equal(a, b) {
				t.Errorf("reports differ (%v, %v):\n%s\nthe table's:\n%s", errA, errB, a, b)
			}
		})
	}
}

// The report of an adaptive run names the selection mechanism the rounds
// used and the zCDP charge it was booked at, not a fixed one.
func TestSynthesizeReportStatesSelection(t *testing.T) {
	adult, err := datasets.Load("adult")
	if err != nil {
		t.Fatal(err)
	}
	tab := &data.Table{Schema: adult.Schema, Rows: adult.Rows[:2000]}
	for _, c := range []struct {
		mech measurement.SelectMechanism
		says string
	}{
		{"", "exponential mechanism at ε (ε-bounded range, charged ε²/8"},
		{measurement.SelectPermuteAndFlip, "permute-and-flip at ε (ε-DP, charged ε²/2"},
	} {
		t.Run(cmp.Or(string(c.mech), "default"), func(t *testing.T) {
			res, err := Publish(context.Background(), Options{
				Table: tab, Epsilon: 1, Method: marginal.MethodAdaptive, AdaptiveRounds: 30,
				Selection: c.mech, Source: randx.NewSeeded(3),
			})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, a := range res.Report.Assumptions {
				if strings.Contains(a, "each round's selection is") {
					n++
					if !strings.Contains(a, c.says) {
						t.Errorf("selection stated as %q, want it to say %q", a, c.says)
					}
				}
			}
			if n != 1 {
				t.Errorf("%d assumptions state the selection, want 1: %q", n, res.Report.Assumptions)
			}
		})
	}
}

// The report says how the adaptive method's model was fitted and, under
// optimizer auto, why: 2 000 Adult rows over 30 rounds give a first-round
// σ of √(30 / (0.9·ρ)) records against 0.1 % of 2 000 = 2, above it at
// ε = 1 (σ ≈ 33) and below it at ε = 40 (σ ≈ 1.5).
func TestSynthesizeReportStatesOptimizer(t *testing.T) {
	adult, err := datasets.Load("adult")
	if err != nil {
		t.Fatal(err)
	}
	tab := &data.Table{Schema: adult.Schema, Rows: adult.Rows[:2000]}
	cases := []struct {
		name      string
		epsilon   float64
		asked     marginal.Optimizer
		ran       marginal.Optimizer
		says, not string
	}{
		{"auto noisy", 1, "", marginal.OptimizerMirrorDescent, "(by mirror descent, chosen by optimizer auto: a first-round measurement's noise σ was above 0.1%", "momentum"},
		{"auto precise", 40, marginal.OptimizerAuto, marginal.OptimizerMomentum, "(by mirror descent with momentum, chosen by optimizer auto: a first-round measurement's noise σ was at most 0.1%", "above"},
		{"asked", 1, marginal.OptimizerMomentum, marginal.OptimizerMomentum, "(by mirror descent with momentum)", "chosen"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Publish(context.Background(), Options{
				Table: tab, Epsilon: c.epsilon, Method: marginal.MethodAdaptive, AdaptiveRounds: 30,
				Optimizer: c.asked, BinShare: -1, Source: randx.NewSeeded(3),
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Engine.Optimizer != c.ran {
				t.Errorf("ran %s, want %s", res.Engine.Optimizer, c.ran)
			}
			i := slices.IndexFunc(res.Report.Covered, func(s string) bool { return strings.Contains(s, "graphical model fitted") })
			if i < 0 {
				t.Fatalf("no covered item states the model: %q", res.Report.Covered)
			}
			if got := res.Report.Covered[i]; !strings.Contains(got, c.says) || strings.Contains(got, c.not) {
				t.Errorf("the report says %q, want %q and not %q", got, c.says, c.not)
			}
		})
	}
}

// By default the method is chosen from the public shape: NLTCS's 16
// binary attributes and one owner get the adaptive method; Adult (a
// 41-value attribute) and two parties of columns the paper's. The report
// says which and why.
func TestSynthesizeAutoChoosesByShape(t *testing.T) {
	load := func(name string, rows int) *data.Table {
		tab, err := datasets.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		return &data.Table{Schema: tab.Schema, Rows: tab.Rows[:rows]}
	}
	adult, nltcs := load("adult", 2000), load("nltcs", 2000)
	parties, err := EvenParties(nltcs.Schema, []float64{0.5, 0.2})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		tab  *data.Table
		o    Options
		want marginal.Method
		says string
	}{
		{"narrow, one owner", nltcs, Options{Epsilon: 1, AdaptiveRounds: 32}, marginal.MethodAdaptive, "16 attributes of at most 2 values on the public domain, one owner"},
		{"a large attribute", adult, Options{Epsilon: 1, Bins: 100}, marginal.MethodPaper, "15 attributes of at most 100 values on the public domain, one owner"},
		{"two parties", nltcs, Options{Parties: parties}, marginal.MethodPaper, "16 attributes of at most 2 values on the public domain, 2 parties of columns"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := c.o
			o.Table, o.Source = c.tab, randx.NewSeeded(5)
			res, err := Publish(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if res.Method != c.want {
				t.Fatalf("method %s, want %s", res.Method, c.want)
			}
			said := fmt.Sprintf("the method (%s) was chosen by method auto from public facts only: %s", c.want, c.says)
			if !slices.ContainsFunc(res.Report.Assumptions, func(a string) bool { return strings.HasPrefix(a, said) }) {
				t.Errorf("no assumption starts %q: %q", said, res.Report.Assumptions)
			}
		})
	}
}
