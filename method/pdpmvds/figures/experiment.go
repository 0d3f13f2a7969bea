package figures

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/dppub/dppub/eval"
	pdpmvdsspec "github.com/dppub/dppub/method/pdpmvds"
	"github.com/spf13/pflag"
)

// Experiment is `dppub eval pdp-mvds`.
func Experiment() eval.Experiment {
	return eval.Experiment{
		Name:  pdpmvdsspec.Name,
		Short: "PDP-MVDS engine: marginal TVD, range queries, SVM accuracy vs ρ (Fig. 1), personalised budgets (Fig. 2)",
		Long: `Evaluate the marginal-synthesis engine of PDP-MVDS (run in one process) on
Adult (the embedded 45222 complete rows; Adult salary: synthesise from the
80% training split, SVM tested on the real 20%) and Big5 (skipped when
../shared/data/big5 is absent). The CSV's epsilon column holds the zCDP ρ.

  --figure 1   one owner, total ρ swept: mean TVD over all 1-way and 2-way
               marginals, range-query error, accuracy, run time
  --figure 2   two parties (contiguous halves of the attributes): both at
               ρ, the second at ρ/10, both at ρ/10; TVD within each
               party's attributes and across

One PNG per metric is written beside the CSV (<out without .csv>-<metric>.png,
or <--plot without .png>-<metric>.png).

Example:
  dppub eval pdp-mvds --figure 1 --reps 3 --out fig1.csv`,
		Bind: bind,
	}
}

func bind(fs *pflag.FlagSet) eval.Run {
	var f eval.FigureFlags
	var rhos []float64
	var datasets []string
	f.Register(fs, "1 or 2", 3)
	fs.Float64SliceVar(&rhos, "rhos", nil, "total budgets ρ to sweep (default 0.005,0.01,0.05,0.1,0.5,1)")
	fs.StringSliceVar(&datasets, "datasets", nil, "datasets (default adult,big5)")
	return func(ctx context.Context, env eval.Env) error {
		if f.Figure != 1 && f.Figure != 2 {
			return eval.Usagef("--figure must be 1 or 2, got %d", f.Figure)
		}
		if err := f.CheckReps(); err != nil {
			return err
		}
		var skipped []string
		rows, err := Run(ctx, Options{Figure: f.Figure, Reps: f.Reps, Rhos: rhos, Datasets: datasets, Source: env.Source(),
			Progress: env.Progress(fmt.Sprintf("pdp-mvds fig %d", f.Figure)), Skipped: &skipped})
		if err != nil {
			return err
		}
		for _, s := range skipped {
			fmt.Fprintf(env.Stderr, "skipped %s\n", s)
		}
		return write(env, &f, rows)
	}
}

// write writes the CSV and one PNG per metric.
func write(env eval.Env, f *eval.FigureFlags, rows []eval.Row) error {
	base := strings.TrimSuffix(f.Plot, ".png")
	if base == "" {
		base = strings.TrimSuffix(f.Out, ".csv")
	}
	var metrics []string
	for _, r := range rows {
		if !slices.Contains(metrics, r.Metric) {
			metrics = append(metrics, r.Metric)
		}
	}
	// A log axis needs a spread of x values (gonum panics on one point).
	var xs []float64
	for _, r := range rows {
		if r.Epsilon > 0 && !slices.Contains(xs, r.Epsilon) {
			xs = append(xs, r.Epsilon)
		}
	}
	plots := make([]eval.Plot, len(metrics))
	for i, m := range metrics {
		plots[i] = eval.PlotOf(base+"-"+strings.ReplaceAll(m, " ", "-")+".png", rows,
			eval.PlotOptions{Title: fmt.Sprintf("PDP-MVDS engine Fig. %d", f.Figure), X: "rho (zCDP)", Metric: m, LogX: len(xs) > 1})
	}
	written, err := eval.WriteFiles(f.Out, rows, plots...)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Wrote %d result rows to %s and plots %s\n", len(rows), f.Out, strings.Join(written, ", "))
	return nil
}
