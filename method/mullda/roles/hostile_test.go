package roles

import (
	"math"
	"strings"
	"testing"

	"github.com/dppub/dppub/method/mullda/lda"
	"github.com/dppub/dppub/protocol"
)

// A hostile dealer's shares, built from the real message type, are
// refused before the owner charges or sends anything. The old code paid,
// then added a share of any size to its own noise (one near 2^63 wrapped
// the int64 sum) and sent the result.
func TestHostileSharesAreRefused(t *testing.T) {
	pr := testParams(2, 3, 1, lda.Sound, lda.Correlated)
	X, y := twoClassData(40, 3, 1)
	shares := func(v int64) Shares {
		s := Shares{Classes: 2, P: 3, Sums: make([]int64, 6), Counts: make([]int64, 2), Upper: make([]int64, lda.UpperLen(3))}
		s.Upper[2] = v
		return s
	}
	for _, tc := range []struct {
		name string
		m    protocol.Message
		from string
		want string
	}{
		{"share near 2^63", shares(math.MaxInt64 - 3), "dealer", "beyond ±2^52"},
		{"negative share past the bound", shares(-(1 << 53)), "dealer", "beyond ±2^52"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, pr, X, y, nil, 2)
			w := s.owners[0]
			e, err := protocol.Seal(pr.Session, tc.from, w.ID(), tc.m)
			if err != nil {
				t.Fatal(err)
			}
			out, err := w.Handle(e)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v (sending %d messages), want a refusal saying %q", err, len(out), tc.want)
			}
			if c := w.o.Accountant.Charges(); len(c) != 0 {
				t.Errorf("the owner was charged %d times", len(c))
			}
		})
	}
}
