package cli

import (
	"fmt"
	ppcaspec "github.com/dppub/dppub/method/ppcadpmh"
	"io"
	"os"
	"strings"
	"time"

	"github.com/dppub/dppub/eval"
	"github.com/dppub/dppub/internal/fsutil"
	"github.com/dppub/dppub/randx"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

func newEvalCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "eval METHOD",
		Short: "Reproduce a paper's experiments (CSV in long form + PNG plots)",
		Long: `Reproduce the experiments of a method's paper on the real datasets. Results go
to a long-form CSV (experiment,dataset,task,method,calibration,noise,epsilon,
delta,parties,k,reps,metric,mean,std) and a PNG plot per figure. Progress is
shown on stderr. Both the paper's calibration and the sound one are run.`,
	}
	for _, sub := range evalCommands() {
		cmd.AddCommand(sub())
	}
	return cmd
}

type evalFlags struct {
	baselines bool
	figure    int
	reps      int
	out, plot string
	src       sourceFlags
}

func (f *evalFlags) register(cmd *cobra.Command, figures string) {
	fs := cmd.Flags()
	fs.IntVar(&f.figure, "figure", 0, "figure to reproduce: "+figures+" (required)")
	fs.IntVar(&f.reps, "reps", 5, "repetitions per point (the paper's count by default)")
	fs.StringVar(&f.out, "out", "results.csv", "CSV file for the results (long form)")
	fs.StringVar(&f.plot, "plot", "", "PNG file for the plot (default <out without .csv>-fig<N>.png)")
	f.src.register(fs)
}

func newEvalPPCACmd() *cobra.Command {
	f := &evalFlags{}
	cmd := &cobra.Command{
		Use:   "ppca-dp-mh",
		Short: "PPCA-DP-MH §5: accuracy vs k (Fig. 2), vs ε (Fig. 3), vs owners (Fig. 4)",
		Long: `Reproduce PPCA-DP-MH §5 on NLTCS (outside, money) and Adult (salary,
education): an SVM trained on the synthetic data is tested on the real
held-out 20%, with "No Privacy" (SVM on the real training data) as reference.

  --figure 2   accuracy vs number of components k (m = 3, ε = 0.1)
  --figure 3   accuracy vs ε (m = 3)
  --figure 4   accuracy vs number of owners m (ε = 0.2), local noise vs
               secure aggregation

Example:
  dppub eval ppca-dp-mh --figure 4 --reps 5 --out fig4.csv --plot fig4.png`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.figure < 2 || f.figure > 4 {
				return usagef("--figure must be 2, 3 or 4, got %d", f.figure)
			}
			if f.reps < 1 {
				return usagef("--reps must be at least 1, got %d", f.reps)
			}
			bar := newBar(cmd.ErrOrStderr(), fmt.Sprintf("ppca-dp-mh fig %d", f.figure))
			src := f.src.source(cmd.Flags(), cmd.ErrOrStderr())
			rows, err := eval.PPCAFigure(cmd.Context(), eval.PPCAOptions{Figure: f.figure, Reps: f.reps,
				Source: src, Progress: bar})
			if err != nil {
				return err
			}
			if f.baselines && f.figure != 2 {
				more, err := baselineRows(cmd, ppcaspec.Name, f.figure, f.reps, src)
				if err != nil {
					return err
				}
				rows = append(rows, more...)
			}
			x := map[int]string{2: "k", 3: "epsilon", 4: "parties"}[f.figure]
			plots := []eval.PlotOptions{{Title: fmt.Sprintf("PPCA-DP-MH Fig. %d", f.figure),
				X: x, Metric: "accuracy", LogX: x == "epsilon"}}
			if f.figure == 2 {
				plots = append(plots, eval.PlotOptions{Title: "PPCA-DP-MH Fig. 2(a)", X: "k", Metric: "cumulative_contribution"})
			}
			return writeEval(cmd, f, rows, plots...)
		},
	}
	f.register(cmd, "2, 3 or 4")
	cmd.Flags().BoolVar(&f.baselines, "baselines", true, "also run the paper's baseline (DP-SUBN3) for Figs. 3 and 4")
	return cmd
}

// baselineRows runs the baseline a paper's figure compares against, on the
// same tasks, splits and classifier.
func baselineRows(cmd *cobra.Command, paper string, figure, reps int, src *randx.Source) ([]eval.Row, error) {
	o, err := eval.BaselineFigure(paper, figure)
	if err != nil {
		return nil, err
	}
	o.Reps, o.Source = reps, src
	o.Progress = newBar(cmd.ErrOrStderr(), fmt.Sprintf("%s fig %d baseline %s", paper, figure, o.Method))
	return eval.BaselineRows(cmd.Context(), o)
}

// newBar shows progress on w when w is a terminal, and nothing otherwise:
// redrawn bars are noise in a log file, and writing one per update to a
// regular file cost Big5 synthesize 22 s against 5 s through a pipe. Nothing
// here syncs w (the progressbar package never calls Sync); on a terminal
// the bar redraws at most every 65 ms, so a stage of millions of updates
// costs a few hundred writes.
func newBar(w io.Writer, desc string) func(done, total int) {
	if !isTerminal(w) {
		return func(int, int) {}
	}
	var bar *progressbar.ProgressBar
	return func(done, total int) {
		if bar == nil {
			bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(desc),
				progressbar.OptionShowCount(), progressbar.OptionSetElapsedTime(true), progressbar.OptionSetPredictTime(true),
				progressbar.OptionThrottle(65*time.Millisecond), progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }))
		}
		_ = bar.Set(done)
	}
}

// writeEval writes the CSV and one PNG per plot: the first at --plot, the
// others beside it with the metric's name appended.
func writeEval(cmd *cobra.Command, f *evalFlags, rows []eval.Row, plots ...eval.PlotOptions) error {
	if f.plot == "" {
		base := f.out
		if len(base) > 4 && base[len(base)-4:] == ".csv" {
			base = base[:len(base)-4]
		}
		f.plot = fmt.Sprintf("%s-fig%d.png", base, f.figure)
	}
	if err := fsutil.WriteFileAtomic(f.out, 0o644, func(w io.Writer) error { return eval.WriteCSV(w, rows) }); err != nil {
		return err
	}
	var written []string
	for i, po := range plots {
		path := f.plot
		if i > 0 {
			path = strings.TrimSuffix(f.plot, ".png") + "-" + po.Metric + ".png"
		}
		if err := fsutil.WriteFileAtomic(path, 0o644, func(w io.Writer) error { return eval.WritePNG(w, rows, po) }); err != nil {
			os.Remove(f.out)
			for _, p := range written {
				os.Remove(p)
			}
			return err
		}
		written = append(written, path)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "Wrote %d result rows to %s and the plots %s\n", len(rows), f.out, strings.Join(written, ", "))
	return nil
}

// isTerminal reports whether w is a terminal (a *os.File on a TTY).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
