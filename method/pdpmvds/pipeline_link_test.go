package pdpmvds

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dppub/dppub/method"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/randx"
)

// TestPDPMVDSLinked: 3 parties of columns of the first 3000 Adult rows,
// each lacking a different 10 % and holding its rows in its own order
// under an ID column, publish with link set; the synthetic table equals,
// byte for byte for the same seed, the run on the intersection aligned by
// hand, and the report states the revealed counts without claiming them
// protected.
func TestPDPMVDSLinked(t *testing.T) {
	parts, full := linkParties(t, 3000)
	order := CommonIDs(parts)
	if len(order) != 2100 {
		t.Fatalf("the parties share %d IDs, want 2100", len(order))
	}
	settings := Settings{Delta: 1e-7, EngineSettings: method.EngineSettings{Rounds: 5}}
	run := func(tables []*data.Table, link bool) *Published {
		st := settings
		st.Link = link
		r, err := Publish(context.Background(), Options{Tables: tables, Budgets: []float64{0.5, 0.5, 0.5},
			Source: randx.NewSeeded(23), Settings: st})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	linked, hand := run(parts, true), run(prealigned(t, full, order), false)
	if linked.Synthetic.Len() != 2100 || !linked.Synthetic.Equal(hand.Synthetic) {
		t.Fatalf("the linked run (%d rows) differs from the run on the hand-aligned intersection (%d rows)", linked.Synthetic.Len(), hand.Synthetic.Len())
	}
	lr := linked.Linkage
	if lr == nil || lr.Common != 2100 || lr.Messages != 12 {
		t.Fatalf("linkage report %+v", lr)
	}
	for _, name := range lr.Parties {
		if lr.Records[name] != 2700 {
			t.Errorf("linkage report: %s holds %d IDs, it holds 2700", name, lr.Records[name])
		}
	}
	if linked.Phases[0].Name != "linkage" || hand.Phases[0].Name == "linkage" {
		t.Errorf("phases %q, %q", linked.Phases[0].Name, hand.Phases[0].Name)
	}
	rep := linked.Report
	notCovered := strings.Join(rep.NotCovered, "\n")
	for _, want := range []string{"revealed exactly, NOT under DP", "number of IDs", "intersection (n = 2100)", "Venn diagram"} {
		if !strings.Contains(notCovered, want) {
			t.Errorf("not_covered_by_dp lacks %q:\n%s", want, notCovered)
		}
	}
	if !strings.Contains(rep.Method, "set sizes revealed exactly, not under DP") || !strings.Contains(strings.Join(rep.Warnings, "\n"), "n = 2100") {
		t.Errorf("the report's method or warnings do not state the linkage: %q %q", rep.Method, rep.Warnings)
	}
	for _, c := range rep.Covered {
		if strings.Contains(c, "intersection") || strings.Contains(c, "IDs") {
			t.Errorf("covered_by_dp claims a linkage count: %q", c)
		}
	}
	if rep.Parties[0].Records != 2100 || !strings.Contains(hand.Report.Method, "pdp-mvds") || strings.Contains(hand.Report.Method, "linked") {
		t.Errorf("records %d; unlinked method %q", rep.Parties[0].Records, hand.Report.Method)
	}
}

// A linked run refuses, before any budget is spent (while the parties
// join), a party without an ID column, a party whose IDs repeat, and a
// records setting that the intersection does not match.
func TestPDPMVDSLinkedRefusals(t *testing.T) {
	parts, noIDs, dup := badLinkParties(t, 200)
	for _, c := range []struct {
		name, want string
		tables     []*data.Table
		records    int
	}{
		{"no ID column", "party 2's table has no ID column", []*data.Table{parts[0], noIDs, parts[2]}, 0},
		{"repeated ID", fmt.Sprintf("ID %q is on rows 0 and %d", parts[2].IDs[0], parts[2].Len()), []*data.Table{parts[0], parts[1], dup}, 0},
		{"records differ", "the linkage found 140 records every party holds, the settings' records says 150", parts, 150},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Publish(context.Background(), Options{Tables: c.tables, Budgets: []float64{1, 1, 1},
				Source: randx.NewSeeded(1), Settings: Settings{Link: true, Records: c.records, EngineSettings: method.EngineSettings{Rounds: 2}}})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error saying %q", err, c.want)
			}
		})
	}
}

// TestPDPMVDSLinkedBins: with bins chosen by the parties (bin_share), a
// linked session chooses them after the linkage, from the linked rows, so
// its table equals, byte for byte for the same seed, the run on the
// intersection aligned by hand, with the same bins; and the bins differ
// from the equal-width ones (capital-gain's zero is a bin of its own).
func TestPDPMVDSLinkedBins(t *testing.T) {
	parts, full := linkParties(t, 3000)
	order := CommonIDs(parts)
	run := func(tables []*data.Table, link bool) *Published {
		r, err := Publish(context.Background(), Options{Tables: tables, Budgets: []float64{0.5, 0.5, 0.5},
			Source: randx.NewSeeded(29), Settings: Settings{Delta: 1e-7, Link: link, EngineSettings: method.EngineSettings{Rounds: 5, BinShare: 0.05}}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	linked, hand := run(parts, true), run(prealigned(t, full, order), false)
	if linked.Synthetic.Len() != len(order) || !linked.Synthetic.Equal(hand.Synthetic) {
		t.Fatalf("the linked run (%d rows) differs from the run on the hand-aligned intersection (%d rows)", linked.Synthetic.Len(), hand.Synthetic.Len())
	}
	// The same session as one message-driven run (method.RunLocal, as the
	// network runs it): each party sends its bins as soon as it has
	// linked, possibly before another party's count reaches the
	// coordinator, which holds them until every count is in.
	o := Options{Tables: parts, Budgets: []float64{0.5, 0.5, 0.5}, Source: randx.NewSeeded(29),
		Settings: Settings{Delta: 1e-7, Link: true, EngineSettings: method.EngineSettings{Rounds: 5, BinShare: 0.05}}}
	lo, err := o.layout(parts)
	if err != nil {
		t.Fatal(err)
	}
	o.Settings.DefaultRecords(smallest(parts))
	mr, err := method.RunLocal(context.Background(), Spec, &o.Settings, lo)
	if err != nil {
		t.Fatal(err)
	}
	if !mr.Outcome.Table.Equal(linked.Synthetic) {
		t.Errorf("the message-driven run's table differs from the measured run's")
	}
	j, err := linked.Domain.Index("capital-gain")
	if err != nil {
		t.Fatal(err)
	}
	if lo, hi := linked.Domain.BinRange(j, 0); lo != 0 || hi != 0 {
		t.Errorf("capital-gain's first bin holds %v..%v, want the zero alone", lo, hi)
	}
}
