package audit

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/infer"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/privacy"
)

// AdaptiveReleases pairs a selection charge only with the rounds that
// made one: a run whose first round measured the label's pair {0, 1}
// without a selection (marginal.AdaptiveOptions.Label) and whose second
// selected {1, 2} has four charges (one-way, star pair, selection, pair),
// not five, and the one choice replayed is the second round's set. The
// code before the star counted every round as a selection and refused
// such a run.
func TestAdaptiveReleasesSkipsUnselectedRounds(t *testing.T) {
	sets := [][]int{{0}, {0, 1}, {1, 2}}
	eng := &marginal.Result{Rounds: []marginal.Round{{Attrs: []int{0, 1}, Rho: 0.01}, {Attrs: []int{1, 2}, Rho: 0.01, SelectRho: 0.001, Epsilon: 0.09}}}
	var charges []privacy.Charge
	for i, s := range sets {
		purpose := fmt.Sprintf("adaptive marginal %v", s)
		eng.Plan = append(eng.Plan, marginal.Planned{Attrs: s, Release: measurement.Release{Purpose: purpose}})
		eng.Measured = append(eng.Measured, &infer.Noisy{Marginal: &domain.Marginal{Attrs: s, Counts: make([]float64, 2*len(s))}})
		if i == 2 {
			charges = append(charges, privacy.Charge{Purpose: "adaptive selection 2"})
		}
		charges = append(charges, privacy.Charge{Purpose: purpose})
	}
	out, err := AdaptiveReleases(eng, charges)
	if err != nil {
		t.Fatal(err)
	}
	choices := 0
	for _, r := range out {
		if r.choice {
			choices++
			if want := "chose [1 2]"; !strings.Contains(r.query, want) {
				t.Errorf("the selection replayed %q, want it to have %s", r.query, want)
			}
		}
	}
	if len(out) != len(charges) || choices != 1 {
		t.Errorf("%d releases with %d choices for %d charges, want %d with 1", len(out), choices, len(charges), len(charges))
	}
}
