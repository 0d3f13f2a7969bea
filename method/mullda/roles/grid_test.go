package roles

import (
	"bytes"
	"math"
	"testing"

	"github.com/dppub/dppub/method/mullda/lda"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// gridRows are n rows of p multiples of 1/16 inside the unit ball (every
// moment is a multiple of 2^-8), with entry (0, 0) moved by tweak.
func gridRows(n, p int, tweak float64) (*mat.Dense, []int) {
	src := randx.NewSeeded(5)
	X := mat.NewDense(n, p, nil)
	y := make([]int, n)
	for i := 0; i < n; i++ {
		y[i] = i % 2
		for j := 0; j < p; j++ {
			X.Set(i, j, float64(src.Uint64N(8))/16) // ‖row‖² ≤ p·(7/16)² < 1 for p ≤ 5
		}
	}
	X.Set(0, 0, X.At(0, 0)+tweak)
	return X, y
}

func publisherView(t *testing.T, pr Params, tweak float64) []protocol.Envelope {
	t.Helper()
	X, y := gridRows(24, pr.Plan.P, tweak)
	s := newSession(t, pr, X, y, map[string]*Ledger{}, 9)
	rec := &protocol.Recorder{Role: s.publisher}
	s.roles[len(s.roles)-1] = rec
	if err := s.run(); err != nil {
		t.Fatal(err)
	}
	return rec.Received
}

// Everything the publisher receives lies on the blocks' public grids: the
// owners' class sums, counts and Σxxᵀ are integer multiples of the grid
// step and its own zero-sum share is integers (Shares carries int64). An
// owner's rows moved below the grid step (2^-40 on one entry; grids
// ≈ 2^-21) leave every message the publisher receives byte for byte
// unchanged under the same seed.
func TestPublisherSeesOnlyGridValues(t *testing.T) {
	cases := []Params{
		testParams(3, 3, 2, lda.Sound, lda.Correlated),
		testParams(2, 3, 2, lda.Sound, lda.Independent),
		testParams(1, 3, 2, lda.Sound, lda.Correlated),
		testParams(3, 3, 2, lda.Paper, lda.Correlated),
	}
	for _, pr := range cases {
		plan, err := lda.NewPlan(pr.Plan)
		if err != nil {
			t.Fatal(err)
		}
		sb, _ := plan.SumsNoise()
		cb, _ := plan.CountsNoise()
		ub, _ := plan.SecondNoise()
		if sb.Plan.Grid > math.Ldexp(1, -20) || ub.Plan.Grid > math.Ldexp(1, -20) {
			t.Fatalf("grids %v, %v", sb.Plan.Grid, ub.Plan.Grid)
		}
		onGrid := func(what string, v []float64, g float64) {
			for i, x := range v {
				if x/g != math.Trunc(x/g) {
					t.Fatalf("%d owners %s %s: %s entry %d = %v is off the grid %v", len(pr.Owners), pr.Plan.Calibration, pr.Plan.Noise, what, i, x, g)
				}
			}
		}
		got := publisherView(t, pr, 0)
		kinds := map[string]int{}
		for _, e := range got {
			kinds[e.Type]++
			switch e.Type {
			case TypeSums:
				var m Sums
				if err := m.UnmarshalBinary(e.Payload); err != nil {
					t.Fatal(err)
				}
				onGrid("sums", m.Sums, sb.Plan.Grid)
				if plan.CountSigma > 0 {
					onGrid("counts", m.Counts, cb.Plan.Grid)
				} else {
					onGrid("exact counts", m.Counts, 1)
				}
			case TypeSecond:
				var m Second
				if err := m.UnmarshalBinary(e.Payload); err != nil {
					t.Fatal(err)
				}
				onGrid("Σxxᵀ", m.Upper, ub.Plan.Grid)
			}
		}
		if kinds[TypeSums] != len(pr.Owners) || kinds[TypeSecond] != len(pr.Owners) || (kinds[TypeShares] == 1) != pr.NeedsDealer() {
			t.Fatalf("publisher received %v", kinds)
		}
		moved := publisherView(t, pr, math.Ldexp(1, -40))
		if len(moved) != len(got) {
			t.Fatalf("%d messages, then %d", len(got), len(moved))
		}
		for i := range got {
			if got[i].Type != moved[i].Type || !bytes.Equal(got[i].Payload, moved[i].Payload) {
				t.Fatalf("%d owners %s %s: message %d (%s from %s) changed with a sub-grid change of the data", len(pr.Owners), pr.Plan.Calibration, pr.Plan.Noise, i, got[i].Type, got[i].From)
			}
		}
		above := publisherView(t, pr, 1.0/16)
		same := true
		for i := range got {
			same = same && bytes.Equal(got[i].Payload, above[i].Payload)
		}
		if same {
			t.Fatal("a change of 1/16 left every message unchanged")
		}
	}
}

// The publisher refuses a message off the public grid.
func TestPublisherRejectsOffGridValues(t *testing.T) {
	dst := make([]float64, 2)
	g := math.Ldexp(1, -20)
	if err := gridSum(dst, g, [][]float64{{g, 3 * g}, {-g, 0}}, []int64{5, -5}); err != nil || dst[0] != 5*g || dst[1] != -2*g {
		t.Fatalf("sum %v, err %v", dst, err)
	}
	if err := gridSum(dst, g, [][]float64{{g, 0.3}}, nil); err == nil {
		t.Fatal("an off-grid value was accepted")
	}
}
