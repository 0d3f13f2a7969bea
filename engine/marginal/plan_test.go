package marginal

import (
	"math"
	"slices"
	"testing"

	"github.com/dppub/dppub/engine/marginal/measurement"
)

func TestAllocateSingleParty(t *testing.T) {
	rho, err := allocate([]float64{1}, [][]int{{0}, {0}, {0}}, []float64{1, 2, 5})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{0.125, 0.25, 0.625} {
		if math.Abs(rho[i]-want) > 1e-9 {
			t.Errorf("release %d gets %v, want %v", i, rho[i], want)
		}
	}
}

// A strict party (ρ = 0.1) and a generous one (ρ = 1): the shared release
// is limited by the strict party, and the generous party's own release
// takes the rest of its budget.
func TestAllocatePersonalised(t *testing.T) {
	budgets := []float64{1, 0.1}
	parties := [][]int{{0}, {1}, {0, 1}}
	rho, err := allocate(budgets, parties, []float64{1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{0.95, 0.05, 0.05} {
		if math.Abs(rho[i]-want) > 1e-9 {
			t.Errorf("release %d gets %v, want %v", i, rho[i], want)
		}
	}
	checkWithin(t, budgets, parties, rho)
}

func checkWithin(t *testing.T, budgets []float64, parties [][]int, rho []float64) {
	t.Helper()
	spent := make([]float64, len(budgets))
	for r, ps := range parties {
		for _, k := range ps {
			spent[k] += rho[r]
		}
	}
	for k := range budgets {
		if spent[k] > budgets[k] {
			t.Errorf("party %d spends %v of %v", k, spent[k], budgets[k])
		}
	}
}

func TestAllocateManyPartiesWithin(t *testing.T) {
	budgets := []float64{0.3, 0.01, 2, 0.7}
	var parties [][]int
	var weights []float64
	for a := range 4 {
		for b := a; b < 4; b++ {
			ps := []int{a}
			if b != a {
				ps = append(ps, b)
			}
			parties = append(parties, ps)
			weights = append(weights, float64(1+a+2*b))
		}
	}
	rho, err := allocate(budgets, parties, weights)
	if err != nil {
		t.Fatal(err)
	}
	checkWithin(t, budgets, parties, rho)
	// Party 2 is the most generous; its solo release must get more than
	// its proportional share of the strictest party's rate.
	if rho[slices.IndexFunc(parties, func(p []int) bool { return slices.Equal(p, []int{2}) })] < 1 {
		t.Errorf("the generous party's own release got only %v", rho)
	}
	if _, err := allocate([]float64{1}, [][]int{{1}}, []float64{1}); err == nil {
		t.Error("unknown party: no error")
	}
	if _, err := allocate([]float64{1}, [][]int{{0}}, []float64{0}); err == nil {
		t.Error("zero weight: no error")
	}
}

func TestNoiseErrorMatchesPerMarginalSum(t *testing.T) {
	cells := []int{16, 200, 41}
	rho := 0.3
	s := 0.0
	for _, c := range cells {
		s += math.Pow(float64(c), 2.0/3)
	}
	direct := 0.0
	for _, c := range cells {
		rh := rho * math.Pow(float64(c), 2.0/3) / s
		sigma := measurement.CountL2 / math.Sqrt(2*rh)
		direct += float64(c) * sigma * math.Sqrt(2/math.Pi)
	}
	if got := noiseError(cells, rho, measurement.CountL2); math.Abs(got/direct-1) > 1e-12 {
		t.Errorf("NoiseError = %v, direct sum %v", got, direct)
	}
	// L2 = 1 is the paper's Σ c·sqrt(1/(π ε)).
	paper := 0.0
	for _, c := range cells {
		paper += float64(c) * math.Sqrt(1/(math.Pi*rho*math.Pow(float64(c), 2.0/3)/s))
	}
	if got := noiseError(cells, rho, 1); math.Abs(got/paper-1) > 1e-12 {
		t.Errorf("NoiseError(L2=1) = %v, paper %v", got, paper)
	}
}

// Greedy selection picks the strongly dependent pair, skips the one whose
// score is below its noise, and stops.
func TestSelectPairs(t *testing.T) {
	rho := 0.1
	one := noiseError([]int{10}, rho, measurement.CountL2) // ≈ 28.9
	cands := []Candidate{
		{A: 0, B: 1, Cells: 10, Score: 1000},
		{A: 0, B: 2, Cells: 10, Score: one / 2},
		{A: 1, B: 2, Cells: 10, Score: 500},
	}
	sel, err := selectPairs(selectOptions{Candidates: cands, Budgets: []float64{rho}, L2: measurement.CountL2})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sel.Chosen, []int{0, 2}) {
		t.Fatalf("chose %v, want [0 2]", sel.Chosen)
	}
	if math.Abs(sel.Errors[0]-(1500+one/2)) > 1e-9 {
		t.Errorf("E_0 = %v", sel.Errors[0])
	}
	want := noiseError([]int{10, 10}, rho, measurement.CountL2) + one/2
	if last := sel.Errors[len(sel.Errors)-1]; math.Abs(last-want) > 1e-9 {
		t.Errorf("final error %v, want %v", last, want)
	}
	for t1 := 1; t1 < len(sel.Errors); t1++ {
		if sel.Errors[t1] >= sel.Errors[t1-1] {
			t.Errorf("error did not fall at step %d: %v", t1, sel.Errors)
		}
	}
}

// With two parties each party's pairs are costed at its own budget: the
// same score is worth selecting for the generous party and not for the
// strict one.
func TestSelectPairsPersonalised(t *testing.T) {
	budgets := []float64{1, 0.001}
	owner := []int{0, 0, 1, 1}
	score := noiseError([]int{10}, 0.01, measurement.CountL2) // affordable at ρ = 1, not at 0.001
	var cands []Candidate
	for _, p := range [][2]int{{0, 1}, {2, 3}, {1, 2}} {
		cands = append(cands, Candidate{A: p[0], B: p[1], Cells: 10, Score: score, Owner: ownerOf(p[0], p[1], owner, budgets)})
	}
	if cands[2].Owner != 1 {
		t.Fatalf("cross pair owned by %d, want the strict party 1", cands[2].Owner)
	}
	sel, err := selectPairs(selectOptions{Candidates: cands, Budgets: budgets, L2: measurement.CountL2})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sel.Chosen, []int{0}) {
		t.Errorf("chose %v, want only the generous party's pair [0]", sel.Chosen)
	}
}

func TestCombine(t *testing.T) {
	sizes := []int{4, 4, 4, 4, 50}
	// A triangle 0-1-2 (64 cells), a pendant pair 2-3 and a large pair 3-4.
	pairs := [][2]int{{0, 1}, {1, 2}, {0, 2}, {2, 3}, {3, 4}}
	sets, err := combine(pairs, sizes, CombineOptions{MaxCells: 100})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int{{0, 1, 2}, {2, 3}, {3, 4}}
	if !slices.EqualFunc(sets, want, slices.Equal) {
		t.Errorf("combined %v, want %v", sets, want)
	}
	// Under a cap of 50 the triangle cannot merge: pairs stay.
	sets, _ = combine(pairs, sizes, CombineOptions{MaxCells: 50})
	if len(sets) != 5 {
		t.Errorf("cap 50: %v, want the five pairs", sets)
	}
	// A 4-clique merges whole when the cap allows.
	clique := [][2]int{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}}
	sets, _ = combine(clique, sizes, CombineOptions{MaxCells: 256, AnyClique: true})
	if !slices.EqualFunc(sets, [][]int{{0, 1, 2, 3}}, slices.Equal) {
		t.Errorf("4-clique, any clique: %v", sets)
	}
	// By default the 4-clique does not merge whole: 256^{2/3} ≈ 40.3
	// exceeds the six pairs' 6·16^{2/3} ≈ 38.1, while a triangle's
	// 64^{2/3} = 16 is below its three pairs' 19.0.
	sets, _ = combine(clique, sizes, CombineOptions{MaxCells: 256})
	if want := [][]int{{0, 1, 2}, {0, 3}, {1, 3}, {2, 3}}; !slices.EqualFunc(sets, want, slices.Equal) {
		t.Errorf("4-clique, noise-aware: %v, want %v", sets, want)
	}
	if _, err := combine([][2]int{{1, 1}}, sizes, CombineOptions{MaxCells: 10}); err == nil {
		t.Error("self pair: no error")
	}
}
