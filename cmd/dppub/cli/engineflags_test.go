package cli

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/method"
	"github.com/spf13/pflag"
)

// The three methods that run the marginal engine embed one
// method.EngineSettings: each gets every engine flag under the same name,
// and a split that cannot run the adaptive method refuses --method
// adaptive by the flag's name.
func TestEngineFlagsShared(t *testing.T) {
	engine := []string{"bins", "bin-share", "bin-refine", "max-cells", "any-clique", "score", "rounds", "rows",
		"method", "label", "max-model-cells", "adaptive-rounds", "selection", "penalty", "optimizer"}
	for _, tc := range []struct {
		name    string
		refused string // the error of --method adaptive ("" for none)
	}{
		{"synthesize", ""},
		{"synthesize-rows", ""},
		{"pdp-mvds", "--method adaptive is not available"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec, err := method.Lookup(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			st := spec.NewSettings()
			// What a run sets itself (pdp-mvds' public record count).
			if err := json.Unmarshal([]byte(`{"records":100}`), st); err != nil && tc.name == "pdp-mvds" {
				t.Fatal(err)
			}
			st.SetDefaults()
			fs := pflag.NewFlagSet(tc.name, pflag.ContinueOnError)
			kit.BindSettings(fs, st)
			for _, name := range engine {
				if fs.Lookup(name) == nil {
					t.Errorf("no --%s", name)
				}
			}
			if err := fs.Parse([]string{"--method", "adaptive"}); err != nil {
				t.Fatal(err)
			}
			err = kit.FlagErrors(fs, st.Validate())
			var fe method.FieldError
			if tc.refused == "" {
				if errors.As(err, &fe) && fe.Key == "method" {
					t.Fatalf("--method adaptive refused: %v", err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tc.refused) {
				t.Fatalf("--method adaptive: got %v, want %q", err, tc.refused)
			}
		})
	}
}
