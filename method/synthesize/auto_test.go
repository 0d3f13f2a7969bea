package synthesize

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/internal/testenv"
	"github.com/dppub/dppub/randx"
)

// publicSizes is dataset name's public domain as Publish gives it to
// auto: the schema's categories and the default equal-width bins.
func publicSizes(t *testing.T, name string) ([]int, int) {
	t.Helper()
	tab, err := datasets.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	dom, err := domain.New(tab.Schema, domain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return dom.Sizes(), tab.Len()
}

// PairNoise is C/(n·√(2π·P·ρ)): two binary attributes (one pair of 4
// cells) at n = 100 and ρ = 1 give 4/(100·√(2π)); Adult's public domain
// at ρ = 0.5 gives the 0.0213 engine-choice.md tabulates; no pair, no
// records or no budget give +Inf.
func TestPairNoise(t *testing.T) {
	adult, n := publicSizes(t, "adult")
	for _, c := range []struct {
		name  string
		sizes []int
		n     int
		rho   float64
		want  float64
	}{
		{"one binary pair", []int{2, 2}, 100, 1, 4 / (100 * math.Sqrt(2*math.Pi))},
		{"adult at 0.5", adult, n, 0.5, 0.0213},
		{"one attribute", []int{16}, 100, 1, math.Inf(1)},
		{"no records", []int{2, 2}, 0, 1, math.Inf(1)},
		{"no budget", []int{2, 2}, 100, 0, math.Inf(1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := PairNoise(c.sizes, c.n, c.rho)
			if math.IsInf(c.want, 1) {
				if !math.IsInf(got, 1) {
					t.Fatalf("got %v, want +Inf", got)
				}
				return
			}
			if math.Abs(got-c.want) > 5e-5 {
				t.Fatalf("got %.5f, want %.5f", got, c.want)
			}
		})
	}
}

// The rule on the public shapes of the measured tables
// (docs/results/synthesis/engine-choice.md): Adult (an attribute of 41
// values) gets the adaptive method up to ρ = 1, where its 3-way TVD
// measured 2–7 % better, and the paper's from ρ = 1.4 on, where the
// adaptive one measured worse at 14× the CPU; NLTCS (binary), Shuttle (at
// most 16 values) and Shuttle in 32 bins at ρ = 4 and 10 (τ = 0.0126)
// keep the adaptive method, which measured 1.2–2.8× better there; two
// parties get the paper's by shape at any budget. WDBC (31 attributes)
// is wide, and its pairs' expected TVD from noise (τ = 16 at ρ = 0.05,
// 2.6 at ρ = 2, 0.82 at ρ = 20, 0.37 at ρ = 100) is at least
// AutoWideNoise, where the adaptive method measured better (at ρ = 100
// on the benchmark's training split, 3 seeds, 2-way TVD 0.1066 against
// the paper's 0.1333), up to ρ = 300 (τ = 0.21; TestAutoMethodWideRule).
func TestAutoMethodRule(t *testing.T) {
	adult, nAdult := publicSizes(t, "adult")
	nltcs, nNLTCS := publicSizes(t, "nltcs")
	wdbc, nWDBC := publicSizes(t, "wdbc")
	shuttle := []int{16, 16, 16, 16, 16, 16, 16, 16, 16, 7}   // 9 numeric features and Class, 58000 rows
	shuttle32 := []int{32, 32, 32, 32, 32, 32, 32, 32, 32, 7} // --bins 32
	const nShuttle = 58000
	for _, c := range []struct {
		name    string
		sizes   []int
		parties int
		n       int
		rho     float64
		want    marginal.Method
	}{
		{"adult eps 0.3", adult, 1, nAdult, 0.0033, marginal.MethodPaper},
		{"adult rho 0.02", adult, 1, nAdult, 0.02, marginal.MethodAdaptive},
		{"adult rho 0.05", adult, 1, nAdult, 0.05, marginal.MethodAdaptive},
		{"adult rho 0.2", adult, 1, nAdult, 0.2, marginal.MethodAdaptive},
		{"adult eps 4", adult, 1, nAdult, 0.373, marginal.MethodAdaptive},
		{"adult rho 0.5", adult, 1, nAdult, 0.5, marginal.MethodAdaptive},
		{"adult rho 0.7", adult, 1, nAdult, 0.7, marginal.MethodAdaptive},
		{"adult rho 1", adult, 1, nAdult, 1, marginal.MethodAdaptive},
		{"adult rho 1.4", adult, 1, nAdult, 1.4, marginal.MethodPaper},
		{"adult rho 2", adult, 1, nAdult, 2, marginal.MethodPaper},
		{"adult, a tenth of the rows, rho 2", adult, 1, nAdult / 10, 2, marginal.MethodAdaptive},
		{"nltcs rho 0.05", nltcs, 1, nNLTCS, 0.05, marginal.MethodAdaptive},
		{"nltcs rho 2", nltcs, 1, nNLTCS, 2, marginal.MethodAdaptive},
		{"nltcs rho 100", nltcs, 1, nNLTCS, 100, marginal.MethodAdaptive},
		{"shuttle rho 0.05", shuttle, 1, nShuttle, 0.05, marginal.MethodAdaptive},
		{"shuttle rho 2", shuttle, 1, nShuttle, 2, marginal.MethodAdaptive},
		{"shuttle in 32 bins rho 4", shuttle32, 1, nShuttle, 4, marginal.MethodAdaptive},
		{"shuttle in 32 bins rho 10", shuttle32, 1, nShuttle, 10, marginal.MethodAdaptive},
		{"wdbc rho 0.05", wdbc, 1, nWDBC, 0.05, marginal.MethodAdaptive},
		{"wdbc rho 2", wdbc, 1, nWDBC, 2, marginal.MethodAdaptive},
		{"wdbc rho 20", wdbc, 1, nWDBC, 20, marginal.MethodAdaptive},
		{"wdbc rho 100", wdbc, 1, nWDBC, 100, marginal.MethodAdaptive},
		{"wdbc rho 300", wdbc, 1, nWDBC, 300, marginal.MethodPaper},
		{"wdbc, two parties", wdbc, 2, nWDBC, 0.05, marginal.MethodPaper},
		{"nltcs, two parties", nltcs, 2, nNLTCS, 0.05, marginal.MethodPaper},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, why := autoMethod(c.sizes, c.parties, c.n, c.rho, "")
			if got != c.want {
				t.Fatalf("got %s, want %s (PairNoise %.4f): %s", got, c.want, PairNoise(c.sizes, c.n, c.rho), why)
			}
			if !strings.HasPrefix(why, "the method ("+string(c.want)+") was chosen by method auto from public facts only") {
				t.Errorf("reason does not name the method: %q", why)
			}
		})
	}
}

// Publish with the default --method auto runs the engine the rule
// chooses on Adult: the paper's at ρ = 2 (measured better on 2-way and
// 3-way TVD and 14× cheaper), and the report says so and why. (The
// adaptive side, Adult at ρ = 0.5, is TestSynthesizeAdultAutoEngine in
// cmd/dppub/cli.)
func TestPublishAdultLargeBudgetRunsPaper(t *testing.T) {
	tab, err := datasets.Load("adult")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Publish(context.Background(), Options{Table: tab, Rho: 2, Source: randx.NewSeeded(1), NoTable: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Method != marginal.MethodPaper || len(res.Engine.Rounds) != 0 {
		t.Fatalf("ran %s with %d adaptive rounds, want the paper method", res.Method, len(res.Engine.Rounds))
	}
	want := "the method (paper) was chosen by method auto from public facts only: 15 attributes of at most 41 values on the public domain, one owner; n = 45222 and ρ = 2 give an expected TVD from noise of 0.0106"
	if !strings.HasPrefix(res.Auto, want) {
		t.Errorf("Result.Auto %q, want it to start %q", res.Auto, want)
	}
	found := false
	for _, a := range res.Report.Assumptions {
		found = found || a == res.Auto
	}
	if !found {
		t.Errorf("the report's assumptions lack the choice: %q", res.Report.Assumptions)
	}
}

// Under add/remove the pair noise τ is replace-one's over √2 (L2
// sensitivity 1 against √2), so the precise-budget rule, read off noise
// levels, takes Adult to the paper engine at half the ρ: ρ = 0.7 (τ =
// 0.0127) goes to the paper engine, ρ = 0.5 (τ = 0.0150) stays adaptive.
func TestAutoMethodUnderAddRemove(t *testing.T) {
	adult, nAdult := publicSizes(t, "adult")
	if r, a := PairNoise(adult, nAdult, 0.7), PairNoiseUnder(adult, nAdult, 0.7, dp.NeighboursAddRemove); math.Abs(a-r/math.Sqrt2) > 1e-12 {
		t.Errorf("τ under add/remove %v, replace-one %v: want the ratio √2", a, r)
	}
	for _, c := range []struct {
		rho  float64
		nb   dp.Neighbours
		want marginal.Method
	}{
		{0.7, dp.NeighboursReplaceOne, marginal.MethodAdaptive},
		{0.7, dp.NeighboursAddRemove, marginal.MethodPaper},
		{0.5, dp.NeighboursAddRemove, marginal.MethodAdaptive},
		{0.0033, dp.NeighboursAddRemove, marginal.MethodPaper},
		{0.03056, dp.NeighboursAddRemove, marginal.MethodAdaptive},
	} {
		t.Run(fmt.Sprintf("%v %s", c.rho, c.nb), func(t *testing.T) {
			got, why := autoMethod(adult, 1, nAdult, c.rho, c.nb)
			if got != c.want {
				t.Fatalf("got %s, want %s: %s", got, c.want, why)
			}
			if c.nb == dp.NeighboursAddRemove && !strings.Contains(why, "(the released count)") {
				t.Errorf("reason does not say n is the released count: %q", why)
			}
		})
	}
}

// The wide-table rule on the measured wide tables
// (docs/results/synthesis/engine-choice.md, "Wide tables"): the adaptive
// method where every pair's expected TVD from noise τ is at least
// AutoWideNoise, where it measured better (WDBC at ε = 1 and 4, Musk at
// ε = 1; the generated `wide` and `zeroinfl`, wide-vs-mst.md, are not in
// the shared data), Musk at ρ = 1 too (τ = 1.8; the paper's there before
// the adaptive method's rounds on wide tables were cut to about 2·d,
// when the bound was 2), the paper's where τ is below it (Musk at ρ =
// 100; Big5 without its attributes of more than 64 values at ε = 1,
// where the adaptive method measured worse, but not at ε = 0.3, where
// it measured level)
// and for an attribute of more than 64 values whatever τ: Big5 (an
// attribute of 254 values), where the adaptive method measured worse at
// ε = 1 (τ = 0.43) and level at 0.3 (τ = 1.3), and WDBC with one
// attribute grown to 65 values. (ε, δ) = (0.3, 1, 4; 1e-5) are ρ =
// 0.003303, 0.03056, 0.3731.
func TestAutoMethodWideRule(t *testing.T) {
	testenv.SharedData(t, "big5")
	testenv.SharedData(t, "musk2")
	big5, nBig5 := publicSizes(t, "big5")
	musk, nMusk := publicSizes(t, "musk2")
	wdbc, nWDBC := publicSizes(t, "wdbc")
	huge := append(slices.Clone(wdbc[1:]), 65)
	var big5n []int // Big5 without its attributes of more than 64 values
	for _, v := range big5 {
		if v <= marginal.AutoMaxValues {
			big5n = append(big5n, v)
		}
	}
	for _, c := range []struct {
		name  string
		sizes []int
		n     int
		rho   float64
		tau   float64
		want  marginal.Method
		wide  bool // the wide-table rule decides
	}{
		{"wdbc eps 1", wdbc, nWDBC, 0.03056, 20.9, marginal.MethodAdaptive, true},
		{"wdbc eps 4", wdbc, nWDBC, 0.3731, 5.98, marginal.MethodAdaptive, true},
		{"musk eps 1", musk, nMusk, 0.03056, 10.3, marginal.MethodAdaptive, true},
		{"musk eps 4", musk, nMusk, 0.3731, 2.95, marginal.MethodAdaptive, true},
		{"musk rho 1", musk, nMusk, 1, 1.80, marginal.MethodAdaptive, true},
		{"musk rho 100", musk, nMusk, 100, 0.180, marginal.MethodPaper, true},
		{"big5 without age and country, eps 0.3", big5n, nBig5, 0.003303, 0, marginal.MethodAdaptive, true},
		{"big5 without age and country, eps 1", big5n, nBig5, 0.03056, 0, marginal.MethodPaper, true},
		{"big5 eps 0.3", big5, nBig5, 0.003303, 1.30, marginal.MethodPaper, false},
		{"big5 eps 1", big5, nBig5, 0.03056, 0.426, marginal.MethodPaper, false},
		{"wdbc with an attribute of 65 values", huge, nWDBC, 0.03056, 0, marginal.MethodPaper, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			tau := PairNoise(c.sizes, c.n, c.rho)
			if c.tau > 0 && math.Abs(tau-c.tau) > 0.01*c.tau {
				t.Errorf("τ = %.4g, want %.3g", tau, c.tau)
			}
			got, why := autoMethod(c.sizes, 1, c.n, c.rho, dp.NeighboursReplaceOne)
			if got != c.want {
				t.Fatalf("got %s, want %s: %s", got, c.want, why)
			}
			if rule := strings.Contains(why, "adaptive on a wider table when that expected TVD is at least"); rule != c.wide {
				t.Errorf("the reason states the wide-table rule: %v, want %v: %q", rule, c.wide, why)
			}
		})
	}
}
