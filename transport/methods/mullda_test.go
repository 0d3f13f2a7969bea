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
	fuzzDecoders(f,
		func(t *testing.T, body []byte) {
			var m mullda.Shares
			if m.UnmarshalBinary(body) == nil && len(m.Sums) != m.Classes*m.P {
				t.Fatal("inconsistent shares accepted")
			}
		},
		unmarshals[mullda.Sums](),
		unmarshals[mullda.Means](),
		unmarshals[mullda.Second](),
		unmarshals[mullda.Direction](),
		unmarshals[mullda.Projections](),
		decodesSession(mulldaspec.Multi))
}
