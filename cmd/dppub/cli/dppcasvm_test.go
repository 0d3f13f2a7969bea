package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dppub/dppub/model"
)

func TestPublishDPPCAAndPredictWDBC(t *testing.T) {
	dir := t.TempDir()
	for _, m := range []string{"dppca-svm", "pca-dpsvm", "ag-svm", "mod-sulq-svm"} {
		out := filepath.Join(dir, m+".json")
		code, stdout, stderr := run(t, "publish", m, "--dataset", "wdbc", "--epsilon", "5", "--scaling", "standardize",
			"--seed", "3", "--out", out)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", m, code, stderr)
		}
		if !strings.Contains(stdout, "Privacy report: "+m) || !strings.Contains(stdout, "training accuracy") {
			t.Fatalf("%s: stdout lacks the report or the utility:\n%s", m, stdout)
		}
		mod, err := model.Load(out)
		if err != nil {
			t.Fatal(err)
		}
		if mod.Privacy == nil || mod.Label != "diagnosis" || mod.Projection == nil {
			t.Fatalf("%s: model %+v", m, mod)
		}
		written(t, out+".privacy.json")
		code, stdout, stderr = run(t, "predict", "--model", out, "--dataset", "wdbc")
		if code != 0 || !strings.Contains(stdout, "Accuracy: 0.") {
			t.Fatalf("%s: predict exit %d, stdout %q, stderr %q", m, code, stdout, stderr)
		}
	}
}

// smoker is predictable from age in csvRows (every third row smokes,
// unrelated to age), so only the plumbing is checked here: publish from a
// CSV, predict a file without the label column, write predictions.
func TestPredictCSVWithoutLabel(t *testing.T) {
	dir, schema := peopleSchema(t)
	train := writeFile(t, dir, "train.csv", csvRows(90))
	out := filepath.Join(dir, "m.json")
	if code, _, stderr := run(t, "publish", "dppca-svm", "--input", train, "--schema", schema, "--label", "smoker",
		"--epsilon", "2", "--seed", "1", "--out", out); code != 0 {
		t.Fatalf("publish: %s", stderr)
	}
	unlabelled := writeFile(t, dir, "new.csv", "region,age,extra\nnorth,30,x\nsouth,80,y\n")
	preds := filepath.Join(dir, "p.csv")
	code, stdout, stderr := run(t, "predict", "--model", out, "--input", unlabelled, "--out", preds)
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, `No "smoker" column`) {
		t.Errorf("stdout %q", stdout)
	}
	body := readFile(t, preds)
	lines := strings.Split(strings.TrimSpace(string(body)), "\n")
	if len(lines) != 3 || lines[0] != "row,predicted_smoker" || !strings.HasPrefix(lines[1], "1,") {
		t.Errorf("predictions %q", lines)
	}
	labelled := writeFile(t, dir, "labelled.csv", csvRows(30))
	if code, stdout, _ := run(t, "predict", "--model", out, "--input", labelled); code != 0 || !strings.Contains(stdout, "Accuracy: ") {
		t.Errorf("labelled predict: exit %d, %q", code, stdout)
	}
}

func TestPublishDPPCABadInputWritesNothing(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "m.json")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--dataset", "wdbc", "--epsilon", "0"}, "--epsilon must be positive"},
		{[]string{"--dataset", "wdbc", "--calibration", "loose"}, `"loose"`},
		{[]string{"--dataset", "wdbc", "--scaling", "minmax"}, `"minmax"`},
		{[]string{"--dataset", "wdbc", "--k", "31"}, "k = 31"},
		{[]string{"--dataset", "wdbc", "--label", "radius_mean"}, "numeric"},
		{[]string{"--dataset", "wdbc", "--component-share", "1"}, "--component-share"},
		{[]string{"--dataset", "wdbc", "--dp-svm", "input"}, "--dp-svm"},
		{[]string{"--dataset", "nope"}, `"nope"`},
		{[]string{}, "no data"},
	} {
		refused(t, c.want, []string{out}, append([]string{"publish", "dppca-svm", "--out", out}, c.args...)...)
	}
	refused(t, "--out", nil, "publish", "dppca-svm", "--dataset", "wdbc")
}

func TestPredictAndEvalUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"predict", "--dataset", "wdbc"}, "--model"},
		{[]string{"predict", "--model", "m.json"}, "no data"},
		{[]string{"predict", "--model", "nope.json", "--dataset", "wdbc"}, "nope.json"},
		{[]string{"eval", "dppca-svm"}, "--figure"},
		{[]string{"eval", "dppca-svm", "--figure", "5"}, "--figure must be"},
		{[]string{"eval", "dppca-svm", "--table", "2"}, "--table must be 3"},
		{[]string{"eval", "dppca-svm", "--figure", "1", "--datasets", "adult"}, `"adult"`},
	} {
		code, _, stderr := run(t, c.args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, stderr, c.want)
		}
	}
}

func TestEvalDPPCAWritesCovertypeLike(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cov.csv")
	code, stdout, stderr := run(t, "eval", "dppca-svm", "--write-covtype-like", path, "--covtype-rows", "200", "--seed", "1")
	if code != 0 || !strings.Contains(stdout, "not Covertype") {
		t.Fatalf("exit %d: %s %s", code, stdout, stderr)
	}
	body := readFile(t, path)
	if lines := strings.Count(string(body), "\n"); lines != 201 || !strings.HasPrefix(string(body), "x1,") {
		t.Errorf("%d lines, header %q", lines, strings.SplitN(string(body), "\n", 2)[0])
	}
}

// The four methods share one settings struct, but each command has only
// the flags that apply to it: δ for the Gaussian methods, the component
// share and the DP SVM's perturbation for all but pca-dpsvm.
func TestPublishDPPCAFlagsPerMethod(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		method, flag, value string
		bound               bool
	}{
		{"dppca-svm", "--delta", "1e-5", false},
		{"ag-svm", "--delta", "1e-5", true},
		{"pca-dpsvm", "--dp-svm", "output", false},
		{"pca-dpsvm", "--component-share", "0.5", false},
		{"mod-sulq-svm", "--component-share", "0.5", true},
	}
	for _, c := range cases {
		t.Run(c.method+c.flag, func(t *testing.T) {
			out := filepath.Join(dir, c.method+c.flag+".json")
			code, _, stderr := run(t, "publish", c.method, "--dataset", "wdbc", c.flag, c.value, "--seed", "1", "--out", out)
			if unknown := strings.Contains(stderr, "unknown flag: "+c.flag); c.bound == unknown || c.bound != (code == 0) {
				t.Fatalf("exit %d, stderr %q: want the flag bound %v", code, stderr, c.bound)
			}
		})
	}
}

// WDBC at ε = 0.1: the components are mostly noise, which the published
// report says (in the model and on the terminal), and the classifier
// does no better than the majority class on the owner's rows, which only
// the terminal says (on stderr, so --quiet keeps it); at ε = 4 neither.
func TestPublishDPPCAWarnings(t *testing.T) {
	dir := t.TempDir()
	const noise, classifier = "principal components are mostly noise", "warning: the classifier does no better than always predicting the most common class"
	for _, c := range []struct {
		name  string
		eps   string
		quiet bool
		warn  bool
	}{
		{"eps 0.1", "0.1", false, true},
		{"eps 0.1 quiet", "0.1", true, true},
		{"eps 4", "4", false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, c.name+".json")
			args := []string{"publish", "dppca-svm", "--dataset", "wdbc", "--epsilon", c.eps, "--seed", "1", "--out", out}
			if c.quiet {
				args = append(args, "--quiet")
			}
			stdout, stderr := mustRun(t, args...)
			if got := strings.Contains(stderr, classifier); got != c.warn {
				t.Errorf("classifier warning on stderr %v, want %v:\n%s", got, c.warn, stderr)
			}
			if !c.quiet {
				if got := strings.Contains(stdout, noise); got != c.warn {
					t.Errorf("noise warning in the summary %v, want %v:\n%s", got, c.warn, stdout)
				}
			}
			m, err := model.Load(out)
			if err != nil {
				t.Fatal(err)
			}
			body := readFile(t, out+".privacy.json")
			inModel, beside := strings.Contains(strings.Join(m.Privacy.Warnings, "\n"), noise), strings.Contains(string(body), noise)
			if inModel != c.warn || beside != c.warn {
				t.Errorf("noise warning in the model's report %v and beside it %v, want %v", inModel, beside, c.warn)
			}
			if strings.Contains(string(body), "most common class") {
				t.Error("the published report holds the classifier warning, computed from the private rows")
			}
		})
	}
}
