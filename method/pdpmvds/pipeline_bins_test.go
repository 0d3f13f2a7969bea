package pdpmvds_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/method"
	pdpmvdsspec "github.com/dppub/dppub/method/pdpmvds"
	pdpmvds "github.com/dppub/dppub/method/pdpmvds/roles"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// TestPDPMVDSPartyChoosesCuts joins each party of a 3-party Adult session
// (2,000 rows) with bin_share 0.1 and a seeded source, and checks what its
// bins phase sends the coordinator: for each of its numeric attributes,
// exactly the edges measurement.ChooseCuts gives on its column with the
// member's first child source at a tenth of its ρ split evenly, charged to
// its own accountant as "bins of <attribute>"; a party of categorical
// columns alone sends no edges and spends nothing.
func TestPDPMVDSPartyChoosesCuts(t *testing.T) {
	tab := adultRows(t, 2000)
	parts := columnParties(t, tab, 3)
	rhos := []float64{0.4, 0.8, 1.2}
	st := pdpmvdsspec.Settings{Records: tab.Len(), Budgets: map[string]float64{}, EngineSettings: method.EngineSettings{BinShare: 0.1}}
	sess := &pdpmvdsspec.Session{Header: method.Header{ID: "bins", Coordinator: "synth"}, Settings: st, Third: "s"}
	for k, p := range parts {
		name := pdpmvds.PartyID(k)
		sess.Owners = append(sess.Owners, name)
		sess.Schemas = append(sess.Schemas, p.Schema)
		sess.Settings.Budgets[name] = rhos[k]
	}
	sess.Settings.SetDefaults()
	first := 0
	for k, p := range parts {
		t.Run(sess.Owners[k], func(t *testing.T) {
			acct, err := privacy.NewAccountant(privacy.AccountantOptions{Party: sess.Owners[k], Budget: dp.Concentrated(rhos[k])})
			if err != nil {
				t.Fatal(err)
			}
			r, err := sess.Join(method.Local{Name: sess.Owners[k], Table: p, Accountant: acct, Source: randx.NewSeeded(7)})
			if err != nil {
				t.Fatal(err)
			}
			b, ok := r.(interface{ Unwrap() protocol.Role }).Unwrap().(*pdpmvds.Binning)
			if !ok {
				t.Fatalf("the party's role is %T, not the bins phase", r)
			}
			out, err := b.Start()
			if err != nil {
				t.Fatal(err)
			}
			if len(out) != 1 || out[0].To != pdpmvds.CoordinatorID || out[0].Type != pdpmvds.TypeCuts {
				t.Fatalf("the bins phase sent %v, want one cuts message to the coordinator", out)
			}
			var got pdpmvds.Cuts
			if err := got.UnmarshalBinary(out[0].Payload); err != nil {
				t.Fatal(err)
			}
			var numeric []int
			for j, a := range p.Schema.Attributes {
				if a.Kind == data.Numeric {
					numeric = append(numeric, j)
				}
			}
			if len(got.Edges) != len(numeric) {
				t.Fatalf("edges for %d attributes, the party holds %d numeric ones", len(got.Edges), len(numeric))
			}
			ref, err := privacy.NewAccountant(privacy.AccountantOptions{Party: "ref", Budget: dp.Concentrated(rhos[k])})
			if err != nil {
				t.Fatal(err)
			}
			src := randx.NewSeeded(7).Child()
			for _, j := range numeric {
				a := p.Schema.Attributes[j]
				values := make([]float64, p.Len())
				for i, row := range p.Rows {
					values[i] = row[j]
				}
				want, err := measurement.ChooseCuts(a, values, measurement.CutsOptions{Bins: domain.DefaultBins,
					Rho: 0.1 * rhos[k] / float64(len(numeric)), Accountant: ref, Source: src})
				if err != nil {
					t.Fatal(err)
				}
				if e := got.Edges[first+j]; !slices.Equal(e, want) {
					t.Errorf("%s: the party sent edges %v, ChooseCuts gives %v", a.Name, e, want)
				}
			}
			charges := acct.Charges()
			if len(charges) != len(numeric) {
				t.Fatalf("%d charges for %d numeric attributes: %v", len(charges), len(numeric), charges)
			}
			for i, c := range charges {
				if want := "bins of " + p.Schema.Attributes[numeric[i]].Name; c.Purpose != want {
					t.Errorf("charge %d is %q, want %q", i, c.Purpose, want)
				}
			}
			wantSpent := 0.0
			if len(numeric) > 0 {
				wantSpent = 0.1 * rhos[k]
			}
			if got := acct.Spent().Rho; math.Abs(got-wantSpent) > 1e-12 {
				t.Errorf("spent ρ=%v on bins, want %v", got, wantSpent)
			}
		})
		first += len(p.Schema.Attributes)
	}
}

// TestPDPMVDSBinsKeepZeros publishes 3,000 Adult records split among 3
// parties (ρ = 0.5 each) with the equal-width bins and with bins chosen
// by the parties (bin_share 0.05): capital-gain is 0 in about 92 % of the
// records, which both keep: the equal-width bins split the public values
// (0 the minimum, the maximum) off as bins of their own (without that
// the zeros shared [0, 6250) with other values, drawn uniformly inside
// it: 0.0 %), the chosen bins cut a bin of its own for the heavy zero
// cell of the public grid. The report charges each party with
// numeric attributes 5 % of its ρ for its own bins and none to the party
// of categorical columns, and each stays within its budget.
func TestPDPMVDSBinsKeepZeros(t *testing.T) {
	tab := adultRows(t, 3000)
	parts := columnParties(t, tab, 3)
	cg := slices.IndexFunc(tab.Schema.Attributes, func(a data.Attribute) bool { return a.Name == "capital-gain" })
	zeros := func(tb *data.Table) float64 {
		n := 0
		for _, row := range tb.Rows {
			if row[cg] == 0 {
				n++
			}
		}
		return float64(n) / float64(tb.Len())
	}
	real := zeros(tab)
	if real < 0.85 {
		t.Fatalf("capital-gain is 0 in %.3f of the real records: not the skewed column the test needs", real)
	}
	for _, tc := range []struct {
		name     string
		share    float64
		min, max float64
		binsRho  float64
	}{
		{name: "equal-width bins", share: 0, min: real - 0.03, max: real + 0.03},
		{name: "bins chosen by the parties", share: 0.05, min: real - 0.03, max: real + 0.03, binsRho: 0.05 * 0.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := pdpmvdsspec.Publish(context.Background(), pdpmvdsspec.Options{Tables: parts, Budgets: []float64{0.5, 0.5, 0.5},
				Source: randx.NewSeeded(5), Settings: pdpmvdsspec.Settings{EngineSettings: method.EngineSettings{Rounds: 10, BinShare: tc.share}}})
			if err != nil {
				t.Fatal(err)
			}
			z := zeros(res.Synthetic)
			t.Logf("capital-gain = 0 in %.4f of the synthetic rows (real %.4f)", z, real)
			if z < tc.min || z > tc.max {
				t.Errorf("capital-gain = 0 in %.4f of the synthetic rows, want %.3f–%.3f (real %.4f)", z, tc.min, tc.max, real)
			}
			whole := 0.0
			for _, p := range res.Report.Parties {
				bins := 0.0
				for _, c := range p.Charges {
					if strings.HasPrefix(c.Purpose, "bins of ") {
						bins += c.Spec.Guarantee.Rho
					}
				}
				want := tc.binsRho
				if p.Party == "party-2" { // categorical columns only
					want = 0
				}
				if math.Abs(bins-want) > 1e-12 {
					t.Errorf("%s spent ρ=%v on bins, want %v", p.Party, bins, want)
				}
				if !p.Within || p.Spent.Rho > 0.5+1e-12 {
					t.Errorf("%s spent %v of ρ=0.5", p.Party, p.Spent)
				}
				whole += bins
			}
			for _, pl := range res.Engine.Plan {
				whole += pl.Release.Noise.Rho
			}
			if res.Report.WholeRecord == nil || math.Abs(res.Report.WholeRecord.Rho-whole) > 1e-9 {
				t.Errorf("whole-record guarantee %v, want ρ=%v (every release, the bins' included)", res.Report.WholeRecord, whole)
			}
		})
	}
}

// TestPDPMVDSBinShareRefused: a bin_share of half a budget or more, or
// NaN, is refused as a settings mistake before any key is dealt or any
// role built, so no budget is spent.
func TestPDPMVDSBinShareRefused(t *testing.T) {
	tab := adultRows(t, 200)
	parts := columnParties(t, tab, 2)
	for _, share := range []float64{0.5, 0.9, math.NaN(), math.Inf(1)} {
		t.Run(fmt.Sprint(share), func(t *testing.T) {
			_, err := pdpmvdsspec.Publish(context.Background(), pdpmvdsspec.Options{Tables: parts, Budgets: []float64{0.5, 0.5},
				Source: randx.NewSeeded(1), Settings: pdpmvdsspec.Settings{EngineSettings: method.EngineSettings{BinShare: share}}})
			var se method.SettingsError
			if err == nil || !errors.As(err, &se) || !strings.Contains(err.Error(), "bin_share must be below 0.5") {
				t.Fatalf("bin_share %v: got %v, want a settings error naming bin_share", share, err)
			}
		})
	}
}
