package method_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method"
)

// TestAttachedNeverDropsAnAttachment: nothing attached gives the zero
// value, the method's own type comes back as it was, and any other type is
// an error naming both (the old type assertions dropped it silently).
func TestAttachedNeverDropsAnAttachment(t *testing.T) {
	var got int
	sink := method.RowSink(func(*data.Table) error { got++; return nil })
	for _, c := range []struct {
		name    string
		attach  any
		wantErr string
		calls   int
	}{
		{"nothing attached", nil, "", 0},
		{"the method's type", sink, "", 1},
		{"a plain func", func(*data.Table) error { return nil }, "method.RowSink", 0},
		{"another type", "progress", "attached a string", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			got = 0
			s, err := method.Attached[method.RowSink](c.attach)
			if (err == nil) != (c.wantErr == "") || !strings.Contains(fmt.Sprint(err), c.wantErr) {
				t.Fatalf("err = %v, want one containing %q", err, c.wantErr)
			}
			if s != nil {
				if err := s(nil); err != nil {
					t.Fatal(err)
				}
			}
			if got != c.calls {
				t.Fatalf("the sink ran %d times, want %d", got, c.calls)
			}
		})
	}
}
