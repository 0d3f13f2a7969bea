package marginal

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/internal/domaintest"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// Every sensitivity the engine calibrates to, per relation: a count
// vector's, the pair scores' and the adaptive selection's (weights 0.5
// and 3, so 2·3 and 1·3).
func TestSensitivitiesPerRelation(t *testing.T) {
	q := measurement.SelectQuery{Weights: []float64{0.5, 3}}
	for _, tc := range []struct {
		nb                           dp.Neighbours
		l1, l2, iindif, indif, utils float64
	}{
		{"", 2, math.Sqrt2, 2, 6, 6},
		{dp.NeighboursReplaceOne, 2, math.Sqrt2, 2, 6, 6},
		{dp.NeighboursAddRemove, 1, 1, 1, 6, 3},
	} {
		t.Run(fmt.Sprintf("%q", tc.nb), func(t *testing.T) {
			l1, l2 := measurement.CountSensitivity(tc.nb)
			got := []float64{l1, l2, measurement.ScoreSensitivity(measurement.IInDif, tc.nb), measurement.ScoreSensitivity(measurement.InDif, tc.nb), q.Sensitivity(tc.nb)}
			want := []float64{tc.l1, tc.l2, tc.iindif, tc.indif, tc.utils}
			for i, name := range []string{"count L1", "count L2", "IInDif", "InDif", "selection utility"} {
				if got[i] != want[i] {
					t.Errorf("%s: %v, want %v", name, got[i], want[i])
				}
			}
			noise, err := measurement.CountNoise(measurement.Gaussian, tc.nb, 0.5)
			if err != nil {
				t.Fatal(err)
			}
			if noise.Sensitivity != tc.l2 || math.Abs(noise.Scale-tc.l2) > 1e-12 {
				t.Errorf("Gaussian count noise at ρ = 1/2: Δ₂ %v, σ %v, want both %v", noise.Sensitivity, noise.Scale, tc.l2)
			}
		})
	}
}

// The stated sensitivities bound what one added record does to the
// statistics, on random tables of 3 × 4 cells: the count vector moves by
// exactly 1 in L1 and L2, IInDif (public references and count) by at most
// 1, and InDif by less than 6 — and one replaced record moves IInDif by at
// most 2. The largest moves seen are checked too, so that a bound far
// above what happens would show.
func TestAddRemoveSensitivitiesHoldOnRandomTables(t *testing.T) {
	src := randx.NewSeeded(37)
	sizes := []int{3, 4}
	var maxI, maxIn, maxRep float64
	for trial := range 3000 {
		n := 1 + trial%40
		ds := domaintest.RandomDataset(sizes, n, 0.7, src)
		plus := domain.NewDataset(sizes, n+1)
		for j := range sizes {
			copy(plus.Cols[j], ds.Cols[j])
			plus.Cols[j][n] = uint16(src.IntN(sizes[j]))
		}
		swapped := domain.NewDataset(sizes, n)
		for j := range sizes {
			copy(swapped.Cols[j], ds.Cols[j])
			swapped.Cols[j][0] = uint16(src.IntN(sizes[j]))
		}
		a, _ := domain.Count(ds, []int{0, 1})
		b, _ := domain.Count(plus, []int{0, 1})
		l1, l2 := 0.0, 0.0
		for i := range a.Counts {
			d := math.Abs(a.Counts[i] - b.Counts[i])
			l1, l2 = l1+d, l2+d*d
		}
		if l1 != measurement.CountL1AddRemove || math.Sqrt(l2) != measurement.CountL2AddRemove {
			t.Fatalf("trial %d: an added record moved the counts by L1 %v, L2 %v", trial, l1, math.Sqrt(l2))
		}
		refA := []float64{float64(src.IntN(30)), 0.5 + float64(src.IntN(30)), 7}
		refB := []float64{3, float64(src.IntN(20)), 1.25, float64(src.IntN(9))}
		pub := 1 + src.IntN(60)
		score := func(d *domain.Dataset, kind measurement.ScoreKind) float64 {
			s, err := measurement.ExactScore(d, measurement.ScoreQuery{Kind: kind, A: 0, B: 1, RefA: refA, RefB: refB, N: pub})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		maxI = math.Max(maxI, math.Abs(score(plus, measurement.IInDif)-score(ds, measurement.IInDif)))
		maxIn = math.Max(maxIn, math.Abs(score(plus, measurement.InDif)-score(ds, measurement.InDif)))
		maxRep = math.Max(maxRep, math.Abs(score(swapped, measurement.IInDif)-score(ds, measurement.IInDif)))
	}
	t.Logf("largest moves: IInDif %v (add/remove), InDif %v (add/remove), IInDif %v (replace-one)", maxI, maxIn, maxRep)
	for _, c := range []struct {
		name        string
		seen, bound float64
		strict      bool
		atLeast     float64
	}{
		{"IInDif, add/remove", maxI, measurement.ScoreSensitivity(measurement.IInDif, dp.NeighboursAddRemove), false, 0.99},
		{"InDif, add/remove", maxIn, measurement.ScoreSensitivity(measurement.InDif, dp.NeighboursAddRemove), true, 2},
		{"IInDif, replace-one", maxRep, measurement.IInDifSensitivity, false, 1.99},
	} {
		if c.seen > c.bound+1e-9 || c.strict && c.seen >= c.bound || c.seen < c.atLeast {
			t.Errorf("%s: largest move %v, bound %v (want it at least %v)", c.name, c.seen, c.bound, c.atLeast)
		}
	}
}

// ReleaseCount's output is the count plus the discrete Gaussian of the
// claimed σ on the integer grid, for neighbours n and n + 1 alike: a χ²
// test over |k| ≤ 6 and the tail (13 degrees of freedom, false rejection
// 1e-4), and every output an integer.
func TestReleaseCountHasTheClaimedNoise(t *testing.T) {
	const runs = 40000
	const rho = 1.0 / 8 // σ = 2
	for _, n := range []int{100, 101} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			acct := zcdpAccountant(t, "owner", rho*runs)
			src := randx.NewSeeded(uint64(n))
			counts := map[int64]float64{}
			var sigma float64
			for range runs {
				c, err := measurement.ReleaseCount(n, measurement.CountOptions{Rho: rho, Accountant: acct, Source: src})
				if err != nil {
					t.Fatal(err)
				}
				counts[int64(c.Value-n)]++
				sigma = c.Noise.Scale
			}
			if sigma != 2 {
				t.Fatalf("σ = %v at ρ = 1/8, want 2", sigma)
			}
			s := sigma * (1 + 1.0/(1<<12)) // the plan's profile margin
			pmf := func(k int64) float64 { return math.Exp(-float64(k*k) / (2 * s * s)) }
			z := 0.0
			for k := int64(-100); k <= 100; k++ {
				z += pmf(k)
			}
			chi2, tailExp, tailObs := 0.0, 1.0, float64(runs)
			for k := int64(-6); k <= 6; k++ {
				e := runs * pmf(k) / z
				chi2 += (counts[k] - e) * (counts[k] - e) / e
				tailExp -= pmf(k) / z
				tailObs -= counts[k]
			}
			e := runs * tailExp
			chi2 += (tailObs - e) * (tailObs - e) / e
			if chi2 > 39.2 {
				t.Errorf("χ² = %.1f > 39.2 (false rejection 1e-4): counts %v", chi2, counts)
			}
			if got := acct.Spent().Rho; math.Abs(got-rho*runs) > 1e-9*rho*runs {
				t.Errorf("charged ρ = %v for %d releases of ρ %v", got, runs, rho)
			}
		})
	}
}

// ReleaseCount charges before it draws and refuses what it cannot afford.
func TestReleaseCountChargesFirst(t *testing.T) {
	acct := zcdpAccountant(t, "owner", 0.01)
	if _, err := measurement.ReleaseCount(10, measurement.CountOptions{Rho: 0.02, Accountant: acct, Source: randx.NewSeeded(1)}); err == nil {
		t.Fatal("released a count the budget cannot afford")
	}
	c, err := measurement.ReleaseCount(10, measurement.CountOptions{Rho: 0.01, Accountant: acct, Source: randx.NewSeeded(1)})
	if err != nil {
		t.Fatal(err)
	}
	ch := acct.Charges()
	if len(ch) != 1 || ch[0].Spec.Sensitivity != 1 || ch[0].Spec.Guarantee.Rho != 0.01 || c.Value < 1 {
		t.Errorf("charges %+v, value %d", ch, c.Value)
	}
}

// A measurer held to replace-one refuses a selection stated at the
// add/remove sensitivity; one held to add/remove accepts it.
func TestSelectHoldsTheRelation(t *testing.T) {
	ds := domaintest.RandomDataset([]int{2, 3}, 50, 0.5, randx.NewSeeded(2))
	q := measurement.SelectQuery{Candidates: [][]int{{0}, {1}}, Estimates: [][]float64{{25, 25}, {10, 20, 20}}, Weights: []float64{1, 2}, Penalties: []float64{0, 0}}
	for _, tc := range []struct {
		nb dp.Neighbours
		ok bool
	}{{dp.NeighboursReplaceOne, false}, {"", false}, {dp.NeighboursAddRemove, true}} {
		t.Run(fmt.Sprintf("%q", tc.nb), func(t *testing.T) {
			m, err := measurement.NewLocalMeasurer(measurement.LocalOptions{Data: ds, Accountants: []*privacy.Accountant{zcdpAccountant(t, "owner", 1)}, Source: randx.NewSeeded(3), Neighbours: tc.nb})
			if err != nil {
				t.Fatal(err)
			}
			c := measurement.Choice{Purpose: "pick", Parties: []int{0}, Mechanism: measurement.SelectExponential, Epsilon: 0.5, Sensitivity: q.Sensitivity(dp.NeighboursAddRemove)}
			_, err = m.Select(context.Background(), q, c)
			if (err == nil) != tc.ok {
				t.Errorf("selection at sensitivity %v: %v", c.Sensitivity, err)
			}
		})
	}
}

// Data-chosen bins under add/remove calibrate to Δ₂ = 1 and need the
// released count.
func TestChooseCutsAddRemove(t *testing.T) {
	a := data.Attribute{Name: "x", Kind: data.Numeric, Min: 0, Max: 100}
	values := make([]float64, 500)
	for i := range values {
		values[i] = float64(i % 101)
	}
	if _, err := measurement.ChooseCuts(a, values, measurement.CutsOptions{Rho: 0.5, Accountant: zcdpAccountant(t, "o", 1), Neighbours: dp.NeighboursAddRemove}); err == nil ||
		!strings.Contains(err.Error(), "released record count") {
		t.Errorf("add/remove cuts without the released count: %v", err)
	}
	acct := zcdpAccountant(t, "o", 1)
	if _, err := measurement.ChooseCuts(a, values, measurement.CutsOptions{Rho: 0.5, Accountant: acct, Neighbours: dp.NeighboursAddRemove, Records: 498, Source: randx.NewSeeded(1)}); err != nil {
		t.Fatal(err)
	}
	if s := acct.Charges()[0].Spec.Sensitivity; s != 1 {
		t.Errorf("bins charged at Δ₂ = %v, want 1", s)
	}
}

// docs/privacy-design.md states every engine/marginal sensitivity under
// add/remove as the code has it.
func TestPrivacyDesignStatesAddRemove(t *testing.T) {
	body, err := os.ReadFile("../../docs/privacy-design.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(string(body), "\n") {
		if rest, ok := strings.CutPrefix(line, "| `engine/marginal` "); ok {
			name, _, _ := strings.Cut(rest, " |")
			rows[name] = line
		}
	}
	l1, l2 := measurement.CountSensitivity(dp.NeighboursAddRemove)
	for _, tc := range []struct{ row, says string }{
		{"record count (`ReleaseCount`, add/remove only)", fmt.Sprintf("add/remove: Δ₂ = %g", measurement.CountL2AddRemove)},
		{"record count (`ReleaseCount`, add/remove only)", "`dp.PlanGaussianInteger`"},
		{"record count (`ReleaseCount`, add/remove only)", fmt.Sprintf("%g%% of ρ", 100*measurement.DefaultCountShare)},
		{"one-way marginals", fmt.Sprintf("add/remove: Δ₂ = %g, Δ₁ = %g", l2, l1)},
		{"selected marginals", fmt.Sprintf("add/remove: Δ₂ = %g", l2)},
		{"adaptive selection (`LocalMeasurer.Select`)", fmt.Sprintf("add/remove: %g·max w", measurement.SelectQuery{Weights: []float64{1}}.Sensitivity(dp.NeighboursAddRemove))},
		{"adaptive marginals and data-adaptive bins (`ChooseCuts`)", fmt.Sprintf("add/remove: Δ₂ = %g", l2)},
		{"IInDif / InDif scores", fmt.Sprintf("add/remove: IInDif Δ = %g (against the released count), InDif Δ = %g",
			measurement.ScoreSensitivity(measurement.IInDif, dp.NeighboursAddRemove), measurement.ScoreSensitivity(measurement.InDif, dp.NeighboursAddRemove))},
	} {
		row, ok := rows[tc.row]
		if !ok {
			t.Errorf("privacy-design.md has no engine/marginal row %q", tc.row)
			continue
		}
		if !strings.Contains(row, tc.says) {
			t.Errorf("row %q does not say %q", tc.row, tc.says)
		}
	}
}

// The adaptive defaults read the noise at the run's relation: the same ρ
// under replace-one, twice it under add/remove, so a small table gets
// rounds of the same noise
// under both: a table of 2000 rows and 16 attributes at ε = 1 gets 99
// rounds under replace-one (0.9·ρ·(0.03·n)², below AIM's 256), 198 under
// add/remove. (A wider table gets WideRounds·d under both.)
func TestNoiseRhoFollowsTheRelation(t *testing.T) {
	rho := rhoAt(t, 1)
	for _, tc := range []struct {
		nb     dp.Neighbours
		factor float64
		rounds int
	}{{"", 1, 99}, {dp.NeighboursReplaceOne, 1, 99}, {dp.NeighboursAddRemove, 2, 198}} {
		t.Run(fmt.Sprintf("%q", tc.nb), func(t *testing.T) {
			o := Options{Neighbours: tc.nb}
			got := o.noiseRho(rho)
			if tc.factor == 1 && got != rho || math.Abs(got-tc.factor*rho) > 1e-15 {
				t.Errorf("noise ρ %v for ρ %v, want %v×", got, rho, tc.factor)
			}
			if r := DefaultRounds(16, 2000, got, 0.1); r != tc.rounds {
				t.Errorf("2000 rows: %d rounds, want %d", r, tc.rounds)
			}
		})
	}
}
