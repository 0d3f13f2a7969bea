package methods

import (
	"testing"

	mulldaspec "github.com/dppub/dppub/method/mullda"
	mullda "github.com/dppub/dppub/method/mullda/roles"
)

// FuzzLDAMessages feeds every LDA-DP / Mul-LDA-DP decoder a node can
// receive; the first byte picks the decoder.
func FuzzLDAMessages(f *testing.F) {
	sh, _ := mullda.Shares{Classes: 2, P: 1, Sums: []int64{1, 2}, Upper: []int64{3}}.MarshalBinary()
	f.Add(append([]byte{0}, sh...))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 {
			return
		}
		body := b[1:]
		switch b[0] % 7 {
		case 0:
			var m mullda.Shares
			if m.UnmarshalBinary(body) == nil && len(m.Sums) != m.Classes*m.P {
				t.Fatal("inconsistent shares accepted")
			}
		case 1:
			var m mullda.Sums
			_ = m.UnmarshalBinary(body)
		case 2:
			var m mullda.Means
			_ = m.UnmarshalBinary(body)
		case 3:
			var m mullda.Second
			_ = m.UnmarshalBinary(body)
		case 4:
			var m mullda.Direction
			_ = m.UnmarshalBinary(body)
		case 5:
			var m mullda.Projections
			_ = m.UnmarshalBinary(body)
		case 6:
			_, _ = mulldaspec.Multi.Decode(body)
		}
	})
}
