// Package dppcasvmcli is the hand-written `dppub publish` command of each
// of DPPCA-SVM's four variants (dppca-svm, pca-dpsvm, ag-svm,
// mod-sulq-svm): one owner's table, the classifier's utility on its rows.
package dppcasvmcli

import (
	"cmp"
	"fmt"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/method/dppcasvm"
	"github.com/spf13/cobra"
)

// dppcaFlags are a DPPCA method's own flags (the data, the randomness,
// the outputs); its settings are bound from the method's settings.
type dppcaFlags struct {
	table    kit.TableFlags
	src      kit.SourceFlags
	settings *dppcasvm.Settings
	kit.OutputFlags
}

// Command is the `dppub publish` command of one of DPPCA-SVM's variants
// (a spec of dppcasvm.Specs).
func Command(spec method.Spec) *cobra.Command {
	f := &dppcaFlags{settings: spec.NewSettings().(*dppcasvm.Settings)}
	// A budget has no default in the settings; on the command line ε = 1.
	f.settings.Epsilon = 1
	f.settings.SetDefaults()
	cmd := &cobra.Command{
		Use:   spec.Name,
		Short: spec.Summary,
		Long: spec.Summary + `.

From Huang, Yang, Xu, Zhou (2021), "Differential Privacy Principal Component
Analysis for Support Vector Machines". One data owner's table is encoded by
its public schema into [0,1], centred (--scaling), every row scaled onto the
unit ball, and A = XᵀX/n is released with noise; the top-k eigenvectors
(k by the contribution rate α, or --k) project the rows, and an SVM
classifies the projections (one-vs-rest for more than two classes).

Calibrations:
  sound (default)  noise scaled to the true replace-one sensitivities; the
                   budget is split between the components (--component-share)
                   and an SVM trained by objective perturbation (Chaudhuri et
                   al. 2011, Huber hinge), so the published model is DP end to
                   end (pca-dpsvm: output perturbation, but its exact PCA
                   means the model is NOT DP; the report says so)
  paper            the paper's noise scales and a non-private SVM: only the
                   components are DP (pca-dpsvm: nothing); the report says so

Scaling of the encoded features before rows are clipped:
  box (default)    centre every column at 0.5, the middle of its declared
                   bounds (public, free)
  none             keep [0,1] as the paper's uncentred A = XᵀX/n does
  standardize      z-score with the records' exact mean and sd (NOT DP: they
                   are published in the model); what the paper's Table 3
                   suggests it did

Output: the model JSON (schema, scaling, components, per-class weights,
embedded privacy report) and the report beside it. Apply it with
` + "`dppub predict --model FILE --input FILE`" + `.

Examples:
  dppub publish ` + spec.Name + ` --dataset musk2 --epsilon 1 --out musk-model.json
  dppub publish ` + spec.Name + ` --input train.csv --schema s.json --label class --out model.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return kit.FlagErrors(cmd.Flags(), runPublishDPPCA(cmd, spec, f))
		},
	}
	f.table.Register(cmd)
	f.table.RegisterIgnore(cmd.Flags())
	f.src.Register(cmd.Flags())
	fs := cmd.Flags()
	kit.BindSettings(fs, f.settings)
	f.OutputFlags.Register(fs, "model JSON")
	return cmd
}

func runPublishDPPCA(cmd *cobra.Command, spec method.Spec, f *dppcaFlags) error {
	if err := f.table.Check(); err != nil {
		return err
	}
	if err := f.Resolve(); err != nil {
		return err
	}
	// The dataset's label is the default, recorded in the report as --label.
	f.settings.Label = cmp.Or(f.settings.Label, f.table.DefaultLabel())
	st := *f.settings
	st.SetDefaults()
	if err := st.Validate(); err != nil {
		return err
	}
	table, err := f.table.Load(cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	out, err := method.RunCentral(cmd.Context(), spec, &st, method.Local{Table: table,
		Source: f.src.Source(cmd.Flags(), cmd.ErrOrStderr())})
	if err != nil {
		return err
	}
	// The model is written before its report, which records the model's
	// digest; if the report cannot be written the model is removed, so
	// nothing is half-published.
	if err := kit.PublishFiles(cmd, nil, out.Report, f.Report, kit.OutputFile{Path: f.Out, Data: out.Data}); err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	kit.PrintReport(cmd, w, out.Report)
	fmt.Fprintf(w, "\nWrote the model to %s and the report to %s\n", kit.DisplayPath(f.Out, kit.StdoutName), f.Report)
	return kit.PrintClassifierUtility(cmd, table, out.Detail)
}

// Commands are the commands of every variant of dppcasvm.Specs.
func Commands() []func() *cobra.Command {
	var out []func() *cobra.Command
	for _, s := range dppcasvm.Specs {
		out = append(out, func() *cobra.Command { return Command(s) })
	}
	return out
}
