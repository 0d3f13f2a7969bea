package dpsubn3

import (
	"errors"
	"strings"
	"testing"

	"github.com/dppub/dppub/method"
	bn "github.com/dppub/dppub/method/privbayes"
)

// A negative frontier is a mistake in the settings named by its key (a
// command line reports it under --frontier, as a usage error); zero and
// positive widths are valid.
func TestValidateFrontier(t *testing.T) {
	for _, c := range []struct {
		name     string
		frontier int
		want     string // "" for valid
	}{
		{"all", 0, ""},
		{"two", 2, ""},
		{"negative", -1, "must not be negative, got -1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := &Settings{Settings: bn.Settings{Epsilon: 1}, Frontier: c.frontier}
			st.SetDefaults()
			err := st.Validate()
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var fe method.FieldError
			if !errors.As(err, &fe) || fe.Key != "frontier" || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want a mistake in frontier saying %q", err, c.want)
			}
		})
	}
}
