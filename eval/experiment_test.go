package eval

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPlotPath(t *testing.T) {
	for _, c := range []struct {
		f    FigureFlags
		want string
	}{
		{FigureFlags{Figure: 3, Out: "dir/r.csv"}, "dir/r-fig3.png"},
		{FigureFlags{Figure: 3, Out: "r.tsv"}, "r.tsv-fig3.png"},
		{FigureFlags{Figure: 3, Out: "r.csv", Plot: "p.png"}, "p.png"},
	} {
		t.Run(c.want, func(t *testing.T) {
			if got := c.f.PlotPath(); got != c.want {
				t.Errorf("plot path %q, want %q", got, c.want)
			}
		})
	}
}

var testRows = []Row{
	{Experiment: "x-fig1", Dataset: "d", Task: "t", Method: "m", Epsilon: 0.1, Metric: "accuracy", Mean: 0.8, Std: 0.01},
	{Experiment: "x-fig1", Dataset: "d", Task: "t", Method: "m", Epsilon: 1, Metric: "accuracy", Mean: 0.9, Std: 0.01},
	{Experiment: "x-fig1", Dataset: "d", Task: "t", Method: "m", Epsilon: 1, Metric: "seconds", Mean: 2},
}

// WriteFigure writes the CSV, the first plot at PlotPath and the others
// beside it named by their metric, and says which.
func TestWriteFigure(t *testing.T) {
	dir := t.TempDir()
	f := &FigureFlags{Figure: 1, Out: filepath.Join(dir, "r.csv")}
	var out bytes.Buffer
	err := WriteFigure(Env{Stdout: &out}, f, testRows,
		PlotOptions{X: "epsilon", Metric: "accuracy", LogX: true}, PlotOptions{X: "epsilon", Metric: "seconds"})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"r.csv", "r-fig1.png", "r-fig1-seconds.png"} {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
	csv, _ := os.ReadFile(f.Out)
	if lines := strings.Count(string(csv), "\n"); lines != 4 {
		t.Errorf("CSV has %d lines, want a header and 3 rows", lines)
	}
	if !strings.HasPrefix(out.String(), "Wrote 3 result rows to ") || !strings.Contains(out.String(), "r-fig1-seconds.png") {
		t.Errorf("report %q", out.String())
	}
}

// A plot that fails leaves no file behind: not the CSV, not the plots
// written before it.
func TestWriteFilesRemovesAllOnFailure(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "r.csv")
	good := PlotOf(filepath.Join(dir, "a.png"), testRows, PlotOptions{X: "epsilon", Metric: "accuracy"})
	bad := Plot{Path: filepath.Join(dir, "b.png"), Draw: func(io.Writer) error { return errors.New("no ink") }}
	if _, err := WriteFiles(csvPath, testRows, good, bad); err == nil || !strings.Contains(err.Error(), "no ink") {
		t.Fatalf("error %v", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("files left behind: %v", left)
	}
}
