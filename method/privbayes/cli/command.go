// Package privbayescli is the hand-written `dppub publish privbayes`
// command, and the flags, help and summary that DP-SUBN3's command (whose
// base PrivBayes is) shares with it.
package privbayescli

import (
	"fmt"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/method/privbayes"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Flags are the flags PrivBayes and DP-SUBN3 share besides their
// settings, which are bound from the methods' settings structs.
type Flags struct {
	Owners kit.OwnerFlags
	Src    kit.SourceFlags
	Label  string
	Gate   kit.GateFlags
	kit.OutputFlags
}

// Register adds the shared flags and binds settings (a pointer to the
// method's settings, defaults filled).
func (f *Flags) Register(fs *pflag.FlagSet, settings method.Settings) {
	f.Owners.Register(fs)
	f.Src.Register(fs)
	kit.BindSettings(fs, settings)
	fs.StringVar(&f.Label, "label", "", "attribute to be predicted from the synthetic rows: warn if the network leaves it independent of the rest (default: the --dataset's label)")
	f.OutputFlags.Register(fs, "synthetic CSV")
	f.Gate.Register(fs)
}

// Check resolves the outputs and validates the settings before any data
// is read.
func (f *Flags) Check(st method.Settings) error {
	if err := f.Resolve(); err != nil {
		return err
	}
	st.SetDefaults()
	return st.Validate()
}

// NewSettings are the settings a command starts from: ε = 1 on
// the command line (a budget has no default in the settings).
func NewSettings() privbayes.Settings {
	st := privbayes.Settings{Epsilon: 1}
	st.SetDefaults()
	return st
}

// LabelName is --label, or else the built-in dataset's label.
func (f *Flags) LabelName() string {
	if f.Label != "" || f.Owners.Dataset == "" {
		return f.Label
	}
	for _, d := range datasets.List() {
		if d.Name == f.Owners.Dataset {
			return d.Label
		}
	}
	return ""
}

// Details is what the PrivBayes and DP-SUBN3 commands' help says of
// the mathematics they share.
const Details = `Every attribute is discretised with the public schema only: numeric ones
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

// Command is `dppub publish privbayes`.
func Command() *cobra.Command {
	f := &Flags{}
	st := NewSettings()
	cmd := &cobra.Command{
		Use:   privbayes.Name,
		Short: "Synthetic data from a differentially private Bayesian network (PrivBayes, one central owner)",
		Long: `PrivBayes (Zhang, Cormode, Procopiuc, Srivastava, Xiao; SIGMOD 2014, TODS
2017), the centralised baseline of the LDA-DP paper. All records are held
by one owner: several --input files are joined into one table.

` + Details + `

Example:
  dppub publish privbayes --dataset nltcs --epsilon 0.4 --out nltcs-synth.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return kit.FlagErrors(cmd.Flags(), runPublishPrivBayes(cmd, f, st))
		},
	}
	f.Register(cmd.Flags(), &st)
	return cmd
}

func runPublishPrivBayes(cmd *cobra.Command, f *Flags, st privbayes.Settings) error {
	if err := f.Check(&st); err != nil {
		return err
	}
	if (cmd.Flags().Changed("owners") || cmd.Flags().Changed("parties")) && f.Owners.Parties != 1 {
		return kit.Usagef("%s has one central owner; --owners must be 1, got %d (use %s for several owners)", privbayes.Name, f.Owners.Parties, dpsubn3Name)
	}
	if f.Owners.Dataset != "" {
		f.Owners.Parties = 1
	}
	src := f.Src.Source(cmd.Flags(), cmd.ErrOrStderr())
	tables, err := f.Owners.Load(cmd.ErrOrStderr(), src)
	if err != nil {
		return err
	}
	// One central owner: the gate holds out from the joined table.
	table, err := f.Gate.HoldOutTable(cmd.ErrOrStderr(), kit.Union(tables), f.Owners.Skip)
	if err != nil {
		return err
	}
	res, err := privbayes.Publish(cmd.Context(), privbayes.Options{Table: table,
		BayesNetOptions: privbayes.BayesNetOptions{Settings: st, Source: src, Label: f.LabelName()}})
	if err != nil {
		return err
	}
	return Finish(cmd, f, []*data.Table{table}, res)
}

// Finish writes the synthetic table behind the release gate,
// which attacks owners' rows (the rows the run was given).
func Finish(cmd *cobra.Command, f *Flags, owners []*data.Table, res *privbayes.Published) error {
	w := cmd.OutOrStdout()
	if err := f.Gate.PublishTable(cmd, &f.OutputFlags, owners, res.Synthetic, res.Report); err != nil {
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

// dpsubn3Name is the multi-owner method a --owners above 1 is pointed to
// (method/dpsubn3, which builds on this one; a base does not import the
// methods built on it).
const dpsubn3Name = "dp-subn3"
