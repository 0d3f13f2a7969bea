package marginal

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/internal/domaintest"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// adaptiveOnSmall runs the adaptive method on a small dependent table and
// returns the result and the accountant.
func adaptiveOnSmall(t *testing.T, rho float64, ao AdaptiveOptions) (*Result, *privacy.Accountant) {
	t.Helper()
	sizes := []int{4, 3, 5, 2, 6}
	ds := domaintest.RandomDataset(sizes, 3000, 0.8, randx.NewSeeded(5))
	dom := sizedDomain(t, sizes)
	a := zcdpAccountant(t, "owner", rho)
	m, err := measurement.NewLocalMeasurer(measurement.LocalOptions{Data: ds, Accountants: []*privacy.Accountant{a}, Source: randx.NewSeeded(6)})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Synthesize(context.Background(), m, Options{Domain: dom, Records: ds.Len(), Method: MethodAdaptive, Adaptive: ao,
		Parties: owner("owner", rho, len(sizes)), Source: randx.NewSeeded(7)})
	if err != nil {
		t.Fatal(err)
	}
	return res, a
}

// sizedDomain is a domain of categorical attributes of the given sizes.
func sizedDomain(t *testing.T, sizes []int) *domain.Domain {
	t.Helper()
	var s data.Schema
	for j, n := range sizes {
		a := data.Attribute{Name: fmt.Sprintf("a%d", j), Kind: data.Categorical}
		for v := range n {
			a.Categories = append(a.Categories, fmt.Sprint(v))
		}
		s.Attributes = append(s.Attributes, a)
	}
	d, err := domain.New(s, domain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The rounds spend the budget exactly with either selection mechanism:
// the accountant's total is ρ (to its 1e-9 relative tolerance), and it
// equals the sum of the rounds' and the one-way marginals' costs, each
// selection costing ε²/8 (exponential) or ε²/2 (permute-and-flip).
func TestAdaptiveSpendsBudgetExactly(t *testing.T) {
	for _, sel := range []measurement.SelectMechanism{measurement.SelectExponential, measurement.SelectPermuteAndFlip} {
		for _, rho := range []float64{0.01, 0.3, 2} {
			t.Run(fmt.Sprintf("%s/rho=%g", sel, rho), func(t *testing.T) {
				res, a := adaptiveOnSmall(t, rho, AdaptiveOptions{Selection: sel})
				if spent := a.Spent().Rho; math.Abs(spent-rho) > 1e-9*rho {
					t.Errorf("accountant spent %v", spent)
				}
				div := map[measurement.SelectMechanism]float64{measurement.SelectExponential: 8, measurement.SelectPermuteAndFlip: 2}[sel]
				total := 0.0
				for _, p := range res.Plan {
					total += p.Release.Noise.Rho
				}
				for _, r := range res.Rounds {
					total += r.SelectRho
					if want := r.Epsilon * r.Epsilon / div; math.Abs(r.SelectRho-want) > 1e-12*want {
						t.Errorf("selection at ε = %v charged ρ = %v, want %v", r.Epsilon, r.SelectRho, want)
					}
				}
				if math.Abs(total-rho) > 1e-9*rho {
					t.Errorf("rounds and one-ways cost %v", total)
				}
				if len(res.Rounds) == 0 {
					t.Error("no adaptive round ran")
				}
			})
		}
	}
}

// No selected set grows the model beyond the cap: the final junction tree
// has at most MaxCells cells (the cap at the full budget), even though the
// workload's triples alone would exceed it, whether each selection is
// followed by a refit or four follow one another (the later ones tested
// against the model with the earlier picks).
func TestAdaptiveRespectsModelCap(t *testing.T) {
	const maxCells = 200
	for _, batch := range []int{1, 4} {
		t.Run(fmt.Sprintf("batch %d", batch), func(t *testing.T) {
			res, _ := adaptiveOnSmall(t, 5, AdaptiveOptions{MaxCells: maxCells, Batch: batch, Workload: [][]int{{0, 1, 2}, {2, 3, 4}, {0, 4}, {1, 3}}})
			if c := res.Model.Cells(); c > maxCells {
				t.Errorf("model has %v cells, cap %d (sets %v)", c, maxCells, res.Model.Sets())
			}
			sizes := []int{4, 3, 5, 2, 6}
			for _, r := range res.Rounds {
				c := 1
				for _, a := range r.Attrs {
					c *= sizes[a]
				}
				if c > maxCells {
					t.Errorf("round measured %v of %d cells, above the cap", r.Attrs, c)
				}
			}
		})
	}
}

// RhoFor inverts dp.ZCDPEpsilon: the ρ it returns converts to at most ε,
// and a hair more would exceed it.
func TestRhoForInvertsConversion(t *testing.T) {
	for _, eps := range []float64{0.3, 1, 4} {
		rho := rhoAt(t, eps)
		if e := dp.ZCDPEpsilon(rho, 1e-5); e > eps {
			t.Errorf("ε = %v: ρ = %v converts to %v", eps, rho, e)
		}
		if e := dp.ZCDPEpsilon(rho*(1+1e-9), 1e-5); e <= eps*(1-1e-6) {
			t.Errorf("ε = %v: ρ = %v is not the largest (ρ·(1+1e-9) gives %v)", eps, rho, e)
		}
	}
}

// On Shuttle (../shared/data; 9 numeric attributes on 16 equal-width
// bins, the harness's public bins) at the ρ of (ε, δ) = (1, 1e-5), the
// adaptive method's mean 2-way TVD beats the paper engine's by far.
// Measured over seeds 100–102: paper 0.0147–0.0152, adaptive
// 0.0080–0.0084, a gap of 0.006 against a run-to-run spread under 0.0005
// per method. The seed is fixed, so the test is deterministic; another
// seed would fail only if the gap shrank twelvefold. (On Adult the two
// engines are level on these bins since equal-width integer bins follow
// the continuous rule: paper 0.0222–0.0228, adaptive 0.0224–0.0235.)
func TestAdaptiveBeatsPaperOnShuttle(t *testing.T) {
	if testing.Short() {
		t.Skip("runs both engines on Shuttle (about 10 s)")
	}
	dom, ds := load(t, "shuttle")
	rho := rhoAt(t, 1)
	paper := engineRun(t, dom, ds, rho, Options{OneWayNoise: measurement.Gaussian}, 100)
	adaptive := engineRun(t, dom, ds, rho, Options{Method: MethodAdaptive}, 100)
	p, a := meanTVD2(t, ds, paper.Data), meanTVD2(t, ds, adaptive.Data)
	t.Logf("mean 2-way TVD: paper %.4f, adaptive %.4f", p, a)
	if !(a < p) {
		t.Errorf("adaptive 2-way TVD %.4f is not below the paper engine's %.4f", a, p)
	}
}

// Capital-gain is 0 in 91.6 % of Adult's rows: the data-adaptive bins
// keep 0 as a bin of its own, so decoding returns exactly 0 for it. The
// noisy zero count (σ ≈ 32 records at ρ = 0.001) would have to fall below
// half the ≈ 2800-record target, 700 σ away: the failure probability is
// nil for practical purposes.
func TestChooseCutsKeepsPointMass(t *testing.T) {
	tab, err := datasets.Load("adult")
	if err != nil {
		t.Skipf("adult not available: %v", err)
	}
	j, _ := tab.Schema.Index("capital-gain")
	a := tab.Schema.Attributes[j]
	col := make([]float64, tab.Len())
	for i, r := range tab.Rows {
		col[i] = r[j]
	}
	acct := zcdpAccountant(t, "owner", 0.001)
	cuts, err := measurement.ChooseCuts(a, col, measurement.CutsOptions{Rho: 0.001, Accountant: acct, Source: randx.NewSeeded(1)})
	if err != nil {
		t.Fatal(err)
	}
	if len(cuts) < 2 || cuts[0] != 0 || cuts[1] != 1 {
		t.Fatalf("cuts %v: 0 is not a bin of its own", cuts)
	}
	if s := acct.Spent().Rho; math.Abs(s-0.001) > 1e-12 {
		t.Errorf("spent %v, want 0.001", s)
	}
	dom, err := domain.New(tab.Schema, domain.Options{Cuts: map[string][]float64{a.Name: cuts}})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := dom.Bin(j, 0); b != 0 {
		t.Errorf("0 falls in bin %d", b)
	}
	if lo, hi := dom.BinRange(j, 0); lo != 0 || hi != 0 {
		t.Errorf("bin 0 stands for %v..%v, want 0..0", lo, hi)
	}
	// Every value lands in the bin whose range holds it, and decodes to an
	// integer inside it.
	src := randx.NewSeeded(2)
	one := domain.NewDataset(dom.Sizes(), 1)
	for _, v := range []float64{0, 1, 2174, 99999} {
		b, _ := dom.Bin(j, v)
		lo, hi := dom.BinRange(j, b)
		if v < lo || v > hi {
			t.Errorf("value %v in bin %d = %v..%v", v, b, lo, hi)
		}
		one.Cols[j][0] = uint16(b)
		back, err := dom.Decode(one, src)
		if err != nil {
			t.Fatal(err)
		}
		if x := back.Rows[0][j]; x != math.Trunc(x) || x < lo || x > hi {
			t.Errorf("bin %d decodes to %v", b, x)
		}
	}
}

// AIM's 16·d rounds unless a round's noise would pass 3 % of the records:
// the budgets are the benchmark's (ρ of ε = 0.3, 1, 4 at δ = 1e-5) and
// the sizes its training splits.
func TestDefaultRounds(t *testing.T) {
	cases := []struct {
		name string
		d, n int
		rho  float64
		want int
	}{
		{"Adult, eps 0.3", 15, 36178, 0.00330, 240},
		{"NLTCS, eps 0.3", 16, 17259, 0.00330, 256},
		{"Shuttle, eps 0.3", 10, 46400, 0.00330, 160},
		{"WDBC, eps 4", 31, 455, 0.3731, 62},
		{"WDBC, eps 1", 31, 455, 0.03056, 62},    // 0.9·ρ·(0.03·455)² ≈ 5: the floor 2·d
		{"Musk, eps 1", 169, 5278, 0.03056, 689}, // between the floor and 16·d
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := DefaultRounds(c.d, c.n, c.rho, 0.1)
			if got != c.want {
				t.Fatalf("DefaultRounds(%d, %d, %v) = %d, want %d", c.d, c.n, c.rho, got, c.want)
			}
			if got > 16*c.d || got < 2*c.d {
				t.Fatalf("%d rounds outside [2·d, 16·d]", got)
			}
			if got > 2*c.d && got < 16*c.d {
				if sigma := math.Sqrt(float64(got) / (0.9 * c.rho)); sigma > roundNoise*float64(c.n)*1.001 {
					t.Fatalf("a round's σ %.1f is above %.0f %% of n = %d", sigma, 100*roundNoise, c.n)
				}
			}
		})
	}
}

// MethodAuto gives the adaptive method to one owner of a narrow table of
// small attributes and the paper's otherwise; a named method is kept.
func TestMethodResolve(t *testing.T) {
	narrow := []int{16, 16, 7, 2}
	wide := make([]int, AutoMaxAttributes+1)
	for i := range wide {
		wide[i] = 2
	}
	for _, c := range []struct {
		name    string
		m       Method
		sizes   []int
		parties int
		want    Method
	}{
		{"narrow", MethodAuto, narrow, 1, MethodAdaptive},
		{"widest adaptive", MethodAuto, wide[1:], 1, MethodAdaptive},
		{"too wide", MethodAuto, wide, 1, MethodPaper},
		{"a large attribute", MethodAuto, []int{16, AutoMaxValues + 1, 2}, 1, MethodPaper},
		{"two parties", MethodAuto, narrow, 2, MethodPaper},
		{"paper kept", MethodPaper, narrow, 1, MethodPaper},
		{"adaptive kept", MethodAdaptive, wide, 1, MethodAdaptive},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.m.Resolve(c.sizes, c.parties); got != c.want {
				t.Errorf("got %s, want %s", got, c.want)
			}
		})
	}
}

// The default workload is every pair, every triple of binary attributes
// and the label's triples, each set once.
func TestDefaultWorkload(t *testing.T) {
	sizes := []int{2, 2, 2, 3}
	pairs := [][]int{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}}
	for _, c := range []struct {
		name  string
		label int
		want  [][]int
	}{
		{"no label", -1, append(slices.Clone(pairs), []int{0, 1, 2})},
		{"categorical label", 3, append(slices.Clone(pairs), []int{0, 1, 2}, []int{0, 1, 3}, []int{0, 2, 3}, []int{1, 2, 3})},
		{"binary label", 0, append(slices.Clone(pairs), []int{0, 1, 2}, []int{0, 1, 3}, []int{0, 2, 3})},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := DefaultWorkload(sizes, c.label)
			if !slices.EqualFunc(got, c.want, slices.Equal[[]int]) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestOptimizer(t *testing.T) {
	for _, v := range []string{"auto", "mirror-descent", "momentum"} {
		if o, err := ParseOptimizer(v); err != nil || o.String() != v {
			t.Errorf("ParseOptimizer(%q) = %q, %v", v, o, err)
		}
	}
	if _, err := ParseOptimizer("adam"); err == nil || !strings.Contains(err.Error(), `"adam"`) {
		t.Errorf("ParseOptimizer(adam): %v, want an error quoting it", err)
	}
	// n = 10 000 records: momentum up to σ = 10.
	cases := []struct {
		o     Optimizer
		sigma float64
		want  Optimizer
	}{
		{OptimizerAuto, 5, OptimizerMomentum},
		{OptimizerAuto, 10, OptimizerMomentum},
		{OptimizerAuto, 10.01, OptimizerMirrorDescent},
		{OptimizerMirrorDescent, 5, OptimizerMirrorDescent},
		{OptimizerMomentum, 500, OptimizerMomentum},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%g", c.o, c.sigma), func(t *testing.T) {
			if got := c.o.Resolve(precise(c.sigma, 10000)); got != c.want {
				t.Errorf("Resolve = %s, want %s", got, c.want)
			}
		})
	}
}

// The defaults resolve the optimizer and the model cap from a first-round
// measurement's noise and give momentum its shorter final fit; an unknown
// optimizer is refused.
func TestAdaptiveOptionsOptimizer(t *testing.T) {
	cases := []struct {
		name  string
		o     AdaptiveOptions
		rho   float64
		want  Optimizer
		final int
		cells float64
	}{
		// d = 10, n = 50 000: T = 160, σ = √(160 / (0.9·ρ)).
		{"noisy", AdaptiveOptions{}, 0.03, OptimizerMirrorDescent, defaultFinalIters, defaultModelCells}, // σ ≈ 77 > 50
		{"precise", AdaptiveOptions{}, 0.4, OptimizerMomentum, 250, preciseModelCells},                   // σ ≈ 21 ≤ 50
		{"asked", AdaptiveOptions{Optimizer: OptimizerMomentum}, 0.03, OptimizerMomentum, 250, defaultModelCells},
		{"own final", AdaptiveOptions{Optimizer: OptimizerMomentum, FinalIters: 700}, 0.03, OptimizerMomentum, 700, defaultModelCells},
		{"own cap", AdaptiveOptions{MaxCells: 1000}, 0.4, OptimizerMomentum, 250, 1000},
		{"plain but precise", AdaptiveOptions{Optimizer: OptimizerMirrorDescent}, 0.4, OptimizerMirrorDescent, defaultFinalIters, preciseModelCells},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := c.o
			if err := o.defaults(10, 50000, c.rho); err != nil {
				t.Fatal(err)
			}
			if o.Optimizer != c.want || o.FinalIters != c.final || o.MaxCells != c.cells {
				t.Errorf("optimizer %s, %d final steps, cap %v; want %s, %d, %v", o.Optimizer, o.FinalIters, o.MaxCells, c.want, c.final, c.cells)
			}
		})
	}
	o := AdaptiveOptions{Optimizer: "adam"}
	if err := o.defaults(10, 50000, 1); err == nil || !strings.Contains(err.Error(), `"adam"`) {
		t.Errorf("unknown optimizer: %v", err)
	}
}

// On Shuttle (../shared/data, 16 equal-width bins) at the ρ of (ε, δ) =
// (4, 1e-5) the measurements are precise (a first round's σ ≈ 22 records
// of 58 000), and both precise defaults lower the synthetic rows' mean
// 2-way TVD. Momentum at the ordinary 2^18-cell cap against plain mirror
// descent there, seeds 100–103: 0.0040–0.0041 against 0.0052 (spread
// 0.0002). The default, momentum at the 2^20-cell cap, seeds 100–102:
// 0.0028–0.0032 with AIM's penalty; with the clipped one (the default
// since) 0.0034–0.0036 against 0.0037–0.0040 at the ordinary cap. The
// seed is fixed, so the test is deterministic.
func TestPreciseDefaultsOnShuttle(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the adaptive method three times on Shuttle (about 25 s)")
	}
	dom, ds := load(t, "shuttle")
	rho := rhoAt(t, 4)
	plain := engineRun(t, dom, ds, rho, Options{Method: MethodAdaptive, Adaptive: AdaptiveOptions{Optimizer: OptimizerMirrorDescent, MaxCells: defaultModelCells}}, 100)
	fast := engineRun(t, dom, ds, rho, Options{Method: MethodAdaptive, Adaptive: AdaptiveOptions{MaxCells: defaultModelCells}}, 100)
	def := engineRun(t, dom, ds, rho, Options{Method: MethodAdaptive}, 100)
	if fast.Optimizer != OptimizerMomentum || def.Optimizer != OptimizerMomentum {
		t.Fatalf("auto chose %s and %s at ε = 4, want momentum", fast.Optimizer, def.Optimizer)
	}
	if c := def.Model.Cells(); !(c > defaultModelCells) {
		t.Errorf("the default model has %v cells, no more than the ordinary cap", c)
	}
	p, f, d := meanTVD2(t, ds, plain.Data), meanTVD2(t, ds, fast.Data), meanTVD2(t, ds, def.Data)
	t.Logf("mean 2-way TVD: mirror descent %.4f, momentum %.4f, momentum and the larger cap %.4f", p, f, d)
	if !(f < p-0.0005) {
		t.Errorf("momentum's 2-way TVD %.4f is not 0.0005 below mirror descent's %.4f", f, p)
	}
	if !(d < f-0.0003) {
		t.Errorf("the larger cap's 2-way TVD %.4f is not 0.0003 below the ordinary cap's %.4f", d, f)
	}
}
