package dpsubn3

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/dppub/dppub/method/methodtest"
	bn "github.com/dppub/dppub/method/privbayes"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

func TestPrivBayesNLTCSValidTableAndReport(t *testing.T) {
	tab := methodtest.Table(t, "nltcs")
	res, err := bn.Publish(context.Background(), bn.Options{Table: tab,
		BayesNetOptions: bn.BayesNetOptions{Settings: bn.Settings{Epsilon: 0.5}, Source: randx.NewSeeded(1)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Synthetic.Validate(); err != nil {
		t.Fatal(err)
	}
	if res.Synthetic.Len() != tab.Len() || !res.Synthetic.Schema.Equal(tab.Schema) {
		t.Errorf("synthetic table: %d rows, schema equal %v", res.Synthetic.Len(), res.Synthetic.Schema.Equal(tab.Schema))
	}
	r := res.Report
	if r.Claimed.Epsilon != 0.5 || r.Composition != privacy.Single || !r.WithinBudget() || len(r.Parties[0].Charges) != 2 {
		t.Errorf("report: %+v", r)
	}
	if !strings.Contains(strings.Join(r.Warnings, " "), "SEEDED") {
		t.Error("the report does not warn about seeded randomness")
	}
}

func TestDPSUBN3AdultThreeOwners(t *testing.T) {
	owners := methodtest.Owners(t, "adult", 3, 2)
	res, err := Publish(context.Background(), Options{Owners: owners, Source: randx.NewSeeded(3),
		Settings: Settings{Settings: bn.Settings{Epsilon: 0.2}, Frontier: 5}})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Synthetic.Validate(); err != nil {
		t.Fatal(err)
	}
	if res.Synthetic.Len() != 45222 {
		t.Errorf("%d synthetic rows, want Adult's 45222", res.Synthetic.Len())
	}
	r := res.Report
	if len(r.Parties) != 3 || r.Claimed.Epsilon != 0.2 || !r.WithinBudget() || r.Composition != privacy.ParallelOverOwners {
		t.Errorf("report: overall %v, %d parties, composition %q", r.Claimed, len(r.Parties), r.Composition)
	}
	for _, p := range r.Parties {
		if math.Abs(p.Spent.Epsilon-0.2) > 1e-12 {
			t.Errorf("%s spent %v", p.Party, p.Spent)
		}
	}
	if !strings.Contains(strings.Join(r.Warnings, " "), "RECONSTRUCTION") {
		t.Error("the report does not say DP-SUBN3 is a reconstruction")
	}
	if res.Traffic.Messages != 6 {
		t.Errorf("%d messages, want 6 (a prior and an update per owner)", res.Traffic.Messages)
	}
}

func TestBaselineErrors(t *testing.T) {
	nltcs, adult := methodtest.Table(t, "nltcs"), methodtest.Table(t, "adult")
	ctx := context.Background()
	if _, err := Publish(ctx, Options{Owners: []*data.Table{nltcs, adult}, Settings: Settings{Settings: bn.Settings{Epsilon: 1}}}); err == nil {
		t.Error("owners with different schemas were accepted")
	}
	if _, err := bn.Publish(ctx, bn.Options{Table: nltcs, BayesNetOptions: bn.BayesNetOptions{Settings: bn.Settings{Epsilon: -1}}}); err == nil {
		t.Error("a negative ε was accepted")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := bn.Publish(cancelled, bn.Options{Table: nltcs, BayesNetOptions: bn.BayesNetOptions{Settings: bn.Settings{Epsilon: 1}}}); err == nil {
		t.Error("a cancelled context was ignored")
	}
}

func BenchmarkDPSUBN3Adult3Owners(b *testing.B) {
	owners := methodtest.Owners(b, "adult", 3, 2)
	src := randx.NewSeeded(3)
	for b.Loop() {
		if _, err := Publish(context.Background(), Options{Owners: owners, Source: src,
			Settings: Settings{Settings: bn.Settings{Epsilon: 0.8}}}); err != nil {
			b.Fatal(err)
		}
	}
}
