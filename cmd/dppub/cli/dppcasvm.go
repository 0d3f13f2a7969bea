package cli

import (
	"cmp"
	"fmt"
	"io"
	"slices"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/learn"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/method/dppcasvm"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// tableFlags choose one owner's table: a built-in dataset or one CSV file.
type tableFlags struct {
	dataset, input, schema string
	skip                   []string
	// ignore is the old name of --skip-columns on the DPPCA commands
	// (registerIgnore), kept for old scripts.
	ignore []string
}

func (t *tableFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&t.dataset, "dataset", "", "built-in dataset (see `dppub datasets`)")
	fs.StringVar(&t.input, "input", "", "CSV/TSV file (gzip allowed) with a header row, a .parquet file, or - for standard input")
	fs.StringVar(&t.schema, "schema", "", "schema JSON for --input (column kinds and public bounds)")
	kit.RegisterSkipColumns(fs, &t.skip)
}

// registerIgnore adds --ignore, the DPPCA commands' old name of
// --skip-columns: deprecated, its notice on stderr (deprecationsToStderr).
func (t *tableFlags) registerIgnore(fs *pflag.FlagSet) {
	fs.StringSliceVar(&t.ignore, "ignore", nil, "header columns of --input to skip (comma-separated)")
	_ = fs.MarkDeprecated("ignore", "use --skip-columns, the name every command that reads a CSV uses")
}

// check validates the flags without reading any data.
func (t *tableFlags) check() error {
	switch {
	case t.dataset != "" && t.input != "":
		return kit.Usagef("give --dataset or --input, not both")
	case t.dataset == "" && t.input == "":
		return kit.Usagef("no data: give --dataset NAME or --input FILE")
	case t.dataset != "":
		_, err := datasets.Schema(t.dataset)
		return err
	case t.schema == "":
		return kit.Usagef("--input needs --schema FILE (column kinds and public bounds)")
	}
	return nil
}

func (t *tableFlags) load(notes io.Writer) (*data.Table, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	skip := append(slices.Clone(t.skip), t.ignore...)
	if t.dataset != "" {
		return kit.LoadDataset(t.dataset, skip)
	}
	s, err := data.LoadSchema(t.schema)
	if err != nil {
		return nil, err
	}
	tab, _, err := kit.ReadOwnerTable(notes, t.input, s, skip)
	return tab, err
}

// defaultLabel is the dataset's documented label, if any.
func (t *tableFlags) defaultLabel() string {
	for _, d := range datasets.List() {
		if d.Name == t.dataset {
			return d.Label
		}
	}
	return ""
}

// dppcaFlags are a DPPCA method's own flags (the data, the randomness,
// the outputs); its settings are bound from the method's settings.
type dppcaFlags struct {
	table    tableFlags
	src      kit.SourceFlags
	settings *dppcasvm.Settings
	kit.OutputFlags
}

func newPublishDPPCACmd(spec method.Spec) *cobra.Command {
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
	f.table.register(cmd)
	f.table.registerIgnore(cmd.Flags())
	f.src.Register(cmd.Flags())
	fs := cmd.Flags()
	kit.BindSettings(fs, f.settings)
	f.OutputFlags.Register(fs, "model JSON")
	return cmd
}

func runPublishDPPCA(cmd *cobra.Command, spec method.Spec, f *dppcaFlags) error {
	if err := f.table.check(); err != nil {
		return err
	}
	if err := f.Resolve(); err != nil {
		return err
	}
	// The dataset's label is the default, recorded in the report as --label.
	f.settings.Label = cmp.Or(f.settings.Label, f.table.defaultLabel())
	st := *f.settings
	st.SetDefaults()
	if err := st.Validate(); err != nil {
		return err
	}
	table, err := f.table.load(cmd.ErrOrStderr())
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
	return printClassifierUtility(cmd, table, out.Detail)
}

// printClassifierUtility prints a classifier's utility on the owner's
// own rows (method.Classifier, its method.Summarizer lines around the
// accuracy), and warns on stderr (shown under --quiet too) when it does
// no better than the majority class: computed from the private rows, it
// never goes into the published report. A result that is no classifier
// prints nothing.
func printClassifierUtility(cmd *cobra.Command, train *data.Table, detail any) error {
	c, ok := detail.(method.Classifier)
	if !ok {
		return nil
	}
	pred, truth, err := c.Classify(train)
	if err != nil {
		return err
	}
	summary, _ := detail.(method.Summarizer)
	acc := learn.Accuracy(pred, truth)
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "Utility (computed on your real data, for your eyes only; not published):\n")
	if summary != nil {
		printLines(w, summary.Summary())
	}
	fmt.Fprintf(w, "  training accuracy: %.4f on %d records\n", acc, train.Len())
	kit.NoteQuality(cmd, "training_accuracy", acc)
	if summary != nil {
		printLines(w, summary.Notes())
	}
	if msg := c.Weak(acc, learn.MajorityShare(truth)); msg != "" {
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", msg)
	}
	return nil
}
