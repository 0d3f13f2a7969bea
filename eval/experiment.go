package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/dppub/dppub/internal/fsutil"
	"github.com/dppub/dppub/randx"
	"github.com/spf13/pflag"
)

// An Experiment reproduces one paper's figures as `dppub eval <Name>`.
// Each method's figures package (method/<name>/figures) defines its own;
// eval/all lists them, and the CLI knows them only through that list.
type Experiment struct {
	Name  string // the command's name, e.g. "ppca-dp-mh"
	Short string // one line of help
	Long  string // the command's help
	// Bind declares the experiment's flags on fs (the framework adds
	// --seed) and returns the run, which reads them once they are parsed.
	Bind func(fs *pflag.FlagSet) Run
}

// Run runs an experiment whose flags are parsed, writes its outputs and
// reports them on env.Stdout.
type Run func(ctx context.Context, env Env) error

// Env is what the framework gives a running experiment.
type Env struct {
	// Source returns the run's randomness (seeded by --seed, with a
	// warning on Stderr); call it once, after checking the flags.
	Source func() *randx.Source
	// Progress returns the progress report of a stage named desc.
	Progress       func(desc string) func(done, total int)
	Stdout, Stderr io.Writer
	// Baseline returns another method's Baseline by the method's name,
	// for the figures that compare against it.
	Baseline func(name string) (Baseline, error)
}

// UsageError is a mistake in an experiment's flags (the CLI prints it
// with a pointer to --help).
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// Usagef returns a UsageError.
func Usagef(format string, a ...any) error { return UsageError{fmt.Errorf(format, a...)} }

// IsUsage reports whether err is (or wraps) a UsageError.
func IsUsage(err error) bool {
	var u UsageError
	return errors.As(err, &u)
}

// FigureFlags are the flags most experiments share.
type FigureFlags struct {
	Figure    int
	Reps      int
	Out, Plot string
}

// Register declares --figure (figures lists the choices), --reps (with
// the paper's count as default), --out and --plot.
func (f *FigureFlags) Register(fs *pflag.FlagSet, figures string, reps int) {
	fs.IntVar(&f.Figure, "figure", 0, "figure to reproduce: "+figures+" (required)")
	fs.IntVar(&f.Reps, "reps", reps, "repetitions per point (the paper's count by default)")
	fs.StringVar(&f.Out, "out", "results.csv", "CSV file for the results (long form)")
	fs.StringVar(&f.Plot, "plot", "", "PNG file for the plot (default <out without .csv>-fig<N>.png)")
}

// CheckReps refuses fewer than one repetition.
func (f *FigureFlags) CheckReps() error {
	if f.Reps < 1 {
		return Usagef("--reps must be at least 1, got %d", f.Reps)
	}
	return nil
}

// PlotPath is --plot, or the CSV's path with -fig<N>.png for .csv.
func (f *FigureFlags) PlotPath() string {
	if f.Plot != "" {
		return f.Plot
	}
	return fmt.Sprintf("%s-fig%d.png", strings.TrimSuffix(f.Out, ".csv"), f.Figure)
}

// A Plot is one PNG file of a figure.
type Plot struct {
	Path string
	Draw func(w io.Writer) error
}

// PlotOf draws rows with WritePNG into path.
func PlotOf(path string, rows []Row, o PlotOptions) Plot {
	return Plot{Path: path, Draw: func(w io.Writer) error { return WritePNG(w, rows, o) }}
}

// WriteFiles writes rows as CSV at csvPath and then every plot, each file
// atomically; when a plot fails, it removes the files already written.
// It returns the plots' paths.
func WriteFiles(csvPath string, rows []Row, plots ...Plot) ([]string, error) {
	if err := fsutil.WriteFileAtomic(csvPath, 0o644, func(w io.Writer) error { return WriteCSV(w, rows) }); err != nil {
		return nil, err
	}
	var written []string
	for _, p := range plots {
		if err := fsutil.WriteFileAtomic(p.Path, 0o644, p.Draw); err != nil {
			os.Remove(csvPath)
			for _, w := range written {
				os.Remove(w)
			}
			return nil, err
		}
		written = append(written, p.Path)
	}
	return written, nil
}

// WriteFigure writes rows as CSV at --out and one PNG per plot: the first
// at PlotPath, the others beside it with the metric's name appended; and
// says so on env.Stdout.
func WriteFigure(env Env, f *FigureFlags, rows []Row, plots ...PlotOptions) error {
	first := f.PlotPath()
	files := make([]Plot, len(plots))
	for i, po := range plots {
		path := first
		if i > 0 {
			path = strings.TrimSuffix(first, ".png") + "-" + po.Metric + ".png"
		}
		files[i] = PlotOf(path, rows, po)
	}
	written, err := WriteFiles(f.Out, rows, files...)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Wrote %d result rows to %s and the plots %s\n", len(rows), f.Out, strings.Join(written, ", "))
	return nil
}
