package pdpmvds_test

import (
	"context"
	"github.com/dppub/dppub/method"
	pdpmvdsspec "github.com/dppub/dppub/method/pdpmvds"
	"github.com/dppub/dppub/method/synthesize"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/eval"
	"github.com/dppub/dppub/internal/testenv"
	"github.com/dppub/dppub/method/methodtest"
	pdpmvds "github.com/dppub/dppub/method/pdpmvds/roles"
	"github.com/dppub/dppub/randx"
)

func adultRows(t *testing.T, n int, cols ...string) *data.Table {
	t.Helper()
	full := methodtest.Table(t, "adult")
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	tab := full.Subset(rows)
	if len(cols) > 0 {
		var err error
		if tab, err = tab.SelectColumns(cols...); err != nil {
			t.Fatal(err)
		}
	}
	return tab
}

// columnParties splits tab's columns among k parties
// (synthesize.VerticalSplit).
func columnParties(t *testing.T, tab *data.Table, k int) []*data.Table {
	t.Helper()
	parts, err := synthesize.VerticalSplit(tab, k)
	if err != nil {
		t.Fatal(err)
	}
	return parts
}

// TestPDPMVDSMatchesSingleOwner publishes the first 3000 Adult records
// split among 3 owners (ρ = 0.5 each) through the commodity protocol and
// through the single-owner engine at the same budgets, 3 seeds each. In
// the exact noise mode the protocol's noise has the single-owner
// distribution, so the mean 2-way total-variation distances must agree
// within noise: across seeds they spread by about 0.0015, so the mean of 3
// has a standard error of about 0.001 and the tolerance 0.005 is 5
// standard errors. The insider-safe mode adds (K+1)/K noise variance and
// may be slightly worse (tolerance 0.01).
func TestPDPMVDSMatchesSingleOwner(t *testing.T) {
	tab := adultRows(t, 3000)
	parts := columnParties(t, tab, 3)
	budgets := []float64{0.5, 0.5, 0.5}
	owners, err := synthesize.EvenParties(tab.Schema, budgets)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var single, exact, safe float64
	const seeds = 3
	for seed := uint64(1); seed <= seeds; seed++ {
		s, err := synthesize.Publish(ctx, synthesize.Options{Table: tab, Parties: owners, Rounds: 20, Source: randx.NewSeeded(seed)})
		if err != nil {
			t.Fatal(err)
		}
		tv, err := eval.SynthTVD(tab, s.Synthetic, s.Domain, nil)
		if err != nil {
			t.Fatal(err)
		}
		single += tv.TwoWay / seeds
		for _, mode := range []pdpmvds.NoiseMode{pdpmvds.NoiseExact, pdpmvds.NoiseInsiderSafe} {
			r, err := pdpmvdsspec.Publish(ctx, pdpmvdsspec.Options{Tables: parts, Budgets: budgets, Source: randx.NewSeeded(seed + 100), Settings: pdpmvdsspec.Settings{Noise: mode, EngineSettings: method.EngineSettings{Rounds: 20}}})
			if err != nil {
				t.Fatal(err)
			}
			tv, err := eval.SynthTVD(tab, r.Synthetic, r.Domain, nil)
			if err != nil {
				t.Fatal(err)
			}
			if mode == pdpmvds.NoiseExact {
				exact += tv.TwoWay / seeds
			} else {
				safe += tv.TwoWay / seeds
			}
		}
	}
	t.Logf("mean 2-way TVD: single owner %.4f, protocol exact %.4f, insider-safe %.4f", single, exact, safe)
	if single > 0.1 {
		t.Fatalf("single-owner TVD %.4f: the comparison is meaningless", single)
	}
	if d := exact - single; d > 0.005 || d < -0.005 {
		t.Errorf("protocol (exact noise) TVD %.4f vs single owner %.4f", exact, single)
	}
	if safe-single > 0.01 {
		t.Errorf("protocol (insider-safe noise) TVD %.4f vs single owner %.4f", safe, single)
	}
}

// TestPDPMVDSPaillierSmall runs the Paillier suite end to end on 6 Adult
// columns of 300 records with INSECURE 512-bit keys (an in-process dealer),
// and checks the output, the budgets and what the report says.
func TestPDPMVDSPaillierSmall(t *testing.T) {
	tab := adultRows(t, 300, "age", "education", "marital-status", "relationship", "sex", "income")
	parts := columnParties(t, tab, 3)
	budgets := []float64{1, 2, 4}
	res, err := pdpmvdsspec.Publish(context.Background(), pdpmvdsspec.Options{Tables: parts, Budgets: budgets, Source: randx.NewSeeded(3), Settings: pdpmvdsspec.Settings{SSPP: pdpmvds.SuitePaillier, KeyBits: 512, InsecureTestKeys: true, EngineSettings: method.EngineSettings{Rounds: 5}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Synthetic.Len() != 300 || len(res.Synthetic.Schema.Attributes) != 6 || !res.KeysDealt {
		t.Fatalf("got %d rows × %d columns (keys dealt: %v)", res.Synthetic.Len(), len(res.Synthetic.Schema.Attributes), res.KeysDealt)
	}
	for _, p := range res.Report.Parties {
		if p.Spent.Rho > p.Budget.Rho*(1+1e-9) {
			t.Errorf("%s spent %v of %v", p.Party, p.Spent.Rho, p.Budget.Rho)
		}
	}
	text := res.Report.Text()
	for _, want := range []string{"sign step", "dealt in this process", "INSECURE", "t·r + r'", "SEEDED", "no two parties collude"} {
		if !strings.Contains(text, want) {
			t.Errorf("report does not mention %q", want)
		}
	}
	var pdec int64
	for _, ph := range res.Phases {
		for _, o := range ph.Ops {
			pdec += o.PartialDecryptions
		}
	}
	if pdec == 0 {
		t.Error("no partial decryption was counted")
	}
}

// TestPDPMVDSAlignsByID: the same records with IDs, one owner's rows
// shuffled, publish exactly what the aligned tables publish.
func TestPDPMVDSAlignsByID(t *testing.T) {
	tab := adultRows(t, 200, "age", "sex", "race", "income")
	tab.Schema.ID = "id"
	tab.IDs = make([]string, tab.Len())
	for i := range tab.IDs {
		tab.IDs[i] = "r" + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	parts, err := data.SplitVertical(tab, [][]string{{"age", "sex"}, {"race", "income"}})
	if err != nil {
		t.Fatal(err)
	}
	run := func(ps []*data.Table) *data.Table {
		res, err := pdpmvdsspec.Publish(context.Background(), pdpmvdsspec.Options{Tables: ps, Budgets: []float64{1, 1}, Source: randx.NewSeeded(8), Settings: pdpmvdsspec.Settings{EngineSettings: method.EngineSettings{Rounds: 5}}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Synthetic
	}
	want := run(parts)
	order := make([]int, parts[1].Len())
	for i := range order {
		order[i] = (i*37 + 11) % len(order)
	}
	shuffled := []*data.Table{parts[0], parts[1].Subset(order)}
	if got := run(shuffled); !got.Equal(want) {
		t.Fatal("shuffling one owner's rows changed the output: records were not aligned by ID")
	}
	parts[1].IDs[0] = "stranger"
	if _, err := pdpmvdsspec.Publish(context.Background(), pdpmvdsspec.Options{Tables: parts, Budgets: []float64{1, 1}, Source: randx.NewSeeded(8)}); err == nil {
		t.Fatal("owners with different IDs published")
	}
}

// TestPDPMVDSBig5 publishes 2000 Big5 records, 12 columns split among 3
// owners, through the commodity suite (skips without ../shared/data).
func TestPDPMVDSBig5(t *testing.T) {
	testenv.SharedData(t, "big5")
	full := methodtest.Table(t, "big5")
	rows := make([]int, 2000)
	for i := range rows {
		rows[i] = i
	}
	names := full.Schema.Names()[:12]
	tab, err := full.Subset(rows).SelectColumns(names...)
	if err != nil {
		t.Fatal(err)
	}
	parts := columnParties(t, tab, 3)
	res, err := pdpmvdsspec.Publish(context.Background(), pdpmvdsspec.Options{Tables: parts, Budgets: []float64{1, 1, 1}, Source: randx.NewSeeded(2), Settings: pdpmvdsspec.Settings{EngineSettings: method.EngineSettings{Rounds: 5}}})
	if err != nil {
		t.Fatal(err)
	}
	tv, err := eval.SynthTVD(tab, res.Synthetic, res.Domain, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tv.TwoWay > 0.2 {
		t.Errorf("Big5 2-way TVD %.3f", tv.TwoWay)
	}
}
