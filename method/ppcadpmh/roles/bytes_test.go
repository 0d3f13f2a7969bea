package roles

import (
	"testing"

	"github.com/dppub/dppub/internal/testenv"
)

// TestMessagesKeepTheirBytes pins the wire bytes of each message (taken
// before the messages listed their fields for wire.Marshal).
func TestMessagesKeepTheirBytes(t *testing.T) {
	testenv.CheckPinned(t, []testenv.Pinned{
		{Name: "MaskSeed", Msg: MaskSeed{Seed: []byte{1, 2, 3}}, Want: "0300000000000000010203"},
		{Name: "Statistics", Msg: Statistics{N: 3, P: 1, Packed: []float64{1, 2}, Masked: []uint64{5}}, Want: "030000000000000001000000000000000200000000000000000000000000f03f000000000000004001000000000000000500000000000000"},
		{Name: "ModelMsg", Msg: ModelMsg{Mean: []float64{1}, Eigenvalues: []float64{2}, K: 1, Sigma2: 0.5, Components: []float64{3}}, Want: "0100000000000000000000000000f03f010000000000000000000000000000400100000000000000000000000000e03f01000000000000000000000000000840"},
		{Name: "Rows", Msg: Rows{P: 2, First: 4, Data: []float64{1, 2, 3, 4}}, Want: "020000000000000004000000000000000400000000000000000000000000f03f000000000000004000000000000008400000000000001040"},
	})
}
