package figures

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/dppub/dppub/eval"
	mpcrdpspec "github.com/dppub/dppub/method/mpcrdp"
	mpcrdp "github.com/dppub/dppub/method/mpcrdp/crdp"
	"github.com/spf13/pflag"
)

// Experiment is `dppub eval mp-crdp`.
func Experiment() eval.Experiment {
	return eval.Experiment{
		Name:  mpcrdpspec.Name,
		Short: "MP-CRDP §6: LR/SVM accuracy vs ε (Figs. 3, 4), query MAE (Fig. 5), correlation vs features (Fig. 6), Table 1",
		Long: `Reproduce MP-CRDP §6 on Adult (a random sample of --rows records, 12
features) and WDBC (569 × 30), each split by columns among 3 parties. Every
repetition draws a fresh 80/20 split; models are scored on the held-out 20%.

  --figure 3   LR accuracy vs ε, panels (dataset, utility u1/u2): the paper's
               five settings — non-private-FS (noiseless MP-FS/MP-OP),
               non-private (all features), private-GS (group DP), private-CS
               (correlated DP, w0 = 0.9), private-CSp (MP-CRDP, w0 = MCD),
               with the paper calibration — plus private-standard (sound
               calibration, record-level DP: the only standard-DP line)
  --figure 4   the same for the SVM (objective perturbation)
  --figure 5   MAE of 10000 random count queries vs ε (paper per-query noise;
               the CSV adds mae_sound_composed, the whole set's composition)
  --figure 6   ΔGS, ΔCS (w0 = 0.9), ΔCS_p (w0 = MCD) and K vs the number of
               features N (first N features in file order)
  --table 1    non-private WDBC SVM/LR accuracy, merged and per party, beside
               the paper's (z-scored and box-encoded features)
Figures 3, 4 and 5 share their selections: ask for them together
(--figure 3,4,5) to run the selections once.

Example:
  dppub eval mp-crdp --figure 3,4,5 --reps 3 --out /tmp/mpcrdp/fig345.csv
  dppub eval mp-crdp --figure 6 --table 1 --out /tmp/mpcrdp/fig6.csv`,
		Bind: bind,
	}
}

func bind(fs *pflag.FlagSet) eval.Run {
	var o Options
	var out string
	fs.IntSliceVar(&o.Figures, "figure", nil, "figures to reproduce: 3, 4, 5, 6 (comma-separated)")
	fs.IntVar(&o.Table, "table", 0, "table to reproduce: 1")
	fs.IntVar(&o.Reps, "reps", 5, "repetitions per point")
	fs.StringVar(&out, "out", "mp-crdp.csv", "CSV file for the results (long form); plots go beside it")
	fs.Float64SliceVar(&o.Epsilons, "epsilons", nil, "override the ε grid")
	fs.StringSliceVar(&o.Datasets, "datasets", nil, "restrict to adult and/or wdbc")
	fs.IntVar(&o.AdultRows, "rows", mpcrdpspec.DefaultAdultRows, "Adult sample size")
	fs.IntVar(&o.Queries, "queries", mpcrdp.DefaultQueries, "random count queries for Fig. 5")
	return func(ctx context.Context, env eval.Env) error {
		if len(o.Figures) == 0 && o.Table == 0 {
			return eval.Usagef("give --figure 3,4,5,6 and/or --table 1")
		}
		for _, ds := range o.Datasets {
			if ds != "adult" && ds != "wdbc" {
				return eval.Usagef("--datasets: unknown dataset %q (want adult or wdbc)", ds)
			}
		}
		if len(o.Epsilons) == 0 {
			o.Epsilons = nil
		}
		if len(o.Datasets) == 0 {
			o.Datasets = nil
		}
		o.Source, o.Progress = env.Source(), env.Progress(mpcrdpspec.Name)
		rows, err := Run(ctx, o)
		if err != nil {
			return err
		}
		base := strings.TrimSuffix(out, ".csv")
		var plots []eval.Plot
		for _, fig := range o.Figures {
			for _, po := range Plots(fig) {
				plots = append(plots, eval.PlotOf(fmt.Sprintf("%s-fig%d-%s.png", base, fig, po.Metric), PlotRows(rows, fig), po))
			}
		}
		written, err := eval.WriteFiles(out, rows, plots...)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "Wrote %s\n", strings.Join(append([]string{out}, written...), ", "))
		printTable1(env.Stdout, rows)
		printFigure6(env.Stdout, rows)
		return nil
	}
}

func printTable1(w io.Writer, rows []eval.Row) {
	get := func(task, method, cal, noise, metric string) (eval.Row, bool) {
		for _, r := range rows {
			if r.Experiment == "mp-crdp-table1" && r.Task == task && r.Method == method && r.Calibration == cal && r.Noise == noise && r.Metric == metric {
				return r, true
			}
		}
		return eval.Row{}, false
	}
	if _, ok := get("merged", "svm", "paper", "", "accuracy"); !ok {
		return
	}
	fmt.Fprintln(w, "Table 1 (WDBC, non-private): paper | measured test accuracy (80/20, mean ± sd) | training accuracy; z-scored [box-encoded]")
	for _, g := range []string{"merged", "party-1", "party-2", "party-3"} {
		for _, m := range []string{"svm", "lr"} {
			p, _ := get(g, m, "paper", "", "accuracy")
			te, _ := get(g, m, "measured", "standardize", "test_accuracy")
			tr, _ := get(g, m, "measured", "standardize", "train_accuracy")
			teb, _ := get(g, m, "measured", "box", "test_accuracy")
			trb, _ := get(g, m, "measured", "box", "train_accuracy")
			fmt.Fprintf(w, "  %-8s %-3s  paper %.4f | test %.4f ± %.4f [%.4f] | train %.4f [%.4f]\n",
				g, m, p.Mean, te.Mean, te.Std, teb.Mean, tr.Mean, trb.Mean)
		}
	}
}

func printFigure6(w io.Writer, rows []eval.Row) {
	for _, r := range rows {
		if r.Experiment == "mp-crdp-fig6" && r.Metric == "mcd" {
			fmt.Fprintf(w, "Fig. 6 %s: MCD over 3 parties = %.4f ± %.4f (%d reps)\n", r.Dataset, r.Mean, r.Std, r.Reps)
		}
	}
}
