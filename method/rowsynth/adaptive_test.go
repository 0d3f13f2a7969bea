package rowsynth_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/method/methodtest"
	"github.com/dppub/dppub/method/rowsynth"
	proto "github.com/dppub/dppub/method/rowsynth/roles"
	"github.com/dppub/dppub/method/synthesize"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

func adaptive(st rowsynth.Settings) *rowsynth.Settings {
	st.Method = marginal.MethodAdaptive
	return &st
}

// Three owners running the adaptive method on Shuttle (58 000 rows, 9
// numeric attributes and the class) at ε = 1 publish a table whose 2-way
// TVD is within 20 % of one curator's adaptive run at the same ε, and
// below their own paper method's (mean of two seeds each; measured over
// five seeds 0.0090 against 0.0088 and 0.0169,
// docs/results/rows/adaptive-owners.md). What gap there is comes from
// selecting on the owners' noisy summed scores of 16 filtered candidates
// instead of the exponential mechanism over every exact pooled score;
// the bound fails if the protocol's selection loses what it measured
// (seeds 1 and 2 give 1.11, five seeds 1.02; with the selection of
// commit 5197183, before the excess correction, it was 1.06).
func TestAdaptiveOwnersNearOneCurator(t *testing.T) {
	if testing.Short() {
		t.Skip("three syntheses per seed on Shuttle, about 10 s")
	}
	tab := methodtest.TableOrSkip(t, "shuttle")
	var curator, owners, paper float64
	for seed := uint64(1); seed <= 2; seed++ {
		res, err := synthesize.Publish(context.Background(), synthesize.Options{Table: tab, Epsilon: 1, Method: marginal.MethodAdaptive, Source: randx.NewSeeded(seed)})
		if err != nil {
			t.Fatal(err)
		}
		curator += methodtest.TwoWayTVD(t, tab, res.Synthetic) / 2
		r := run(t, tab, 3, adaptive(rowsynth.Settings{Epsilon: 1}), seed+100)
		owners += methodtest.TwoWayTVD(t, tab, r.Outcome.Table) / 2
		r = run(t, tab, 3, &rowsynth.Settings{Epsilon: 1, EngineSettings: method.EngineSettings{Method: marginal.MethodPaper}}, seed+100)
		paper += methodtest.TwoWayTVD(t, tab, r.Outcome.Table) / 2
	}
	t.Logf("2-way TVD: one curator adaptive %.4f, three owners adaptive %.4f (ratio %.2f), paper %.4f", curator, owners, owners/curator, paper)
	if owners > 1.2*curator {
		t.Errorf("three owners' adaptive 2-way TVD %.4f is more than 20%% above one curator's %.4f", owners, curator)
	}
	if owners >= paper {
		t.Errorf("three owners' adaptive 2-way TVD %.4f is not below their paper method's %.4f", owners, paper)
	}
}

// Every owner's accountant records exactly the charges the adaptive
// rounds state: one selection charge per round at its SelectRho, whose
// noise is the owner's own calibration of the scores of the candidates
// it was sent (Δ₂ = 2√C), one measurement charge per round at its Rho
// after the one-way marginals, and the whole budget in all.
func TestAdaptiveOwnersChargeWhatTheRoundsState(t *testing.T) {
	tab := methodtest.Table(t, "nltcs")
	tab = &data.Table{Schema: tab.Schema, Rows: tab.Rows[:4000]}
	r := run(t, tab, 3, adaptive(rowsynth.Settings{Epsilon: 1, Delta: 1e-6, SelectCandidates: 6}), 7)
	res := r.Outcome.Detail.(*rowsynth.Result)
	rounds := res.Engine.Rounds
	if res.Method != marginal.MethodAdaptive || len(rounds) == 0 || len(res.Selections) != len(rounds) {
		t.Fatalf("method %s, %d rounds, %d selections", res.Method, len(rounds), len(res.Selections))
	}
	d := len(tab.Schema.Attributes)
	for _, a := range r.Accountants {
		var sel, meas []float64
		var sens []float64
		for _, c := range a.Charges() {
			switch {
			case strings.HasPrefix(c.Purpose, "adaptive selection"):
				sel = append(sel, c.Spec.Guarantee.Rho)
				sens = append(sens, c.Spec.Sensitivity)
			case strings.HasPrefix(c.Purpose, "adaptive marginal"):
				meas = append(meas, c.Spec.Guarantee.Rho)
			}
		}
		if len(sel) != len(rounds) || len(meas) != d+len(rounds) {
			t.Fatalf("%s: %d selection and %d measurement charges for %d rounds after %d one-ways", a.Party(), len(sel), len(meas), len(rounds), d)
		}
		for i, rd := range rounds {
			_, l2 := proto.SelectSensitivity(res.Selections[i].Scored)
			if sel[i] != rd.SelectRho || meas[d+i] != rd.Rho || sens[i] != l2 {
				t.Fatalf("%s, round %d: charged selection ρ %v (Δ₂ %v), measurement ρ %v; the round states %v and %v for %d candidates (Δ₂ %v)",
					a.Party(), i+1, sel[i], sens[i], meas[d+i], rd.SelectRho, rd.Rho, res.Selections[i].Scored, l2)
			}
			if res.Selections[i].Scored > 6 || res.Selections[i].Scored < 1 {
				t.Fatalf("round %d scored %d candidates, want 1 to 6", i+1, res.Selections[i].Scored)
			}
		}
		if got := a.Spent().Rho; math.Abs(got-res.Rho) > 1e-9*res.Rho {
			t.Errorf("%s spent ρ = %v, budget %v", a.Party(), got, res.Rho)
		}
	}
	if !strings.Contains(r.Outcome.Report.Method, "adaptive") {
		t.Errorf("the report names the method %q", r.Outcome.Report.Method)
	}
}

// On a table of more than 16 and at most 32 attributes the adaptive
// rounds start with a spanning tree, which owners of rows pick from one
// release of every pair's noisy summed score (roles.Measurer.Utilities,
// Pools): on WDBC (31 attributes) at ε = 1 with 3 owners, every owner
// is charged the tree's release once, in one request of all 465 pairs
// (Δ₂ = 2√465), at the sum of the selection costs the tree's 30 rounds
// state; those rounds join every attribute; each later round is charged
// as TestAdaptiveOwnersChargeWhatTheRoundsState says; and the report
// says how the tree was chosen.
func TestAdaptiveOwnersPoolTheTree(t *testing.T) {
	tab := methodtest.Table(t, "wdbc")
	d := len(tab.Schema.Attributes)
	r := run(t, tab, 3, adaptive(rowsynth.Settings{Epsilon: 1, Delta: 1e-6}), 5)
	res := r.Outcome.Detail.(*rowsynth.Result)
	rounds := res.Engine.Rounds
	pairs := d * (d - 1) / 2
	if len(rounds) < d-1 || len(res.Selections) == 0 || !res.Selections[0].Pooled || res.Selections[0].Scored != pairs {
		t.Fatalf("%d rounds; first selection %+v: want the tree's one release of %d pairs", len(rounds), res.Selections, pairs)
	}
	comp := make([]int, d)
	for j := range comp {
		comp[j] = j
	}
	treeSel := 0.0
	for _, rd := range rounds[:d-1] {
		a, b := comp[rd.Attrs[0]], comp[rd.Attrs[len(rd.Attrs)-1]]
		if len(rd.Attrs) != 2 || a == b {
			t.Fatalf("tree round %v does not join two components", rd.Attrs)
		}
		for j := range comp {
			if comp[j] == b {
				comp[j] = a
			}
		}
		treeSel += rd.SelectRho
	}
	for j := range comp {
		if comp[j] != comp[0] {
			t.Fatalf("attribute %d is not joined by the tree", j)
		}
	}
	_, l2 := proto.SelectSensitivity(pairs)
	for _, a := range r.Accountants {
		var tree []privacy.Charge
		for _, c := range a.Charges() {
			if strings.HasPrefix(c.Purpose, "adaptive tree selection") {
				tree = append(tree, c)
			}
		}
		if len(tree) != 1 || math.Abs(tree[0].Spec.Guarantee.Rho-treeSel) > 1e-12*res.Rho || tree[0].Spec.Sensitivity != l2 {
			t.Fatalf("%s: tree charges %+v; the tree's rounds state ρ = %v in all, Δ₂ = %v", a.Party(), tree, treeSel, l2)
		}
		if got := a.Spent().Rho; math.Abs(got-res.Rho) > 1e-9*res.Rho {
			t.Errorf("%s spent ρ = %v, budget %v", a.Party(), got, res.Rho)
		}
	}
	if !slices.ContainsFunc(r.Outcome.Report.Assumptions, func(s string) bool {
		return strings.Contains(s, fmt.Sprintf("one release of all %d joining pairs", pairs))
	}) {
		t.Errorf("the report does not say how the tree was chosen: %q", r.Outcome.Report.Assumptions)
	}
}

// On NLTCS (16 binary attributes, 680 workload sets) at ε = 1, 3 and 10
// owners with synthesize-rows' defaults (auto: the adaptive method, eight
// selections per refit, OwnersBatch) publish a table whose mean 2-way
// TVD over five seeds is within 5 % of one curator's synthesize default,
// the bar of issue 37. Measured 0.0043 and 0.0039 against 0.0047
// (docs/results/rows/adaptive-owners.md); the ratio of the five-seed
// means has a standard error of about 7 %, so a sound run fails about 3 %
// of the time at other seeds (these are fixed). Before the owners
// batched their selections they measured 0.0057 (3 owners, adaptive)
// and 0.0060 (10 owners, auto's paper method then): 1.23× and 1.29×.
func TestOwnersOfRowsNearOneCuratorOnNLTCS(t *testing.T) {
	if testing.Short() {
		t.Skip("fifteen syntheses on NLTCS, about 15 s")
	}
	tab := methodtest.TableOrSkip(t, "nltcs")
	const seeds = 5
	curator := 0.0
	for seed := uint64(1); seed <= seeds; seed++ {
		res, err := synthesize.Publish(context.Background(), synthesize.Options{Table: tab, Epsilon: 1, Source: randx.NewSeeded(seed)})
		if err != nil {
			t.Fatal(err)
		}
		curator += methodtest.TwoWayTVD(t, tab, res.Synthetic) / seeds
	}
	for _, owners := range []int{3, 10} {
		t.Run(fmt.Sprintf("%d owners", owners), func(t *testing.T) {
			mean := 0.0
			for seed := uint64(1); seed <= seeds; seed++ {
				r := run(t, tab, owners, &rowsynth.Settings{Epsilon: 1}, seed+100)
				if m := r.Outcome.Detail.(*rowsynth.Result).Method; m != marginal.MethodAdaptive {
					t.Fatalf("auto chose %s for %d owners of NLTCS, want adaptive", m, owners)
				}
				mean += methodtest.TwoWayTVD(t, tab, r.Outcome.Table) / seeds
			}
			t.Logf("2-way TVD: one curator %.4f, %d owners %.4f (ratio %.2f)", curator, owners, mean, mean/curator)
			if mean > 1.05*curator {
				t.Errorf("%d owners' 2-way TVD %.4f is more than 5%% above one curator's %.4f", owners, mean, curator)
			}
		})
	}
}

// Owners of rows plan their adaptive rounds from the noise their
// measurements really carry, as one owner does: where DefaultRounds' cap
// binds (2 000 rows of NLTCS at ε = 1: fewer than 16·d rounds keep a
// round's σ within 3 % of n), the first measurement's ρ is the engine's
// (1 − 0.1)·ρ/T with T = DefaultRounds at ρ·K/(K+1) in insider-safe mode
// (the coordinator's share on top: variance (K+1)/K of the calibrated
// noise) and at ρ itself in exact mode. Before, both modes planned T at
// ρ, so insider-safe rounds each carried σ·√(4/3) above the cap.
func TestAdaptiveOwnersPlanRoundsFromTheirNoise(t *testing.T) {
	tab := methodtest.Table(t, "nltcs")
	tab = &data.Table{Schema: tab.Schema, Rows: tab.Rows[:2000]}
	d, n, k := len(tab.Schema.Attributes), len(tab.Rows), 3
	planned := map[proto.NoiseMode]int{}
	for _, tc := range []struct {
		mode     proto.NoiseMode
		variance float64
	}{
		{rowsynth.NoiseInsiderSafe, float64(k+1) / float64(k)},
		{rowsynth.NoiseExact, 1},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			r := run(t, tab, k, adaptive(rowsynth.Settings{Epsilon: 1, Delta: 1e-6, Noise: tc.mode}), 3)
			res := r.Outcome.Detail.(*rowsynth.Result)
			rho := res.Rho - res.BinRho - res.CountRho
			rounds := marginal.DefaultRounds(d, n, rho/tc.variance, 0.1)
			if rounds <= 2*d || rounds >= 16*d {
				t.Fatalf("DefaultRounds gives %d rounds for %d attributes: the cap does not bind, the test proves nothing", rounds, d)
			}
			planned[tc.mode] = rounds
			want := (1 - 0.1) * rho / float64(rounds)
			for _, c := range r.Accountants[0].Charges() {
				if strings.HasPrefix(c.Purpose, "adaptive marginal") {
					if got := c.Spec.Guarantee.Rho; math.Abs(got-want) > 1e-12*want {
						t.Errorf("first measurement charged ρ = %v, want %v (T = %d rounds)", got, want, rounds)
					}
					return
				}
			}
			t.Fatal("no adaptive measurement charged")
		})
	}
	if planned[rowsynth.NoiseInsiderSafe] >= planned[rowsynth.NoiseExact] {
		t.Errorf("insider-safe owners plan %d rounds, exact %d: the coordinator's share should mean fewer", planned[rowsynth.NoiseInsiderSafe], planned[rowsynth.NoiseExact])
	}
}

// On Musk2's first 40 features and its label (41 attributes: the owners'
// spanning tree is too wide to pool at ε = 0.3, so each of its rounds
// scores 16 candidates the filter keeps), 3 owners of rows with
// synthesize-rows' defaults are within 10 % of one curator's 2-way TVD
// over five seeds. The filter offers the tree's joins of largest possible
// utility first (measurement.SelectQuery.MaxScores): a pair of two
// 16-bin features has a penalty above anything its score could reach at
// this budget, a feature's pair with the label does not, and one
// curator's exponential mechanism ranks them the same way. Measured 1.054
// (seed ratios 1.025–1.105, standard error of the mean 0.014, so a sound
// run fails about 0.05 % of the time at other seeds); before, with the
// tree's never-scored pairs offered in a hashed order, 1.146.
func TestOwnersTreeNearOneCuratorOnMusk(t *testing.T) {
	if testing.Short() {
		t.Skip("ten syntheses of 41 attributes, about 4 s")
	}
	tab := methodtest.TableOrSkip(t, "musk2")
	var cols []string
	for _, a := range tab.Schema.Attributes[:40] {
		cols = append(cols, a.Name)
	}
	tab, err := tab.SelectColumns(append(cols, "target")...)
	if err != nil {
		t.Fatal(err)
	}
	const seeds, eps = 5, 0.3
	curator, owners := 0.0, 0.0
	for seed := uint64(1); seed <= seeds; seed++ {
		res, err := synthesize.Publish(context.Background(), synthesize.Options{Table: tab, Epsilon: eps, Source: randx.NewSeeded(seed)})
		if err != nil {
			t.Fatal(err)
		}
		curator += methodtest.TwoWayTVD(t, tab, res.Synthetic) / seeds
		r := run(t, tab, 3, &rowsynth.Settings{Epsilon: eps}, seed+100)
		if res := r.Outcome.Detail.(*rowsynth.Result); res.Method != marginal.MethodAdaptive || res.Selections[0].Pooled {
			t.Fatalf("owners ran %s, first selection %+v: want the adaptive method's tree a round at a time", res.Method, res.Selections[0])
		}
		owners += methodtest.TwoWayTVD(t, tab, r.Outcome.Table) / seeds
	}
	t.Logf("2-way TVD: one curator %.4f, 3 owners %.4f (ratio %.3f)", curator, owners, owners/curator)
	if owners > 1.10*curator {
		t.Errorf("3 owners' 2-way TVD %.4f is more than 10%% above one curator's %.4f", owners, curator)
	}
}
