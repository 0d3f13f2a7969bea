package figures

import (
	"context"
	"fmt"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/eval"
	ppcaspec "github.com/dppub/dppub/method/ppcadpmh"
	"github.com/dppub/dppub/method/ppcadpmh/ppca"
	ppcadpmh "github.com/dppub/dppub/method/ppcadpmh/roles"
	"github.com/spf13/pflag"
)

// Comparisons are the figures of the paper that compare against a
// baseline: Figs. 3 (ε, m = 3) and 4 (m at ε = 0.2) against DP-SUBN3.
var Comparisons = []eval.Comparison{
	{Paper: ppcaspec.Name, Figure: 3, Baseline: "dp-subn3", Metric: "accuracy",
		Tasks:    []eval.Task{eval.NLTCSMoney, eval.NLTCSOutside, eval.AdultEducation, eval.AdultSalary},
		Epsilons: eval.PaperEpsilons, Parties: []int{3}},
	{Paper: ppcaspec.Name, Figure: 4, Baseline: "dp-subn3", Metric: "accuracy",
		Tasks:    []eval.Task{eval.AdultEducation, eval.AdultSalary},
		Epsilons: []float64{0.2}, Parties: []int{2, 4, 6, 8, 10}},
}

// Baseline is PPCA-DP-MH as other papers' figures run it: sound
// calibration, Laplace, local noise, the paper's contribution rate.
func Baseline() eval.Baseline {
	return eval.Baseline{Name: ppcaspec.Name, Synthesize: func(ctx context.Context, p eval.BaselinePoint) (*data.Table, error) {
		res, err := ppcaspec.Publish(ctx, ppcaspec.Options{Owners: p.Owners, Source: p.Source, Settings: ppcaspec.Settings{
			Epsilon: p.Epsilon, Calibration: ppca.Sound, Mechanism: ppca.Laplace, Noise: ppcadpmh.Local,
			Contribution: contributionRate(p.Task.Dataset)}})
		if err != nil {
			return nil, fmt.Errorf("ppca-dp-mh baseline %s ε=%v m=%d: %w", p.Task.Name, p.Epsilon, len(p.Owners), err)
		}
		return res.Synthetic, nil
	}}
}

// Experiment is `dppub eval ppca-dp-mh`.
func Experiment() eval.Experiment {
	return eval.Experiment{
		Name:  ppcaspec.Name,
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
		Bind: bind,
	}
}

func bind(fs *pflag.FlagSet) eval.Run {
	var f eval.FigureFlags
	var baselines bool
	f.Register(fs, "2, 3 or 4", 5)
	fs.BoolVar(&baselines, "baselines", true, "also run the paper's baseline (DP-SUBN3) for Figs. 3 and 4")
	return func(ctx context.Context, env eval.Env) error {
		if f.Figure < 2 || f.Figure > 4 {
			return eval.Usagef("--figure must be 2, 3 or 4, got %d", f.Figure)
		}
		if err := f.CheckReps(); err != nil {
			return err
		}
		bar := env.Progress(fmt.Sprintf("ppca-dp-mh fig %d", f.Figure))
		src := env.Source()
		rows, err := Run(ctx, Options{Figure: f.Figure, Reps: f.Reps, Source: src, Progress: bar})
		if err != nil {
			return err
		}
		if c, err := eval.FindComparison(Comparisons, ppcaspec.Name, f.Figure); baselines && err == nil {
			b, err := env.Baseline(c.Baseline)
			if err != nil {
				return err
			}
			more, err := eval.BaselineRows(ctx, b, eval.BaselineOptions{Comparison: c, Reps: f.Reps, Source: src,
				Progress: env.Progress(fmt.Sprintf("%s fig %d baseline %s", ppcaspec.Name, f.Figure, c.Baseline))})
			if err != nil {
				return err
			}
			rows = append(rows, more...)
		}
		x := map[int]string{2: "k", 3: "epsilon", 4: "parties"}[f.Figure]
		plots := []eval.PlotOptions{{Title: fmt.Sprintf("PPCA-DP-MH Fig. %d", f.Figure),
			X: x, Metric: "accuracy", LogX: x == "epsilon"}}
		if f.Figure == 2 {
			plots = append(plots, eval.PlotOptions{Title: "PPCA-DP-MH Fig. 2(a)", X: "k", Metric: "cumulative_contribution"})
		}
		return eval.WriteFigure(env, &f, rows, plots...)
	}
}
