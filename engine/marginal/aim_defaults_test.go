// Tests of the adaptive method's defaults (aim_defaults.go): the rounds,
// the optimizer, and the model cap, rounds and batches that precise
// measurements get.

package marginal

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/engine/marginal/internal/domaintest"
	"github.com/dppub/dppub/engine/marginal/internal/enginetest"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// AIM's 16·d rounds unless a round's noise would pass 3 % of the records
// on a table of at most AutoMaxAttributes attributes, 0.25 % on a wider
// one (wideRoundNoise), and never fewer than 2·d: the budgets are the
// benchmark's (ρ of ε = 0.3, 1, 4 at δ = 1e-5) and the sizes its
// training splits. At 3 % for every table, Musk at ε = 1 got 689 rounds,
// `wide` at ε = 1 1 014 and at ε = 4 1 168 (16·d), `zeroinfl` at ε = 4
// 432 (16·d).
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
		{"NLTCS on 2000 rows, eps 1", 16, 2000, 0.03056, 99}, // 0.9·ρ·(0.03·2000)²: the noise cap binds
		{"WDBC, eps 4", 31, 455, 0.3731, 62},
		{"WDBC, eps 1", 31, 455, 0.03056, 62},
		{"Musk, eps 1", 169, 5278, 0.03056, 338},
		{"Musk, eps 4", 169, 5278, 0.3731, 338},
		{"wide, eps 1", 73, 6400, 0.03056, 146},
		{"wide, eps 4", 73, 6400, 0.3731, 146},     // 0.9·ρ·(0.0025·n)² = 86: the floor
		{"zeroinfl, eps 4", 27, 8000, 0.3731, 134}, // between the floor and 16·d
		{"17 attributes, a large budget", 17, 1000000, 10, 272},
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
			share := roundNoise
			if c.d > AutoMaxAttributes {
				share = wideRoundNoise
			}
			if got > 2*c.d && got < 16*c.d {
				if sigma := math.Sqrt(float64(got) / (0.9 * c.rho)); sigma > share*float64(c.n)*1.001 {
					t.Fatalf("a round's σ %.1f is above %.2f %% of n = %d", sigma, 100*share, c.n)
				}
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

// The defaults of the batches, the tree start and the candidate cap: AIM's
// one selection per refit over every candidate on a narrow table with
// noisy measurements (d = 10, n = 50 000, ρ = 0.03: σ ≈ 77 > 50);
// preciseBatch when they are precise (ρ = 0.4: σ ≈ 21); the tree,
// WideBatch and wideCandidates on more than AutoMaxAttributes attributes
// at any budget; and the caller's own values over every default.
func TestAdaptiveOptionsBatches(t *testing.T) {
	for _, c := range []struct {
		name      string
		o         AdaptiveOptions
		d         int
		rho       float64
		batch     int
		tree      bool
		maxOffers int
	}{
		{"narrow, noisy", AdaptiveOptions{}, 10, 0.03, 1, false, 0},
		{"narrow, precise", AdaptiveOptions{}, 10, 0.4, preciseBatch, false, 0},
		{"16 attributes", AdaptiveOptions{}, AutoMaxAttributes, 0.03, 1, false, 0},
		{"17 attributes, noisy", AdaptiveOptions{}, AutoMaxAttributes + 1, 0.03, WideBatch, true, wideCandidates},
		{"17 attributes, precise", AdaptiveOptions{}, AutoMaxAttributes + 1, 4, WideBatch, true, wideCandidates},
		{"own batch and cap", AdaptiveOptions{Batch: 3, MaxCandidates: 7}, 40, 0.4, 3, true, 7},
		{"own tree on a narrow table", AdaptiveOptions{Tree: true}, 10, 0.03, 1, true, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := c.o
			if err := o.defaults(c.d, 50000, c.rho); err != nil {
				t.Fatal(err)
			}
			if o.Batch != c.batch || o.Tree != c.tree || o.MaxCandidates != c.maxOffers {
				t.Errorf("batch %d, tree %v, candidates %d; want %d, %v, %d", o.Batch, o.Tree, o.MaxCandidates, c.batch, c.tree, c.maxOffers)
			}
		})
	}
}

// Where a narrow table's selections are batched because its measurements
// are precise and its whole domain is larger than the cap, the defaults
// are 6·d rounds, the 2^19-cell cap and 60 final momentum steps (d = 10,
// n = 50 000, ρ = 0.3: AIM's T = 160 gives σ ≈ 24.3, 0.049 % of n, above
// PreciseBatchLargeNoise and within the precise 0.1 %); at ρ = 1 (σ ≈
// 13.3, 0.027 %) the cap is 2^20 and the final steps 100. Each value the
// caller set stays, plain mirror descent keeps its own final steps, and a
// domain within the cap (10 binary attributes) keeps every default.
func TestPreciseBatchDefaults(t *testing.T) {
	tens, binary := slices.Repeat([]int{10}, 10), slices.Repeat([]int{2}, 10)
	for _, c := range []struct {
		name   string
		rho    float64
		asked  AdaptiveOptions
		sizes  []int
		rounds int
		cells  float64
		final  int
	}{
		{"defaults", 0.3, AdaptiveOptions{}, tens, 6 * 10, PreciseBatchModelCells, PreciseBatchFinalIters},
		{"own rounds", 0.3, AdaptiveOptions{Rounds: 200}, tens, 200, PreciseBatchModelCells, PreciseBatchFinalIters},
		{"own cap", 0.3, AdaptiveOptions{MaxCells: 1000}, tens, 60, 1000, PreciseBatchFinalIters},
		{"own final steps", 0.3, AdaptiveOptions{FinalIters: 700}, tens, 60, PreciseBatchModelCells, 700},
		{"mirror descent", 0.3, AdaptiveOptions{Optimizer: OptimizerMirrorDescent}, tens, 60, PreciseBatchModelCells, defaultFinalIters},
		{"domain within the cap", 0.3, AdaptiveOptions{}, binary, 160, preciseModelCells, 250},
		{"large budget", 1, AdaptiveOptions{}, tens, 6 * 10, preciseModelCells, PreciseBatchLargeFinalIters},
		// 100 rounds asked make the first round's σ ≈ 19.2, 0.038 % of n.
		{"own rounds, precise enough for the larger cap", 0.3, AdaptiveOptions{Rounds: 100}, tens, 100, preciseModelCells, PreciseBatchLargeFinalIters},
		{"large budget, own cap", 1, AdaptiveOptions{MaxCells: 1000}, tens, 60, 1000, PreciseBatchLargeFinalIters},
		{"large budget, own final steps", 1, AdaptiveOptions{FinalIters: 700}, tens, 60, preciseModelCells, 700},
		{"large budget, domain within the cap", 1, AdaptiveOptions{}, binary, 160, preciseModelCells, 250},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := c.asked
			if err := o.defaults(10, 50000, c.rho); err != nil {
				t.Fatal(err)
			}
			if o.Batch != preciseBatch {
				t.Fatalf("batch %d, want %d: not the precise regime", o.Batch, preciseBatch)
			}
			o.preciseBatchDefaults(c.asked, c.sizes, 50000, c.rho)
			if o.Rounds != c.rounds || o.MaxCells != c.cells || o.FinalIters != c.final {
				t.Errorf("%d rounds, cap %v, %d final steps; want %d, %v, %d", o.Rounds, o.MaxCells, o.FinalIters, c.rounds, c.cells, c.final)
			}
		})
	}
}

// The cap grows where the first round's noise falls to
// PreciseBatchLargeNoise·n, read off Adult: at its n = 45 222 and d = 15
// (AIM's 240 rounds, here on 15 attributes of 10 values) ε = 4 (ρ =
// 0.373) and ρ = 0.5 (σ ≈ 23.1, 0.051 % of n) keep the 2^19 cap, ρ = 0.7
// (σ ≈ 19.5, 0.043 %) and 1 take 2^20.
func TestPreciseBatchCapOnAdultsShape(t *testing.T) {
	sizes := slices.Repeat([]int{10}, 15)
	for _, c := range []struct {
		rho   float64
		cells float64
	}{{0.373, PreciseBatchModelCells}, {0.5, PreciseBatchModelCells}, {0.7, preciseModelCells}, {1, preciseModelCells}} {
		t.Run(fmt.Sprint(c.rho), func(t *testing.T) {
			var o AdaptiveOptions
			if err := o.defaults(len(sizes), 45222, c.rho); err != nil {
				t.Fatal(err)
			}
			o.preciseBatchDefaults(AdaptiveOptions{}, sizes, 45222, c.rho)
			if o.MaxCells != c.cells || o.Rounds != 6*len(sizes) {
				t.Errorf("cap %v, %d rounds; want %v, %d", o.MaxCells, o.Rounds, c.cells, 6*len(sizes))
			}
		})
	}
}

// A whole run in that regime (15 attributes of 3 values, 120 candidates,
// n = 20 000, ρ = 20: σ ≈ 3.7 ≤ 20 at AIM's 240 rounds) measures its
// first selection at 0.9·ρ/(6·15), and with the rounds asked for at
// 0.9·ρ/T; either way the accountant is charged exactly ρ.
func TestPreciseBatchRunsFewerRounds(t *testing.T) {
	sizes := slices.Repeat([]int{3}, 15)
	ds := domaintest.RandomDataset(sizes, 20000, 0.8, randx.NewSeeded(5))
	dom := sizedDomain(t, sizes)
	const rho = 20
	for _, c := range []struct {
		name   string
		ao     AdaptiveOptions
		rounds int
	}{
		{"default", AdaptiveOptions{}, 6 * 15},
		{"rounds asked", AdaptiveOptions{Rounds: 40}, 40},
	} {
		t.Run(c.name, func(t *testing.T) {
			acct := zcdpAccountant(t, "owner", rho)
			m, err := measurement.NewLocalMeasurer(measurement.LocalOptions{Data: ds, Accountants: []*privacy.Accountant{acct}, Source: randx.NewSeeded(3)})
			if err != nil {
				t.Fatal(err)
			}
			res, err := Synthesize(context.Background(), m, Options{Domain: dom, Records: ds.Len(), Method: MethodAdaptive, Adaptive: c.ao,
				Parties: []Party{{Name: "owner", Rho: rho, Attrs: enginetest.AllAttrs(len(sizes))}}, Source: randx.NewSeeded(4)})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Rounds) == 0 {
				t.Fatal("no selection rounds")
			}
			if spent := acct.Spent().Rho; math.Abs(spent-rho) > 1e-9*rho {
				t.Errorf("spent ρ = %v of %v", spent, rho)
			}
			want := 0.9 * rho / float64(c.rounds)
			if got := res.Rounds[0].Rho; math.Abs(got-want) > 1e-9*want {
				t.Errorf("first selection measured at ρ = %v, want %v (%d rounds)", got, want, c.rounds)
			}
		})
	}
}

// A narrow table whose workload offers fewer than PreciseBatchCandidates
// candidates keeps AIM's one selection per refit even when its
// measurements are precise (ρ = 20 on the small table: σ ≈ 2.1 records,
// 0.07 % of 3 000): the default run selects the very sets a run asked for
// one per refit selects, and not those of eight per refit.
func TestPreciseBatchNeedsCandidates(t *testing.T) {
	const rho = 20
	sigma := math.Sqrt(2) / math.Sqrt(2*0.9*rho/float64(DefaultRounds(5, 3000, rho, 0.1)))
	if !precise(sigma, 3000) {
		t.Fatalf("σ = %.2f is not precise at n = 3000", sigma)
	}
	attrs := func(res *Result) [][]int {
		var out [][]int
		for _, r := range res.Rounds {
			out = append(out, r.Attrs)
		}
		return out
	}
	def, _ := adaptiveOnSmall(t, rho, AdaptiveOptions{})
	one, _ := adaptiveOnSmall(t, rho, AdaptiveOptions{Batch: 1})
	eight, _ := adaptiveOnSmall(t, rho, AdaptiveOptions{Batch: preciseBatch})
	if !slices.EqualFunc(attrs(def), attrs(one), slices.Equal) {
		t.Errorf("the default selected %v, one per refit %v", attrs(def), attrs(one))
	}
	if slices.EqualFunc(attrs(def), attrs(eight), slices.Equal) {
		t.Errorf("eight per refit selected as the default did: %v", attrs(def))
	}
}
