package roles

import (
	"context"
	"testing"

	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/measurement"
)

// TestObserveOwnShares: every contributor of a joint release reports the
// share it drew, and the shares are the noise the coordinator receives.
// In exact mode only the two measured parties draw, and the release minus
// the exact counts is exactly G times the sum of their reported shares,
// cell by cell (so a party that subtracts its own share is left with the
// statistic plus the other party's share: the view audit
// view-pdp-mvds --view colluder relies on this). In insider-safe mode
// every party draws, the unmeasured one included. Both suites draw shares
// the same way; the commodity suite is the fast one. Exact identities, no
// tolerance.
func TestObserveOwnShares(t *testing.T) {
	for _, mode := range []NoiseMode{NoiseExact, NoiseInsiderSafe} {
		t.Run(string(mode), func(t *testing.T) {
			f := newFixture(t, SuiteCommodity, mode, 100, 1, 11)
			seen := make([][]OwnShare, len(f.parties))
			for k, p := range f.parties {
				p.ObserveOwnShares(func(s OwnShare) { seen[k] = append(seen[k], s) })
			}
			attrs := []int{0, 3} // parties 1 and 2
			got, err := f.m.Marginal(context.Background(), attrs, f.release(t, attrs, measurement.Gaussian, 2, 1.5, 0.5))
			if err != nil {
				t.Fatal(err)
			}
			exact, err := domain.Count(f.data, attrs)
			if err != nil {
				t.Fatal(err)
			}
			for k, s := range seen {
				want := 1
				if mode == NoiseExact && k == 2 {
					want = 0 // party 3 is not measured
				}
				if len(s) != want {
					t.Fatalf("party %d reported %d shares, want %d", k+1, len(s), want)
				}
				if want == 1 && (len(s[0].Steps) != len(got) || s[0].Request.Kind != KindMarginal || s[0].Grid <= 0) {
					t.Fatalf("party %d reported a share of %d values on grid %v for a %s, want %d values of a marginal", k+1, len(s[0].Steps), s[0].Grid, s[0].Request.Kind, len(got))
				}
			}
			if mode != NoiseExact {
				return
			}
			g := seen[0][0].Grid
			for c := range got {
				noise := float64(seen[0][0].Steps[c]+seen[1][0].Steps[c]) * g
				if got[c]-exact.Counts[c] != noise {
					t.Fatalf("cell %d: released %v on count %v, but the parties' shares sum to %v", c, got[c], exact.Counts[c], noise)
				}
			}
		})
	}
}
