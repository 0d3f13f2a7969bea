package all

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
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

// A seeded run through the registry writes the CSV, byte for byte, that
// the same command wrote before the figures moved out of eval (the
// testdata files are the old code's output).
func TestSeededRunsAreUnchanged(t *testing.T) {
	for _, c := range []struct {
		name, golden string
		args         []string
		slow         bool
	}{
		{"mp-crdp", "mp-crdp-fig6-table1-seed7.csv", []string{"--figure", "6", "--table", "1", "--reps", "1"}, false},
		{"baselines", "baselines-ppca-dp-mh-fig4-seed7.csv", []string{"--paper", "ppca-dp-mh", "--figure", "4", "--reps", "1"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.slow && testing.Short() {
				t.Skip("DP-SUBN3 at five numbers of owners on Adult (3–18 s on 2 cores); runs without -short")
			}
			i := slices.IndexFunc(Experiments(), func(e eval.Experiment) bool { return e.Name == c.name })
			if i < 0 {
				t.Fatalf("no experiment %q", c.name)
			}
			fs := pflag.NewFlagSet(c.name, pflag.ContinueOnError)
			run := Experiments()[i].Bind(fs)
			out := filepath.Join(t.TempDir(), "r.csv")
			if err := fs.Parse(append(c.args, "--out", out)); err != nil {
				t.Fatal(err)
			}
			env := eval.Env{Stdout: io.Discard, Stderr: io.Discard, Baseline: Baseline,
				Source:   func() *randx.Source { return randx.NewSeeded(7) },
				Progress: func(string) func(int, int) { return nil }}
			if err := run(context.Background(), env); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join("testdata", c.golden))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("CSV differs from testdata/%s:\n%s", c.golden, got)
			}
		})
	}
}
