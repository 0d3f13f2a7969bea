package cli

import (
	"fmt"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/method/dpsubn3"
	bnspec "github.com/dppub/dppub/method/privbayes"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// bayesNetFlags are the flags PrivBayes and DP-SUBN3 share besides their
// settings, which are bound from the methods' settings structs.
type bayesNetFlags struct {
	owners kit.OwnerFlags
	src    kit.SourceFlags
	label  string
	gate   kit.GateFlags
	kit.OutputFlags
}

// register adds the shared flags and binds settings (a pointer to the
// method's settings, defaults filled).
func (f *bayesNetFlags) register(fs *pflag.FlagSet, settings method.Settings) {
	f.owners.Register(fs)
	f.src.Register(fs)
	kit.BindSettings(fs, settings)
	fs.StringVar(&f.label, "label", "", "attribute to be predicted from the synthetic rows: warn if the network leaves it independent of the rest (default: the --dataset's label)")
	f.OutputFlags.Register(fs, "synthetic CSV")
	f.gate.Register(fs)
}

// check resolves the outputs and validates the settings before any data
// is read.
func (f *bayesNetFlags) check(st method.Settings) error {
	if err := f.Resolve(); err != nil {
		return err
	}
	st.SetDefaults()
	return st.Validate()
}

// newBayesNetSettings are the settings a command starts from: ε = 1 on
// the command line (a budget has no default in the settings).
func newBayesNetSettings() bnspec.Settings {
	st := bnspec.Settings{Epsilon: 1}
	st.SetDefaults()
	return st
}

// labelName is --label, or else the built-in dataset's label.
func (f *bayesNetFlags) labelName() string {
	if f.label != "" || f.owners.Dataset == "" {
		return f.label
	}
	for _, d := range datasets.List() {
		if d.Name == f.owners.Dataset {
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
	st := newBayesNetSettings()
	cmd := &cobra.Command{
		Use:   bnspec.Name,
		Short: "Synthetic data from a differentially private Bayesian network (PrivBayes, one central owner)",
		Long: `PrivBayes (Zhang, Cormode, Procopiuc, Srivastava, Xiao; SIGMOD 2014, TODS
2017), the centralised baseline of the LDA-DP paper. All records are held
by one owner: several --input files are joined into one table.

` + bayesNetDetails + `

Example:
  dppub publish privbayes --dataset nltcs --epsilon 0.4 --out nltcs-synth.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return kit.FlagErrors(cmd.Flags(), runPublishPrivBayes(cmd, f, st))
		},
	}
	f.register(cmd.Flags(), &st)
	return cmd
}

func runPublishPrivBayes(cmd *cobra.Command, f *bayesNetFlags, st bnspec.Settings) error {
	if err := f.check(&st); err != nil {
		return err
	}
	if (cmd.Flags().Changed("owners") || cmd.Flags().Changed("parties")) && f.owners.Parties != 1 {
		return kit.Usagef("%s has one central owner; --owners must be 1, got %d (use %s for several owners)", bnspec.Name, f.owners.Parties, dpsubn3.Name)
	}
	if f.owners.Dataset != "" {
		f.owners.Parties = 1
	}
	src := f.src.Source(cmd.Flags(), cmd.ErrOrStderr())
	tables, err := f.owners.Load(cmd.ErrOrStderr(), src)
	if err != nil {
		return err
	}
	// One central owner: the gate holds out from the joined table.
	table, err := f.gate.HoldOutTable(cmd.ErrOrStderr(), kit.Union(tables), f.owners.Skip)
	if err != nil {
		return err
	}
	res, err := bnspec.Publish(cmd.Context(), bnspec.Options{Table: table,
		BayesNetOptions: bnspec.BayesNetOptions{Settings: st, Source: src, Label: f.labelName()}})
	if err != nil {
		return err
	}
	return finishBayesNet(cmd, f, []*data.Table{table}, res)
}

func newPublishDPSUBN3Cmd() *cobra.Command {
	f := &bayesNetFlags{}
	st := dpsubn3.Settings{Settings: newBayesNetSettings()}
	cmd := &cobra.Command{
		Use:   dpsubn3.Name,
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
			if err := f.check(&st); err != nil {
				return kit.FlagErrors(cmd.Flags(), err)
			}
			src := f.src.Source(cmd.Flags(), cmd.ErrOrStderr())
			tables, err := f.owners.Load(cmd.ErrOrStderr(), src)
			if err != nil {
				return err
			}
			if tables, err = f.gate.HoldOut(cmd.ErrOrStderr(), tables, f.owners.Skip); err != nil {
				return err
			}
			res, err := dpsubn3.Publish(cmd.Context(), dpsubn3.Options{Owners: tables, Source: src, Label: f.labelName(), Settings: st})
			if err != nil {
				return kit.FlagErrors(cmd.Flags(), err)
			}
			return finishBayesNet(cmd, f, tables, res)
		},
	}
	f.register(cmd.Flags(), &st)
	return cmd
}

// finishBayesNet writes the synthetic table behind the release gate,
// which attacks owners' rows (the rows the run was given).
func finishBayesNet(cmd *cobra.Command, f *bayesNetFlags, owners []*data.Table, res *bnspec.Published) error {
	w := cmd.OutOrStdout()
	if err := f.gate.PublishTable(cmd, &f.OutputFlags, owners, res.Synthetic, res.Report); err != nil {
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
