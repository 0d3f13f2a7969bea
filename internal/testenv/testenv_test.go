package testenv

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestModuleRoot(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "module github.com/dppub/dppub") {
		t.Fatalf("go.mod at %s is not dppub's", root)
	}
	wd, _ := os.Getwd()
	if filepath.Join(root, "internal", "testenv") != wd {
		t.Fatalf("root %s is not two levels above %s", root, wd)
	}
}

// recorder records what a helper says when it skips (and then ends the
// call, by a panic the test recovers) or fails (and goes on), instead of
// skipping or failing the test.
type recorder struct {
	testing.TB
	msg string
}

func (r *recorder) Helper() {}
func (r *recorder) Skipf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	panic(r)
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
}
func (r *recorder) Errorf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
}

func TestSharedDataSkipsWhenAbsent(t *testing.T) {
	rec := &recorder{TB: t}
	func() {
		defer func() {
			if r := recover(); r != nil && r != rec {
				panic(r)
			}
		}()
		SharedData(rec, "no-such-dataset-xyz")
	}()
	if !strings.Contains(rec.msg, `shared dataset "no-such-dataset-xyz" not found at`) ||
		!strings.Contains(rec.msg, "place ../shared/data beside the repo") {
		t.Fatalf("skip message %q", rec.msg)
	}
}

func TestSharedDataFindsAdult(t *testing.T) {
	dir := SharedData(t, "adult")
	if _, err := os.Stat(filepath.Join(dir, "adult.data")); err != nil {
		t.Fatal(err)
	}
}

func ExampleModuleRoot() {
	root, err := ModuleRoot()
	_, statErr := os.Stat(filepath.Join(root, "go.mod"))
	fmt.Println(err == nil && statErr == nil)
	// Output: true
}

func TestKSDistance(t *testing.T) {
	uniform := func(x float64) float64 { return min(max(x, 0), 1) }
	for _, c := range []struct {
		name   string
		sample []float64
		want   float64
	}{
		{"one point at the median", []float64{0.5}, 0.5},
		{"evenly spread", []float64{0.125, 0.375, 0.625, 0.875}, 0.125},
		{"all below", []float64{0.1, 0.1, 0.1, 0.1}, 0.9},
		{"unsorted", []float64{0.875, 0.125, 0.625, 0.375}, 0.125},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := KSDistance(c.sample, uniform); math.Abs(got-c.want) > 1e-12 {
				t.Fatalf("KSDistance = %v, want %v", got, c.want)
			}
		})
	}
}

// ErrorCase ends a case that wants an error and fails it unless the error
// says what is wanted; a case that wants none fails on any error and goes
// on.
func TestErrorCase(t *testing.T) {
	for _, c := range []struct {
		name     string
		err      error
		want     string
		done     bool
		failSays string // "" when the case must not fail
	}{
		{"wanted error", fmt.Errorf("bad value %q", "x"), `"x"`, true, ""},
		{"other error", fmt.Errorf("bad value %q", "y"), `"x"`, true, `error bad value "y", want one containing "\"x\""`},
		{"missing error", nil, "bad", true, "error <nil>, want one containing"},
		{"no error wanted", nil, "", false, ""},
		{"unexpected error", fmt.Errorf("boom"), "", false, "unexpected error: boom"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			done := ErrorCase(rec, c.err, c.want)
			if done != c.done || (c.failSays == "") != (rec.msg == "") || !strings.Contains(rec.msg, c.failSays) {
				t.Fatalf("done %v, failure %q; want done %v, failure saying %q", done, rec.msg, c.done, c.failSays)
			}
		})
	}
}
