package pipeline

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	stats "github.com/dppub/dppub/ownerstats"
	"github.com/dppub/dppub/randx"
)

func TestMain(m *testing.M) {
	beam.Init()
	os.Exit(m.Run())
}

// resample writes n lines drawn with replacement from the lines of src
// that hold a record (Adult-like rows at any size).
func resample(t *testing.T, src, dst string, n int) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var lines [][]byte
	for _, l := range splitLines(b) {
		if len(l) > 0 {
			lines = append(lines, l)
		}
	}
	f, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	r := randx.NewSeeded(7)
	for range n {
		w.Write(lines[r.IntN(len(lines))])
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != '\n' {
			i++
		}
		out = append(out, b[:i])
		if i < len(b) {
			i++
		}
		b = b[i:]
	}
	return out
}

// sharedData is ../shared/data/<name> beside the core repository (this
// module's parent), or a skip.
func sharedData(t *testing.T, name string) string {
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "data", name))
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Skipf("shared dataset %q not found at %s: skipping (place ../shared/data beside the repo to run it)", name, dir)
	}
	return dir
}

func firstLine(t *testing.T, path string) string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan()
	return sc.Text()
}

// runPrism runs the pipeline on Beam's Prism runner (in process), or
// skips when Prism cannot start here.
func runPrism(t *testing.T, c stats.Config, input, output string) {
	t.Helper()
	p, s := beam.NewPipelineWithRoot()
	if err := Build(s, c, input, output); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if _, err := prism.Execute(ctx, p); err != nil {
		if _, statErr := os.Stat(output); statErr != nil {
			t.Skipf("Prism could not run the pipeline here: %v", err)
		}
		t.Fatal(err)
	}
}

// On Adult's raw file, and on Adult resampled to 10^6 rows (without
// -short), the statistics Beam computes on Prism — one record per line,
// parsed, encoded and bounded by the core's code, summed by a lifted
// combiner in whatever order Prism bundles and merges — are bit-identical
// to the core's in-process statistics (ppca.TableMoments; domain.Count
// over domain.Domain) of the table data.ReadFile reads from the same
// file: the exact PPCA moments and every 1-way and 2-way count.
func TestPrismMatchesInProcess(t *testing.T) {
	adult := filepath.Join(sharedData(t, "adult"), "adult.data")
	schema, err := datasets.Schema("adult")
	if err != nil {
		t.Fatal(err)
	}
	sizes := []int{0}
	if !testing.Short() {
		sizes = append(sizes, 1_000_000)
	}
	for _, n := range sizes {
		t.Run(fmt.Sprint("rows=", n), func(t *testing.T) {
			input := adult
			if n > 0 {
				input = filepath.Join(t.TempDir(), "adult-resampled.csv")
				resample(t, adult, input, n)
			}
			c := stats.Config{Schema: schema, First: firstLine(t, input)}
			output := filepath.Join(t.TempDir(), "owner.stats")
			runPrism(t, c, input, output)
			got, err := stats.ReadFile(output)
			if err != nil {
				t.Fatal(err)
			}
			tab, _, err := data.ReadFile(input, schema, c.Read)
			if err != nil {
				t.Fatal(err)
			}
			want, err := stats.FromTable(tab, c)
			if err != nil {
				t.Fatal(err)
			}
			if got.Moments.N != tab.Len() || !got.Equal(want) {
				t.Fatalf("Beam: %d records; in process: %d; statistics equal: %v", got.Moments.N, tab.Len(), got.Equal(want))
			}
			one, _ := got.Marginal(0)
			total := uint64(0)
			for _, v := range one {
				total += v
			}
			if total != uint64(tab.Len()) {
				t.Fatalf("age marginal sums to %d, want %d", total, tab.Len())
			}
		})
	}
}
