package roles

import (
	"testing"

	"github.com/dppub/dppub/internal/testenv"
)

// TestMessagesKeepTheirBytes pins the wire bytes of each message (taken
// before the messages listed their fields for wire.Marshal).
func TestMessagesKeepTheirBytes(t *testing.T) {
	testenv.CheckPinned(t, []testenv.Pinned{
		{Name: "Shares", Msg: Shares{Classes: 2, P: 1, Sums: []int64{-1, 2}, Counts: nil, Upper: []int64{-9}}, Want: "020000000000000001000000000000000200000000000000ffffffffffffffff020000000000000000000000000000000100000000000000f7ffffffffffffff"},
		{Name: "Sums", Msg: Sums{Classes: 2, P: 1, Sums: []float64{1, 2}, Counts: []float64{3, 4}}, Want: "020000000000000001000000000000000200000000000000000000000000f03f0000000000000040020000000000000000000000000008400000000000001040"},
		{Name: "Means", Msg: Means{Classes: 2, P: 1, Means: []float64{1, 2}, Counts: []float64{3, 4}}, Want: "020000000000000001000000000000000200000000000000000000000000f03f0000000000000040020000000000000000000000000008400000000000001040"},
		{Name: "Second", Msg: Second{P: 1, Upper: []float64{7}}, Want: "010000000000000001000000000000000000000000001c40"},
		{Name: "Direction", Msg: Direction{P: 1, D: 1, W: []float64{1}}, Want: "010000000000000001000000000000000100000000000000000000000000f03f"},
		{Name: "Projections", Msg: Projections{D: 1, Z: []float64{1, 2}, Labels: []uint64{0, 1}}, Want: "01000000000000000200000000000000000000000000f03f0000000000000040020000000000000000000000000000000100000000000000"},
	})
}
