package methods

import (
	"testing"

	"github.com/dppub/dppub/protocol/mullda"
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
			var s ldaSession
			_ = decodeStrict(body, &s, "session")
		}
	})
}

func TestLDASettingsChecks(t *testing.T) {
	for name, s := range map[string]LDASettings{
		"no label":          {Epsilon: 1, Delta: 1e-6},
		"no delta":          {Label: "y", Epsilon: 1},
		"bad calibration":   {Label: "y", Epsilon: 1, Delta: 1e-6, Calibration: "exact", Noise: "correlated"},
		"paper with counts": {Label: "y", Epsilon: 1, Delta: 1e-6, Calibration: "paper", Noise: "correlated", PublicCounts: true},
		"bad noise":         {Label: "y", Epsilon: 1, Delta: 1e-6, Calibration: "sound", Noise: "loud"},
		"negative ridge":    {Label: "y", Epsilon: 1, Delta: 1e-6, Calibration: "sound", Noise: "correlated", Ridge: -1},
	} {
		if s.validate() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	ok := LDASettings{Label: "y", Epsilon: 1, Delta: 1e-6}
	ok.defaults()
	if err := ok.validate(); err != nil || ok.unsound() || ok.output() != mullda.Synthetic {
		t.Fatalf("defaults: %v, unsound %v, output %v", err, ok.unsound(), ok.output())
	}
}
