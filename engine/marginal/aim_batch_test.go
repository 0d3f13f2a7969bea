// Tests of the adaptive method's batches, its opening tree on wide tables,
// and the defaults that batch precise measurements.

package marginal

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/infer"
	"github.com/dppub/dppub/engine/marginal/internal/domaintest"
	"github.com/dppub/dppub/engine/marginal/internal/enginetest"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// Batches, the spanning-tree start and the cap on candidates change when
// the model is refitted and what is offered, never what a round costs:
// the accountant spends ρ exactly, holds one selection charge per round
// listed, each ε²/8 (the exponential mechanism), and the measurements and
// selections the result lists sum to ρ. No batch's round offers more
// candidates than the cap (the tree's rounds, first, offer every pair
// that joins two components, as MST does).
func TestAdaptiveBatchesChargeEveryRound(t *testing.T) {
	for _, c := range []struct {
		name string
		ao   AdaptiveOptions
	}{
		{"batch of 4", AdaptiveOptions{Batch: 4}},
		{"tree start", AdaptiveOptions{Tree: true}},
		{"tree, batch of 3, 3 candidates", AdaptiveOptions{Tree: true, Batch: 3, MaxCandidates: 3}},
	} {
		for _, rho := range []float64{0.01, 2} {
			t.Run(fmt.Sprintf("%s/rho=%g", c.name, rho), func(t *testing.T) {
				res, a := adaptiveOnSmall(t, rho, c.ao)
				if spent := a.Spent().Rho; math.Abs(spent-rho) > 1e-9*rho {
					t.Errorf("accountant spent %v", spent)
				}
				selections := 0
				for _, ch := range a.Charges() {
					if strings.HasPrefix(ch.Purpose, "adaptive selection") {
						selections++
					}
				}
				if selections != len(res.Rounds) || selections == 0 {
					t.Errorf("%d selection charges for %d rounds", selections, len(res.Rounds))
				}
				total := 0.0
				for _, p := range res.Plan {
					total += p.Release.Noise.Rho
				}
				for i, r := range res.Rounds {
					total += r.SelectRho
					if want := r.Epsilon * r.Epsilon / 8; math.Abs(r.SelectRho-want) > 1e-12*want {
						t.Errorf("selection at ε = %v charged ρ = %v, want %v", r.Epsilon, r.SelectRho, want)
					}
					tree := c.ao.Tree && i < 4 // 5 attributes
					if c.ao.MaxCandidates > 0 && !tree && r.Candidates > c.ao.MaxCandidates {
						t.Errorf("round %v offered %d candidates, cap %d", r.Attrs, r.Candidates, c.ao.MaxCandidates)
					}
				}
				if math.Abs(total-rho) > 1e-9*rho {
					t.Errorf("rounds and one-ways cost %v", total)
				}
			})
		}
	}
}

// With Tree the first d − 1 rounds measure pairs that join the d
// attributes into one tree: every pair joins two components (no cycle),
// and after them one component is left.
func TestAdaptiveTreeStartSpans(t *testing.T) {
	const d = 5
	res, _ := adaptiveOnSmall(t, 1, AdaptiveOptions{Tree: true})
	if len(res.Rounds) < d-1 {
		t.Fatalf("%d rounds, want at least %d", len(res.Rounds), d-1)
	}
	comp := []int{0, 1, 2, 3, 4}
	for _, r := range res.Rounds[:d-1] {
		if len(r.Attrs) != 2 {
			t.Fatalf("tree round measured %v, not a pair", r.Attrs)
		}
		from, to := comp[r.Attrs[0]], comp[r.Attrs[1]]
		if from == to {
			t.Fatalf("pair %v closes a cycle", r.Attrs)
		}
		for j := range comp {
			if comp[j] == from {
				comp[j] = to
			}
		}
	}
	for _, c := range comp {
		if c != comp[0] {
			t.Fatalf("the tree's pairs leave components %v", comp)
		}
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
// are 6·d rounds, the 2^19-cell cap and 100 final momentum steps (d = 10,
// n = 50 000, ρ = 0.4: AIM's T = 160 gives σ ≈ 21 ≤ 50); each value the
// caller set stays, plain mirror descent keeps its own final steps, and a
// domain within the cap (10 binary attributes) keeps every default.
func TestPreciseBatchDefaults(t *testing.T) {
	tens, binary := slices.Repeat([]int{10}, 10), slices.Repeat([]int{2}, 10)
	for _, c := range []struct {
		name   string
		asked  AdaptiveOptions
		sizes  []int
		rounds int
		cells  float64
		final  int
	}{
		{"defaults", AdaptiveOptions{}, tens, 6 * 10, PreciseBatchModelCells, PreciseBatchFinalIters},
		{"own rounds", AdaptiveOptions{Rounds: 100}, tens, 100, PreciseBatchModelCells, PreciseBatchFinalIters},
		{"own cap", AdaptiveOptions{MaxCells: 1000}, tens, 60, 1000, PreciseBatchFinalIters},
		{"own final steps", AdaptiveOptions{FinalIters: 700}, tens, 60, PreciseBatchModelCells, 700},
		{"mirror descent", AdaptiveOptions{Optimizer: OptimizerMirrorDescent}, tens, 60, PreciseBatchModelCells, defaultFinalIters},
		{"domain within the cap", AdaptiveOptions{}, binary, 160, preciseModelCells, 250},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := c.asked
			if err := o.defaults(10, 50000, 0.4); err != nil {
				t.Fatal(err)
			}
			if o.Batch != preciseBatch {
				t.Fatalf("batch %d, want %d: not the precise regime", o.Batch, preciseBatch)
			}
			o.preciseBatchDefaults(c.asked, c.sizes)
			if o.Rounds != c.rounds || o.MaxCells != c.cells || o.FinalIters != c.final {
				t.Errorf("%d rounds, cap %v, %d final steps; want %d, %v, %d", o.Rounds, o.MaxCells, o.FinalIters, c.rounds, c.cells, c.final)
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

// Within a batch the later selections are offered only what fits the cap
// together with the earlier picks. Four attributes of 10 values, a model
// of the one-ways (40 cells), each pair alone 120 cells; after picking
// {0, 1}, {2, 3} makes 200 cells (the disjoint estimate, 120 + 80, is
// exact here) and {1, 2} or {0, 2} 210 (triangulated again, sharing an
// attribute with the pick).
func TestNarrowKeepsBatchWithinCap(t *testing.T) {
	sizes := []int{10, 10, 10, 10}
	a := &adaptive{engine: &engine{o: Options{Domain: sizedDomain(t, sizes)}}, model: modelOver(t, sizes, [][]int{{0}, {1}, {2}, {3}}, 100)}
	cands := [][]int{{0, 1}, {2, 3}, {1, 2}, {0, 2}}
	base := measurement.SelectQuery{Candidates: cands}
	for range cands {
		base.Weights = append(base.Weights, 1)
		base.Estimates = append(base.Estimates, make([]float64, 100))
		base.Penalties = append(base.Penalties, 0)
	}
	growth := []float64{80, 80, 80, 80}
	picks := []pick{{attrs: []int{0, 1}}}
	for _, c := range []struct {
		limit float64
		want  [][]int
	}{
		{150, nil},
		{205, [][]int{{2, 3}}},
		{250, [][]int{{2, 3}, {1, 2}, {0, 2}}},
	} {
		t.Run(fmt.Sprint(c.limit), func(t *testing.T) {
			q := a.narrow(base, growth, picks, c.limit, 1)
			if !slices.EqualFunc(q.Candidates, c.want, slices.Equal) {
				t.Errorf("offered %v, want %v", q.Candidates, c.want)
			}
			if len(q.Weights) != len(q.Candidates) || len(q.Estimates) != len(q.Candidates) || len(q.Penalties) != len(q.Candidates) {
				t.Errorf("query of %d candidates has %d weights, %d estimates, %d penalties", len(q.Candidates), len(q.Weights), len(q.Estimates), len(q.Penalties))
			}
		})
	}
}

// On a narrow table a candidate that shares no attribute with the batch's
// picks is still triangulated with them: after picking {1, 2} on a model
// of {0, 1} and {2, 3} (four attributes of 10 values), {0, 3} alone grows
// the model by 100 cells, but with the pick it closes the cycle
// 0–1–2–3–0, whose junction tree has two cliques of three attributes
// (2 000 cells). The old disjoint estimate (300 + 100) offered it under a
// limit of 500.
func TestNarrowTriangulatesDisjointCandidates(t *testing.T) {
	sizes := []int{10, 10, 10, 10}
	a := &adaptive{engine: &engine{o: Options{Domain: sizedDomain(t, sizes)}},
		model: modelOver(t, sizes, [][]int{{0, 1}, {2, 3}}, 100)}
	cands := [][]int{{1, 2}, {0, 3}}
	base := measurement.SelectQuery{Candidates: cands, Weights: []float64{1, 1},
		Estimates: [][]float64{make([]float64, 100), make([]float64, 100)}, Penalties: []float64{0, 0}}
	growth := []float64{100, 100}
	if g := infer.ModelCells(sizes, [][]int{{0, 1}, {2, 3}, {0, 3}}) - a.model.Cells(); g != growth[1] {
		t.Fatalf("{0, 3} alone grows the model by %v cells, want %v", g, growth[1])
	}
	picks := []pick{{attrs: []int{1, 2}}}
	for _, c := range []struct {
		limit float64
		want  [][]int
	}{
		{500, nil},
		{2000, [][]int{{0, 3}}},
	} {
		t.Run(fmt.Sprint(c.limit), func(t *testing.T) {
			q := a.narrow(base, growth, picks, c.limit, 1)
			if !slices.EqualFunc(q.Candidates, c.want, slices.Equal) {
				t.Errorf("offered %v, want %v", q.Candidates, c.want)
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

// modelOver is a graphical model over sizes whose cliques hold sets, fitted
// (one step) to uniform marginals of those sets summing to total.
func modelOver(t *testing.T, sizes []int, sets [][]int, total float64) *infer.Model {
	t.Helper()
	var ms []*infer.Noisy
	for _, set := range sets {
		m, err := domain.NewMarginal(sizes, set)
		if err != nil {
			t.Fatal(err)
		}
		for c := range m.Counts {
			m.Counts[c] = total / float64(len(m.Counts))
		}
		ms = append(ms, &infer.Noisy{Marginal: m, Variance: 1})
	}
	model, err := infer.Estimate(context.Background(), sizes, ms, infer.EstimateOptions{Total: total, Iters: 1})
	if err != nil {
		t.Fatal(err)
	}
	return model
}
