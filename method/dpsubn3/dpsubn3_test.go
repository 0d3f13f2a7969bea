package dpsubn3

import (
	"testing"

	"github.com/dppub/dppub/method/methodtest"
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
			methodtest.FieldMistake(t, err, "frontier", c.want)
		})
	}
}
