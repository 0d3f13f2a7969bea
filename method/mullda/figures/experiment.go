package figures

import (
	"context"
	"fmt"

	"github.com/dppub/dppub/eval"
	mulldaspec "github.com/dppub/dppub/method/mullda"
	"github.com/spf13/pflag"
)

// ppcaName names PPCA-DP-MH, the baseline every figure also runs (found
// in the registry by name: a method's figures import no other method).
const ppcaName = "ppca-dp-mh"

// Comparisons are the paper's figures that compare against a synthetic
// data baseline: Fig. 1 (ε, one owner) against PrivBayes, Figs. 2 (ε,
// m = 3) and 3 (m at ε = 0.2) against DP-SUBN3; the paper plots
// misclassification.
var Comparisons = []eval.Comparison{
	{Paper: mulldaspec.NameSingle, Figure: 1, Baseline: "privbayes", Metric: "misclassification",
		Tasks:    []eval.Task{eval.NLTCSMoney, eval.NLTCSOutside, eval.NLTCSBathing, eval.NLTCSTraveling, eval.AdultSalary, eval.AdultEducation},
		Epsilons: eval.PaperEpsilons, Parties: []int{1}},
	{Paper: mulldaspec.NameSingle, Figure: 2, Baseline: "dp-subn3", Metric: "misclassification",
		Tasks:    []eval.Task{eval.NLTCSMoney, eval.NLTCSOutside, eval.AdultSalary, eval.AdultEducation},
		Epsilons: eval.PaperEpsilons, Parties: []int{3}},
	{Paper: mulldaspec.NameSingle, Figure: 3, Baseline: "dp-subn3", Metric: "misclassification",
		Tasks:    []eval.Task{eval.AdultSalary, eval.AdultEducation},
		Epsilons: []float64{0.2}, Parties: []int{2, 4, 6, 8, 10}},
}

// Experiment is `dppub eval lda-dp`.
func Experiment() eval.Experiment {
	return eval.Experiment{
		Name:  mulldaspec.NameSingle,
		Short: "LDA-DP / Mul-LDA-DP §5: SVM misclassification vs ε (Figs. 1, 2) and vs owners (Fig. 3)",
		Long: `Reproduce LDA-DP §5 (δ = 0.001): an SVM trained on the published labelled
projections is tested on the real held-out 20%, projected with the same
direction. Every run is scored on the synthetic projections (DP) and on the
real projections X·w (the paper's output, not DP); both calibrations run.
PPCA-DP-MH (sound, Laplace) and "No Privacy" (an SVM on all the real
features) share the axes.
  --figure 1   one owner: NLTCS money, outside, bathing, traveling; Adult
               salary, education; ε ∈ {0.05, …, 1.6}
  --figure 2   three owners, correlated noise: NLTCS money, outside; Adult
               salary, education
  --figure 3   owners 2..10 at ε = 0.2 on Adult salary and education:
               correlated noise (the paper's claim: a flat curve) against
               independent noise
Example:
  dppub eval lda-dp --figure 3 --reps 50 --baseline-reps 10 --out fig3.csv`,
		Bind: bind,
	}
}

func bind(fs *pflag.FlagSet) eval.Run {
	var f eval.FigureFlags
	var baselineReps int
	f.Register(fs, "1, 2 or 3", 50)
	fs.IntVar(&baselineReps, "baseline-reps", 0, "repetitions of the PPCA-DP-MH baseline (default: --reps; about 10× slower per run on Adult)")
	return func(ctx context.Context, env eval.Env) error {
		if f.Figure < 1 || f.Figure > 3 {
			return eval.Usagef("--figure must be 1, 2 or 3, got %d", f.Figure)
		}
		if f.Reps < 1 || baselineReps < 0 || baselineReps > f.Reps {
			return eval.Usagef("need 1 ≤ --reps and 0 ≤ --baseline-reps ≤ --reps, got %d and %d", f.Reps, baselineReps)
		}
		ppca, err := env.Baseline(ppcaName)
		if err != nil {
			return err
		}
		bar := env.Progress(fmt.Sprintf("lda-dp fig %d", f.Figure))
		rows, err := Run(ctx, Options{Figure: f.Figure, Reps: f.Reps, BaselineReps: baselineReps, Baseline: ppca,
			Source: env.Source(), Progress: bar})
		if err != nil {
			return err
		}
		x := "epsilon"
		if f.Figure == 3 {
			x = "parties"
		}
		return eval.WriteFigure(env, &f, rows, eval.PlotOptions{Title: fmt.Sprintf("LDA-DP Fig. %d", f.Figure),
			X: x, Metric: "misclassification", LogX: x == "epsilon"})
	}
}
