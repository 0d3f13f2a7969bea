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

// skipRecorder records a Skipf instead of ending the test.
type skipRecorder struct {
	testing.TB
	msg string
}

func (s *skipRecorder) Helper() {}
func (s *skipRecorder) Skipf(format string, args ...any) {
	s.msg = fmt.Sprintf(format, args...)
	panic(s)
}

func TestSharedDataSkipsWhenAbsent(t *testing.T) {
	rec := &skipRecorder{TB: t}
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
