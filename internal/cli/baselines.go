package cli

import (
	"fmt"
	mulldaspec "github.com/dppub/dppub/method/mullda"
	ppcaspec "github.com/dppub/dppub/method/ppcadpmh"

	"github.com/dppub/dppub/algo/privbayes"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/eval"
	"github.com/dppub/dppub/method/dpsubn3"
	bnspec "github.com/dppub/dppub/method/privbayes"
	"github.com/dppub/dppub/publish"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func init() {
	publishCommands = append(publishCommands, newPublishPrivBayesCmd, newPublishDPSUBN3Cmd)
	evalCommands = append(evalCommands, newEvalBaselinesCmd)
}

// bayesNetFlags are the flags PrivBayes and DP-SUBN3 share.
type bayesNetFlags struct {
	owners      ownerFlags
	src         sourceFlags
	epsilon     float64
	beta, theta float64
	k, bins     int
	score       string
	label       string
	outputFlags
}

func (f *bayesNetFlags) register(fs *pflag.FlagSet) {
	f.owners.register(fs)
	f.src.register(fs)
	fs.Float64Var(&f.epsilon, "epsilon", 1, "privacy budget ε of each owner")
	fs.Float64Var(&f.beta, "beta", 0.3, "share of ε spent on learning the network (PrivBayes' β)")
	fs.Float64Var(&f.theta, "theta", 4, "usefulness threshold θ that bounds the parents' domain")
	fs.IntVar(&f.k, "k", 0, "fix the network's degree k (0: parent sets chosen by θ-usefulness)")
	fs.StringVar(&f.score, "score", "r", "r (L1 distance from independence) | mi (mutual information)")
	fs.IntVar(&f.bins, "bins", 8, "equal-width bins per numeric attribute over its declared bounds")
	fs.StringVar(&f.label, "label", "", "attribute to be predicted from the synthetic rows: warn if the network leaves it independent of the rest (default: the --dataset's label)")
	f.outputFlags.register(fs, "synthetic CSV")
}

func (f *bayesNetFlags) check() error {
	if err := f.resolve(); err != nil {
		return err
	}
	if err := checkBudget(f.epsilon, 0); err != nil {
		return err
	}
	if !(f.beta > 0 && f.beta < 1) {
		return usagef("--beta must be in (0, 1), got %v", f.beta)
	}
	if !(f.theta > 0) {
		return usagef("--theta must be positive, got %v", f.theta)
	}
	if f.k < 0 || f.bins < 2 {
		return usagef("--k must be ≥ 0 and --bins ≥ 2, got %d and %d", f.k, f.bins)
	}
	if f.score != string(privbayes.R) && f.score != string(privbayes.MI) {
		return usagef("--score must be r or mi, got %q", f.score)
	}
	return nil
}

func (f *bayesNetFlags) options(cmd *cobra.Command) publish.BayesNetOptions {
	return publish.BayesNetOptions{Settings: bnspec.Settings{Epsilon: f.epsilon, Beta: f.beta, Theta: f.theta, K: f.k,
		Score: privbayes.Score(f.score), Bins: f.bins}, Source: f.src.source(cmd.Flags(), cmd.ErrOrStderr()), Label: f.labelName()}
}

// labelName is --label, or else the built-in dataset's label.
func (f *bayesNetFlags) labelName() string {
	if f.label != "" || f.owners.dataset == "" {
		return f.label
	}
	for _, d := range datasets.List() {
		if d.Name == f.owners.dataset {
			return d.Label
		}
	}
	return ""
}

const bayesNetDetails = `Every attribute is discretised with the public schema only: numeric ones
into --bins equal-width bins over their declared bounds (decoded uniformly
inside the bin), categorical ones into their categories. The network is
chosen with the exponential mechanism (ε1 = βε, score R or mutual
information; parent sets are the largest whose domain keeps the noisy
marginal θ-useful, or all sets of --k parents), and its conditionals come
from Laplace-noised count marginals (ε2 = (1−β)ε). The synthetic rows are
sampled from the DP model. PrivBayes' generalisation hierarchies and its F
score are not implemented. A numeric attribute also gets one code for its
declared minimum and one for 0 when 0 lies inside its bounds, decoded to
exactly that value, so a column that is mostly 0 stays mostly 0. A warning
is printed (and written to the report) when the network leaves --label
independent of every other attribute or has no edge at all.`

func newPublishPrivBayesCmd() *cobra.Command {
	f := &bayesNetFlags{}
	cmd := &cobra.Command{
		Use:   "privbayes",
		Short: "Synthetic data from a differentially private Bayesian network (PrivBayes, one central owner)",
		Long: `PrivBayes (Zhang, Cormode, Procopiuc, Srivastava, Xiao; SIGMOD 2014, TODS
2017), the centralised baseline of the LDA-DP paper. All records are held
by one owner: several --input files are joined into one table.

` + bayesNetDetails + `

Example:
  dppub publish privbayes --dataset nltcs --epsilon 0.4 --out nltcs-synth.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.check(); err != nil {
				return err
			}
			if (cmd.Flags().Changed("owners") || cmd.Flags().Changed("parties")) && f.owners.parties != 1 {
				return usagef("privbayes has one central owner; --owners must be 1, got %d (use dp-subn3 for several owners)", f.owners.parties)
			}
			if f.owners.dataset != "" {
				f.owners.parties = 1
			}
			o := f.options(cmd)
			tables, err := f.owners.load(o.Source)
			if err != nil {
				return err
			}
			res, err := publish.PrivBayes(cmd.Context(), publish.PrivBayesOptions{BayesNetOptions: o, Table: union(tables)})
			if err != nil {
				return err
			}
			return finishBayesNet(cmd, f, tables, res)
		},
	}
	f.register(cmd.Flags())
	return cmd
}

func newPublishDPSUBN3Cmd() *cobra.Command {
	f := &bayesNetFlags{}
	frontier := 0
	cmd := &cobra.Command{
		Use:   "dp-subn3",
		Short: "Synthetic data from owners updating a DP Bayesian network in turn (our reconstruction of DP-SUBN)",
		Long: `DP-SUBN (Cheng, Tang, Su, Chen, Wu, Zhu; IEEE TKDE 2020), written DP-SUBN³
by the PPCA-DP-MH and LDA papers, which compare against it. Only the
papers' abstracts were available, so this is OUR RECONSTRUCTION (see the
privacy report): the owners take turns; owner 1 runs PrivBayes; every later
owner draws a sample from the previous owners' model as prior, joins it to
its own records to choose the network (the prior lowers the sensitivity of
the scores) and adds its noisy counts to the prior's; a semi-trusted
curator relays the models and samples the synthetic rows from the last
one. Each owner spends its own ε.

` + bayesNetDetails + `

Example:
  dppub publish dp-subn3 --dataset adult --owners 3 --epsilon 0.2 --out adult-synth.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.check(); err != nil {
				return err
			}
			if frontier < 0 {
				return usagef("--frontier must be ≥ 0, got %d", frontier)
			}
			o := f.options(cmd)
			tables, err := f.owners.load(o.Source)
			if err != nil {
				return err
			}
			res, err := publish.DPSUBN3(cmd.Context(), publish.DPSUBN3Options{Owners: tables, Source: o.Source, Label: o.Label,
				Settings: dpsubn3.Settings{Settings: o.Settings, Frontier: frontier}})
			if err != nil {
				return err
			}
			return finishBayesNet(cmd, f, tables, res)
		},
	}
	f.register(cmd.Flags())
	cmd.Flags().IntVar(&frontier, "frontier", 0, "allow each attribute only the N attributes most correlated with it in the prior as parents (0: all)")
	return cmd
}

func finishBayesNet(cmd *cobra.Command, f *bayesNetFlags, tables []*data.Table, res *publish.BaselineResult) error {
	w := cmd.OutOrStdout()
	if err := f.publishTable(cmd, res.Synthetic, res.Report); err != nil {
		return err
	}
	names := res.Synthetic.Schema.Names()
	fmt.Fprintf(w, "Network (published, DP):\n")
	for _, fam := range res.Model.Net {
		parents := make([]string, len(fam.Parents))
		for i, p := range fam.Parents {
			parents[i] = names[p]
		}
		fmt.Fprintf(w, "  %s ← %v\n", names[fam.Child], parents)
	}
	if res.Clamped > 0 {
		fmt.Fprintf(w, "%d values were clamped to the declared bounds (local information, not published)\n", res.Clamped)
	}
	for _, msg := range res.Warnings {
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", msg)
	}
	return nil
}

func newEvalBaselinesCmd() *cobra.Command {
	f := &evalFlags{}
	paper := ""
	frontier := 0
	cmd := &cobra.Command{
		Use:   "baselines",
		Short: "The papers' baselines (PrivBayes, DP-SUBN3) on the figures that compare against them",
		Long: `Run the baseline of a comparison figure on the same data, the same 80/20
split and the same SVM as the method it is compared with, and write its
curve in the long-form CSV (join it with the method's own CSV to plot both):

  --paper ppca-dp-mh --figure 3   DP-SUBN3, accuracy vs ε (m = 3)
  --paper ppca-dp-mh --figure 4   DP-SUBN3, accuracy vs owners (ε = 0.2)
  --paper lda-dp --figure 1       PrivBayes, misclassification vs ε (one owner)
  --paper lda-dp --figure 2       DP-SUBN3, misclassification vs ε (m = 3)
  --paper lda-dp --figure 3       DP-SUBN3, misclassification vs owners (ε = 0.2)

The papers do not print their ε grid; {0.05, 0.1, 0.2, 0.4, 0.8, 1.6} is
used throughout. DP-SUBN3 is our reconstruction from the paper's abstract.

Example:
  dppub eval baselines --paper ppca-dp-mh --figure 3 --reps 3 --out subn3-fig3.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o, err := eval.BaselineFigure(paper, f.figure)
			if err != nil {
				return usagef("%v", err)
			}
			if f.reps < 1 {
				return usagef("--reps must be at least 1, got %d", f.reps)
			}
			o.Reps, o.Frontier = f.reps, frontier
			o.Source = f.src.source(cmd.Flags(), cmd.ErrOrStderr())
			o.Progress = newBar(cmd.ErrOrStderr(), fmt.Sprintf("%s %s fig %d", o.Method, paper, f.figure))
			rows, err := eval.BaselineRows(cmd.Context(), o)
			if err != nil {
				return err
			}
			x, metric := "epsilon", "accuracy"
			if len(o.Epsilons) == 1 {
				x = "parties"
			}
			if paper == mulldaspec.NameSingle {
				metric = "misclassification"
			}
			return writeEval(cmd, f, rows, eval.PlotOptions{Title: fmt.Sprintf("%s Fig. %d: %s", paper, f.figure, o.Method),
				X: x, Metric: metric, LogX: x == "epsilon"})
		},
	}
	f.register(cmd, "3 or 4 (ppca-dp-mh), 1, 2 or 3 (lda-dp)")
	cmd.Flags().StringVar(&paper, "paper", ppcaspec.Name, "ppca-dp-mh | lda-dp")
	cmd.Flags().IntVar(&frontier, "frontier", 0, "DP-SUBN3's search frontier width (0: all)")
	return cmd
}
