package measurement

import (
	"fmt"
	"strings"
	"testing"
)

// parseSelectMechanism accepts the two names and quotes anything else.
func TestParseSelectMechanism(t *testing.T) {
	for _, c := range []struct {
		in   string
		want SelectMechanism
		ok   bool
	}{{"exponential", SelectExponential, true}, {"permute-and-flip", SelectPermuteAndFlip, true}, {"gumbel", "", false}, {"", "", false}} {
		got, err := parseSelectMechanism(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseSelectMechanism(%q) = %q, %v", c.in, got, err)
		}
		if err != nil && !strings.Contains(err.Error(), fmt.Sprintf("%q", c.in)) {
			t.Errorf("error %q does not quote %q", err, c.in)
		}
	}
}
