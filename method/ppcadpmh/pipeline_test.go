package ppcadpmh

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/dppub/dppub/ownerstats"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method/methodtest"
	"github.com/dppub/dppub/method/ppcadpmh/ppca"
	ppcadpmh "github.com/dppub/dppub/method/ppcadpmh/roles"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

func TestPPCADPMHAdultEndToEnd(t *testing.T) {
	owners := methodtest.Owners(t, "adult", 3, 1)
	res, err := Publish(context.Background(), Options{Owners: owners, Source: randx.NewSeeded(2), Settings: Settings{Epsilon: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Synthetic.Len() != 45222 || len(res.Synthetic.Schema.Attributes) != 15 {
		t.Fatalf("synthetic table %d × %d, want 45222 × 15", res.Synthetic.Len(), len(res.Synthetic.Schema.Attributes))
	}
	if err := res.Synthetic.Validate(); err != nil {
		t.Fatal(err)
	}
	if !res.Report.WithinBudget() || len(res.Report.Parties) != 3 {
		t.Fatalf("report: within=%v parties=%d", res.Report.WithinBudget(), len(res.Report.Parties))
	}
	for _, p := range res.Report.Parties {
		if math.Abs(p.Spent.Epsilon-1) > 1e-9 {
			t.Fatalf("%s spent %v, want ε=1", p.Party, p.Spent)
		}
	}
	if !strings.Contains(strings.Join(res.Report.Warnings, " "), "SEEDED") {
		t.Fatal("a seeded run's report does not warn that it is seeded")
	}
}

func TestPPCAPaperCalibrationReportsTrueGuarantee(t *testing.T) {
	owners := methodtest.Owners(t, "adult", 2, 3)
	res, err := Publish(context.Background(), Options{Owners: owners, Source: randx.NewSeeded(4), Settings: Settings{Epsilon: 1, Calibration: ppca.Paper, PaperLatent: true}})
	if err != nil {
		t.Fatal(err)
	}
	// p = 106 for Adult in 8 one-hot groups and 7 scalars, Lap(2p/ε) =
	// Lap(212) on both sums: Σx moves by at most 23 and the second moment
	// by at most 212 (ppca.RowBounds.PaperOuterL1), so the true total is
	// ε = 235/212 = 1.108, not the 0.5 + 26.75 = 27.25 of rows in [0,1]^p.
	r := res.Report
	const want = 235.0 / 212
	if r.Actual == nil || math.Abs(r.Actual.Epsilon-want) > 1e-4*want || r.Claimed.Epsilon != 1 {
		t.Fatalf("report: actual %v, claimed %v; want the true total ε = %.4g beside the claimed 1", r.Actual, r.Claimed, want)
	}
	if r.WithinBudget() || r.Parties[0].Actual == nil || r.Parties[0].Actual.Epsilon != r.Actual.Epsilon {
		t.Fatalf("owner-1 within budget %v at actual %v", r.Parties[0].Within, r.Parties[0].Actual)
	}
	if r.Status != privacy.NoneSeeded || !strings.Contains(r.Headline(), "actually ε=1.108") {
		t.Fatalf("status %q, headline %q", r.Status, r.Headline())
	}
	if !strings.Contains(strings.Join(res.Report.NotCovered, " "), "derived from a real record") {
		t.Fatalf("paper latent codes not reported as uncovered: %v", res.Report.NotCovered)
	}
}

func TestPPCAOwnersNeedTwoRows(t *testing.T) {
	owners := methodtest.Owners(t, "adult", 2, 5)
	owners[1] = owners[1].Subset([]int{0})
	_, err := Publish(context.Background(), Options{Owners: owners, Source: randx.NewSeeded(6), Settings: Settings{Epsilon: 1}})
	if err == nil || !strings.Contains(err.Error(), "at least 2") {
		t.Fatalf("want a too-few-rows error, got %v", err)
	}
}

func BenchmarkPPCADPMHAdult3Owners(b *testing.B) {
	for _, mode := range []ppcadpmh.NoiseMode{ppcadpmh.Local, ppcadpmh.SecureAggregate} {
		b.Run(string(mode), func(b *testing.B) {
			owners := methodtest.Owners(b, "adult", 3, 1)
			src := randx.NewSecure()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := Publish(context.Background(), Options{Owners: owners, Source: src, Settings: Settings{Epsilon: 1, Noise: mode}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Owners who bring statistics computed elsewhere (the Beam pipeline's
// file format, here ownerstats.FromTable) publish exactly what they
// publish from their rows: the moments are exact integers.
func TestPPCADPMHFromStatisticsEqualsFromRows(t *testing.T) {
	owners := methodtest.Owners(t, "adult", 3, 7)
	var stats []*ownerstats.Statistics
	for _, o := range owners {
		stats = append(stats, methodtest.FileStatistics(t, o, ownerstats.Config{Schema: o.Schema}))
	}
	settings := Settings{Epsilon: 1, Mechanism: ppca.Gaussian, Delta: 1e-6, K: 4}
	rows, err := Publish(context.Background(), Options{Owners: owners, Settings: settings, Source: randx.NewSeeded(8)})
	if err != nil {
		t.Fatal(err)
	}
	fromStats, err := Publish(context.Background(), Options{Statistics: stats, Schema: owners[0].Schema,
		Settings: settings, Source: randx.NewSeeded(8)})
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := data.WriteCSV(&a, rows.Synthetic); err != nil {
		t.Fatal(err)
	}
	if err := data.WriteCSV(&b, fromStats.Synthetic); err != nil {
		t.Fatal(err)
	}
	if a.Len() == 0 || !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatalf("the owners' statistics published other rows than their tables (%d vs %d bytes)", b.Len(), a.Len())
	}
	paper := settings
	paper.PaperLatent = true
	if _, err := Publish(context.Background(), Options{Statistics: stats, Schema: owners[0].Schema,
		Settings: paper, Source: randx.NewSeeded(8)}); err == nil || !strings.Contains(err.Error(), "only statistics") {
		t.Fatalf("paper latent codes from statistics: %v", err)
	}
}

// The report says when the noise dwarfs the second moment (WDBC's 569
// rows at ε = 1: noise standard deviation 4.5 on entries in [0, 1]), and
// not on Adult at ε = 1 (0.024).
func TestPPCAReportWarnsWhenMostlyNoise(t *testing.T) {
	for _, c := range []struct {
		dataset string
		want    bool
	}{{"wdbc", true}, {"adult", false}} {
		t.Run(c.dataset, func(t *testing.T) {
			owners := methodtest.Owners(t, c.dataset, 3, 1)
			res, err := Publish(context.Background(), Options{Owners: owners, Source: randx.NewSeeded(2), Settings: Settings{Epsilon: 1}})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(strings.Join(res.Report.Warnings, " "), "mostly noise"); got != c.want {
				t.Fatalf("warns of noise: %v, want %v (warnings %q)", got, c.want, res.Report.Warnings)
			}
		})
	}
}
