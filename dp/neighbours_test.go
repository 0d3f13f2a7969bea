package dp

import (
	"math"
	"strings"
	"testing"

	"github.com/dppub/dppub/internal/testenv"
	"github.com/dppub/dppub/randx"
)

// The two relations parse as themselves, describe themselves and say
// whether n is public, as an unset relation does for replace-one; a
// command's Only refuses a relation it does not support.
func TestNeighbours(t *testing.T) {
	testenv.CheckWords(t, ParseNeighbours, []Neighbours{NeighboursReplaceOne, NeighboursAddRemove}, "swap")
	if _, err := neighbours.Parse("swap"); err == nil || !strings.Contains(err.Error(), "add-remove") {
		t.Errorf("the refusal does not list the relations: %v", err)
	}
	for _, tc := range []struct {
		nb       Neighbours
		describe string
		public   bool
	}{
		{NeighboursReplaceOne, "replace-one neighbours, n public", true},
		{NeighboursAddRemove, "add/remove neighbours", false},
		{"", "replace-one neighbours, n public", true},
	} {
		t.Run(string(tc.nb), func(t *testing.T) {
			if nb := tc.nb; nb.Describe() != tc.describe || nb.PublicCount() != tc.public || nb.Check() != nil {
				t.Errorf("%q: describe %q, public count %v, check %v", nb, nb.Describe(), nb.PublicCount(), nb.Check())
			}
		})
	}
	var unset Neighbours
	if unset.Or() != NeighboursReplaceOne || !unset.PublicCount() || unset.Check() != nil || unset.Neighbouring() != UnitRecord.Neighbouring() {
		t.Errorf("an unset relation is not replace-one")
	}
	if err := NeighboursAddRemove.Only("synthesize-rows", NeighboursReplaceOne); err == nil ||
		!strings.Contains(err.Error(), "synthesize-rows does not support --neighbours add-remove") {
		t.Errorf("Only: %v", err)
	}
	if err := unset.Only("synthesize-rows", NeighboursReplaceOne); err != nil {
		t.Errorf("Only refuses the default: %v", err)
	}
}

// An integer-grid plan releases an integer count as itself plus the
// discrete Gaussian of the plan's σ (χ², false rejection 1e-4), and
// refuses a value it would have to round.
func TestPlanGaussianInteger(t *testing.T) {
	p, err := PlanGaussianInteger(1, 1.5, 1)
	if err != nil {
		t.Fatal(err)
	}
	if p.Grid != 1 || math.Abs(p.Scale()-1.5*gaussianProfileMargin) > 1e-12 {
		t.Fatalf("grid %v, scale %v", p.Grid, p.Scale())
	}
	nz := NewNoiser(randx.NewSeeded(5))
	const runs = 40000
	counts := map[int64]float64{}
	for range runs {
		v := []float64{1000}
		nz.Release(p, v)
		if v[0] != math.Trunc(v[0]) {
			t.Fatalf("released %v, not an integer", v[0])
		}
		counts[int64(v[0])-1000]++
	}
	s := p.Scale()
	assertPMF(t, counts, func(k int64) float64 { return math.Exp(-float64(k*k) / (2 * s * s)) }, runs)
	defer func() {
		if recover() == nil {
			t.Error("released 2.5 on the integer grid")
		}
	}()
	nz.Release(p, []float64{2.5})
}
