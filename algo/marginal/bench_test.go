package marginal

import (
	"context"
	"testing"

	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

func BenchmarkCountAdult2Way(b *testing.B) {
	_, ds := adult(b)
	for b.Loop() {
		if _, err := Count(ds, []int{0, 12}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCountAdult3Way(b *testing.B) {
	_, ds := adult(b)
	for b.Loop() {
		if _, err := Count(ds, []int{0, 6, 12}); err != nil {
			b.Fatal(err)
		}
	}
}

// benchTargets returns the post-processed marginals Synthesize selects and
// measures on a dataset at total budget ρ = 0.5 (one owner).
func benchTargets(b *testing.B, name string) ([]*Marginal, *Dataset) {
	b.Helper()
	dom, ds := load(b, name)
	a := zcdpAccountant(b, "owner", 0.5)
	m, err := NewLocalMeasurer(LocalOptions{Data: ds, Accountants: []*privacy.Accountant{a}, Source: randx.NewSeeded(1)})
	if err != nil {
		b.Fatal(err)
	}
	res, err := Synthesize(context.Background(), m, Options{Domain: dom, Records: ds.Len(), Source: randx.NewSeeded(2),
		Parties: []Party{{Name: "owner", Rho: 0.5, Attrs: allAttrs(dom.Len())}}, GUM: GUMOptions{Rounds: 1}})
	if err != nil {
		b.Fatal(err)
	}
	targets := make([]*Marginal, len(res.Targets))
	for i, t := range res.Targets {
		targets[i] = t.Marginal
	}
	return targets, ds
}

func benchGUM(b *testing.B, name string, rounds int) {
	targets, ds := benchTargets(b, name)
	for b.Loop() {
		if _, err := GUM(context.Background(), ds.Sizes, targets, GUMOptions{Rows: ds.Len(), Rounds: rounds, Source: randx.NewSeeded(3)}); err != nil {
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
