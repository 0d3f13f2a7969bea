// Package dpsubn3cli is the hand-written `dppub publish dp-subn3` command,
// over the flags and summary of its base PrivBayes's command.
package dpsubn3cli

import (
	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/method/dpsubn3"
	privbayescli "github.com/dppub/dppub/method/privbayes/cli"
	"github.com/spf13/cobra"
)

// Command is `dppub publish dp-subn3`.
func Command() *cobra.Command {
	f := &privbayescli.Flags{}
	st := dpsubn3.Settings{Settings: privbayescli.NewSettings()}
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

` + privbayescli.Details + `

Example:
  dppub publish dp-subn3 --dataset adult --owners 3 --epsilon 0.2 --out adult-synth.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.Check(&st); err != nil {
				return kit.FlagErrors(cmd.Flags(), err)
			}
			src := f.Src.Source(cmd.Flags(), cmd.ErrOrStderr())
			tables, err := f.Owners.Load(cmd.ErrOrStderr(), src)
			if err != nil {
				return err
			}
			if tables, err = f.Gate.HoldOut(cmd.ErrOrStderr(), tables, f.Owners.Skip); err != nil {
				return err
			}
			res, err := dpsubn3.Publish(cmd.Context(), dpsubn3.Options{Owners: tables, Source: src, Label: f.LabelName(), Settings: st})
			if err != nil {
				return kit.FlagErrors(cmd.Flags(), err)
			}
			return privbayescli.Finish(cmd, f, tables, res)
		},
	}
	f.Register(cmd.Flags(), &st)
	return cmd
}
