package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// WDBC at ε = 0.1 leaves every attribute without parents (see
// method/dpsubn3 TestPrivBayesWarnsWhenLabelIsIndependent): the terminal must
// say so, for the dataset's own label and for one named with --label.
func TestPublishPrivBayesWarnsOnIndependentLabel(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name  string
		extra []string
		label string
	}{
		{"dataset label", nil, "diagnosis"},
		{"--label", []string{"--label", "radius_mean"}, "radius_mean"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"publish", "privbayes", "--dataset", "wdbc", "--epsilon", "0.1", "--seed", "1",
				"--out", filepath.Join(dir, "x.csv"), "--force"}, c.extra...)
			_, stderr := mustRun(t, args...)
			if !strings.Contains(stderr, `warning: the learned network leaves the label "`+c.label+`" independent`) {
				t.Errorf("no warning about %q on stderr:\n%s", c.label, stderr)
			}
		})
	}
}
