package infer_test

import (
	"context"
	"testing"

	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/infer"
	"github.com/dppub/dppub/engine/marginal/internal/domaintest"
	"github.com/dppub/dppub/engine/marginal/internal/enginetest"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// The GUM benchmarks fit the targets the whole engine selects and
// measures, so they run from outside the package (the engine imports it).

// benchTargets returns the post-processed marginals Synthesize selects and
// measures on a dataset at total budget ρ = 0.5 (one owner).
func benchTargets(b *testing.B, name string) ([]*domain.Marginal, *domain.Dataset) {
	b.Helper()
	dom, ds := domaintest.Load(b, name)
	a := domaintest.Accountant(b, "owner", 0.5)
	m, err := measurement.NewLocalMeasurer(measurement.LocalOptions{Data: ds, Accountants: []*privacy.Accountant{a}, Source: randx.NewSeeded(1)})
	if err != nil {
		b.Fatal(err)
	}
	res, err := marginal.Synthesize(context.Background(), m, marginal.Options{Domain: dom, Records: ds.Len(), Source: randx.NewSeeded(2),
		Parties: []marginal.Party{{Name: "owner", Rho: 0.5, Attrs: enginetest.AllAttrs(dom.Len())}}, GUM: infer.GUMOptions{Rounds: 1}})
	if err != nil {
		b.Fatal(err)
	}
	targets := make([]*domain.Marginal, len(res.Targets))
	for i, t := range res.Targets {
		targets[i] = t.Marginal
	}
	return targets, ds
}

func benchGUM(b *testing.B, name string, rounds int) {
	targets, ds := benchTargets(b, name)
	for b.Loop() {
		if _, err := infer.GUM(context.Background(), ds.Sizes, targets, infer.GUMOptions{Rows: ds.Len(), Rounds: rounds, Source: randx.NewSeeded(3)}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(targets)), "marginals")
}

// One round over every selected marginal (plus the initial draw).
func BenchmarkGUMRoundAdult(b *testing.B) { benchGUM(b, "adult", 1) }
func BenchmarkGUMRoundBig5(b *testing.B)  { benchGUM(b, "big5", 1) }

// The whole GUM with its default 30 rounds: the targets are 5 s on
// Adult and 20 s on Big5.
func BenchmarkGUMAdult(b *testing.B) { benchGUM(b, "adult", 0) }
func BenchmarkGUMBig5(b *testing.B)  { benchGUM(b, "big5", 0) }

// resampledAdultGUM times GUM fitting rows records to the targets
// selected on Adult (the work per record is what grows with the data),
// with its passes split among workers goroutines, or, with reindex, the
// plain updater its speed-ups replaced (one goroutine, every update
// re-counting its cells).
func resampledAdultGUM(b *testing.B, rows, workers int, reindex bool) {
	targets, ds := benchTargets(b, "adult")
	for b.Loop() {
		o := infer.GUMOptions{Rows: rows, Source: randx.NewSeeded(3)}
		if err := infer.GUMDefaults(&o); err != nil {
			b.Fatal(err)
		}
		if _, err := infer.GUMWith(context.Background(), ds.Sizes, targets, o, workers, reindex); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows), "rows")
}

func BenchmarkGUMAdult300kRows(b *testing.B)        { resampledAdultGUM(b, 300000, 2, false) }
func BenchmarkGUMAdult300kRowsOneCore(b *testing.B) { resampledAdultGUM(b, 300000, 1, false) }
func BenchmarkGUMAdult300kRowsSorting(b *testing.B) { resampledAdultGUM(b, 300000, 1, true) }
