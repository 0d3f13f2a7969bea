package all

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/eval"
	"github.com/dppub/dppub/randx"
	"github.com/spf13/pflag"
)

// The registry lists every experiment the CLI has always had, once, by
// name; each binds its flags and refuses a figure its paper lacks as a
// mistake in the command line.
func TestExperimentsAreListedOnceAndBindTheirFlags(t *testing.T) {
	var names []string
	for _, e := range Experiments() {
		names = append(names, e.Name)
	}
	want := []string{"baselines", "dppca-svm", "lda-dp", "mp-crdp", "pdp-mvds", "ppca-dp-mh"}
	if !slices.Equal(names, want) {
		t.Fatalf("experiments %v, want %v", names, want)
	}
	for _, e := range Experiments() {
		t.Run(e.Name, func(t *testing.T) {
			fs := pflag.NewFlagSet(e.Name, pflag.ContinueOnError)
			run := e.Bind(fs)
			if fs.Lookup("reps") == nil || fs.Lookup("out") == nil || fs.Lookup("figure") == nil {
				t.Fatalf("flags --reps, --out or --figure missing")
			}
			if err := fs.Parse([]string{"--figure", "99"}); err != nil {
				t.Fatal(err)
			}
			env := eval.Env{Stdout: io.Discard, Stderr: io.Discard, Baseline: Baseline,
				Source:   func() *randx.Source { return randx.NewSeeded(1) },
				Progress: func(string) func(int, int) { return nil }}
			if err := run(context.Background(), env); !eval.IsUsage(err) {
				t.Errorf("--figure 99: %v, want a usage error", err)
			}
		})
	}
}

// Every comparison's baseline is registered and names its paper's rows.
func TestComparisonsHaveTheirBaselines(t *testing.T) {
	if len(Comparisons()) != 5 {
		t.Errorf("%d comparisons, want ppca-dp-mh 3, 4 and lda-dp 1, 2, 3", len(Comparisons()))
	}
	for _, c := range Comparisons() {
		b, err := Baseline(c.Baseline)
		if err != nil || b.Name != c.Baseline || b.Synthesize == nil {
			t.Errorf("%s: baseline %+v, %v", c.Experiment(), b, err)
		}
		if len(c.Tasks) == 0 || len(c.Epsilons) == 0 || (c.Metric != "accuracy" && c.Metric != "misclassification") {
			t.Errorf("%s: grid %+v", c.Experiment(), c)
		}
	}
	if _, err := Baseline("privhd"); err == nil || !strings.Contains(err.Error(), `"privhd"`) {
		t.Errorf("unknown baseline: %v", err)
	}
	var u eval.UsageError
	if _, err := eval.FindComparison(Comparisons(), "ppca-dp-mh", 2); err == nil || errors.As(err, &u) ||
		!strings.Contains(err.Error(), "have ppca-dp-mh 3, 4; lda-dp 1, 2, 3") {
		t.Errorf("ppca-dp-mh Fig. 2: %v", err)
	}
}
