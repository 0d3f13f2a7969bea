package roles

import (
	"testing"

	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/internal/testenv"
)

// TestMessagesKeepTheirBytes pins the wire bytes of each message (taken
// before the messages listed their fields for wire.Marshal).
func TestMessagesKeepTheirBytes(t *testing.T) {
	testenv.CheckPinned(t, []testenv.Pinned{
		{Name: "request", Msg: &Request{ID: 3, Kind: KindScore, Attrs: []int{1, 2}, RefA: []float64{1}, RefB: []float64{2, 3}, Release: measurement.Release{Purpose: "pp", Parties: []int{0, 1}, Noise: measurement.Noise{Mechanism: "gaussian", Sensitivity: 1, Scale: 2, Rho: 3}}}, Want: "0300000000000000050000000000000073636f7265020000000000000001000000000000000200000000000000020000000000000070700200000000000000000000000000000001000000000000000800000000000000676175737369616e0300000000000000000000000000f03f000000000000004000000000000008400100000000000000000000000000f03f020000000000000000000000000000400000000000000840"},
		{Name: "body", Msg: &Body{Kind: "masked", ID: 9, Stage: 1, Index: -2, Words: []uint64{1, 1 << 63}, Floats: []float64{0.5}, Blobs: [][]byte{{1, 2}, nil}}, Want: "06000000000000006d61736b656409000000000000000100000000000000feffffffffffffff1000000000000000010000000000000000000000000000800100000000000000000000000000e03f0200000000000000020000000000000001020000000000000000"},
	})
}
