// Package mulldacli is the hand-written `dppub publish lda-dp` and
// `mul-lda-dp` commands: the owners' tables, the ledger the run records
// in, the published projections and model, and their utility.
package mulldacli

import (
	"fmt"
	"strings"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/method"
	mulldaspec "github.com/dppub/dppub/method/mullda"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/eval"
	"github.com/dppub/dppub/learn"
	"github.com/dppub/dppub/ledger"
	"github.com/dppub/dppub/randx"
	"github.com/spf13/cobra"
)

type ldaFlags struct {
	owners    kit.OwnerFlags
	src       kit.SourceFlags
	settings  mulldaspec.Settings
	ledgerDir string
	kit.OutputFlags
	model string
}

const ldaLong = `LDA-DP and Mul-LDA-DP (Gu, Zhang, Zhang 2022): publish a linear
discriminant projection of labelled data under (ε, δ)-differential privacy.
Features are encoded into [0,1] with the public schema and every row is
scaled to unit L2 norm. Each owner releases its class sums, class counts and
Σxxᵀ with Gaussian noise; the publisher forms the DP class means and pooled
within-class scatter S_w, projects S_w onto the PSD cone, adds a ridge at
the noise scale and solves S_w w = μ1 − μ0 by Cholesky (C classes: the C−1
directions of S_b v = λ S_w v). It publishes the direction(s), the DP class
statistics, and labelled projections.

Outputs (beside --out):
  <out>                labelled projections z1..zd, label (CSV)
  <out>.model.json     directions over the encoded features, DP class means
                       and counts, projected means and covariance
  <out>.privacy.json   the privacy report

Calibrations:
  sound (default)  one analytic Gaussian mechanism over class sums (L2
                   sensitivity 2), class counts (√2, noised at no extra cost)
                   and Σxxᵀ (√2), paying for the publisher's whole view
  paper            the paper's σ1 and σ2 (Theorems 5-6), ε1 = ε2 = ε/2,
                   δ1 = δ2 = δ/2, class counts exact; the report states the
                   true guarantee
Projections:
  default              synthetic labelled projections drawn from the DP
                       class-conditional Gaussians (covered by DP)
  --paper-projections  X·w of the real rows, as the paper publishes them:
                       NOT covered by DP, and the report says so
Ledger:
  --ledger DIR         every owner and the publisher append signed entries to
                       the publishing ledger in DIR; each party verifies the
                       entries it relies on, and the whole ledger is verified
                       at the end (see dppub ledger --help)`

// Command is `dppub publish lda-dp` (method mullda.NameSingle) or
// `dppub publish mul-lda-dp` (mullda.NameMulti).
func Command(method string) *cobra.Command {
	f := &ldaFlags{settings: mulldaspec.Settings{Epsilon: 1}}
	f.settings.SetDefaults()
	short := "Linear discriminant projection of one owner's labelled data under DP (LDA-DP)"
	long := ldaLong + `

Example:
  dppub publish lda-dp --dataset nltcs --label money --epsilon 0.5 --delta 1e-5 --out money.csv`
	if method == mulldaspec.NameMulti {
		short = "Linear discriminant projection of several owners' data, correlated noise and a ledger (Mul-LDA-DP)"
		long = ldaLong + `
Noise (Mul-LDA-DP):
  correlated (default)  the paper's scheme: a dealer hands out zero-sum noise
                        shares so the aggregate carries the centralised noise
  independent           each owner adds the full noise (no dealer)

Examples:
  dppub publish mul-lda-dp --dataset adult --label income --owners 3 \
      --epsilon 1 --delta 1e-5 --ledger ./ledger --out adult-lda.csv
  dppub publish mul-lda-dp --input a.csv --input b.csv --schema s.json --label y \
      --epsilon 0.5 --delta 1e-6 --noise independent --out proj.csv`
	}
	cmd := &cobra.Command{
		Use: method, Short: short, Long: long, Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPublishLDA(cmd, f, method) },
	}
	fs := cmd.Flags()
	f.owners.Register(fs)
	f.src.Register(fs)
	kit.BindSettings(fs, &f.settings)
	fs.StringVar(&f.ledgerDir, "ledger", "", "publishing ledger directory, created if absent (see dppub ledger --help)")
	f.OutputFlags.Register(fs, "labelled projections CSV")
	fs.StringVar(&f.model, "model", "", "model JSON (default <out>.model.json)")
	return cmd
}

func runPublishLDA(cmd *cobra.Command, f *ldaFlags, method string) error {
	if err := f.check(); err != nil {
		return err
	}
	if method == mulldaspec.NameSingle && len(f.owners.Inputs) > 1 {
		return kit.Usagef("lda-dp takes one owner's --input, got %d files (%s): use mul-lda-dp for several owners", len(f.owners.Inputs), strings.Join(f.owners.Inputs, ", "))
	}
	if method == mulldaspec.NameSingle && f.owners.Parties == 0 {
		f.owners.Parties = 1 // one owner unless told otherwise
	}
	src := f.src.Source(cmd.Flags(), cmd.ErrOrStderr())
	owners, err := f.owners.Load(cmd.ErrOrStderr(), src)
	if err != nil {
		return err
	}
	if method == mulldaspec.NameSingle && len(owners) != 1 {
		return kit.Usagef("lda-dp takes one owner, got %d (use mul-lda-dp)", len(owners))
	}
	if f.settings.Label == "" {
		if f.settings.Label = mulldaspec.DatasetLabel(f.owners.Dataset); f.settings.Label == "" {
			return kit.Usagef("--label COL is required")
		}
	}
	if err := checkLDASettings(method, f.settings, owners); err != nil {
		return err // before the ledger is opened: a mistake writes nothing
	}
	o := mulldaspec.Options{Owners: owners, Source: src, Settings: f.settings}
	var closeLedger func() error
	if f.ledgerDir != "" {
		setup, fl, err := openLedgerDir(f.ledgerDir, mulldaspec.Parties(len(owners)))
		if err != nil {
			return err
		}
		o.Ledger, closeLedger = setup, fl.Close
		defer fl.Close()
	}
	run := mulldaspec.PublishMulti
	if method == mulldaspec.NameSingle {
		run = mulldaspec.PublishSingle
	}
	res, err := run(cmd.Context(), o)
	if err != nil {
		return err
	}
	if closeLedger != nil {
		if err := closeLedger(); err != nil {
			return err
		}
	}
	if err := writeLDAOutputs(cmd, f, res); err != nil {
		return err
	}
	return printLDASummary(cmd, f, owners, res)
}

// openLedgerDir opens (creating if needed) the ledger in dir for a
// publication by parties in one process, the publisher operating it.
func openLedgerDir(dir string, parties []string) (*ledger.Setup, *ledger.FileLedger, error) {
	return kit.OpenLedgerDirAs(dir, mulldaspec.RolePublisher, parties)
}

// checkLDASettings validates the settings and the label as the session
// will, so that a mistake is refused before anything is written (the
// ledger directory and its keys) or spent.
func checkLDASettings(name string, st mulldaspec.Settings, owners []*data.Table) error {
	records := 0
	for _, t := range owners {
		records += t.Len()
	}
	st.SetDefaults()
	st.DefaultRecords(records)
	if err := st.Validate(); err != nil {
		return fmt.Errorf("%s: %w", name, method.SettingsError{Err: err})
	}
	s := owners[0].Schema
	a, err := s.Attribute(st.Label)
	if err != nil {
		return kit.Usagef("--label %q: no such column (have %s)", st.Label, strings.Join(s.Names(), ", "))
	}
	if a.Kind == data.Numeric {
		return kit.Usagef("--label %q is numeric: LDA needs a categorical or binary class column", st.Label)
	}
	return nil
}

func (f *ldaFlags) check() error {
	if err := f.Resolve(); err != nil {
		return err
	}
	if f.model == "" {
		f.model = f.Out + ".model.json"
	}
	return nil
}

func writeLDAOutputs(cmd *cobra.Command, f *ldaFlags, res *mulldaspec.Published) error {
	table, err := kit.TableBytes(f.Out, res.Published)
	if err != nil {
		return fmt.Errorf("writing %s: %w", f.Out, err)
	}
	return kit.PublishFiles(cmd, nil, res.Report, f.Report, kit.OutputFile{Path: f.Out, Data: table}, kit.OutputFile{Path: f.model, Data: res.Model})
}

func printLDASummary(cmd *cobra.Command, f *ldaFlags, owners []*data.Table, res *mulldaspec.Published) error {
	w := cmd.OutOrStdout()
	kit.PrintReport(cmd, w, res.Report)
	_, d := res.Directions.Dims()
	fmt.Fprintf(w, "\nWrote %d labelled projections (d = %d) to %s, the model to %s and the report to %s\n",
		res.Published.Len(), d, kit.DisplayPath(f.Out, kit.StdoutName), f.model, f.Report)
	if res.Ledger != nil {
		fmt.Fprintf(w, "Ledger %s verified: %d entries, checkpoint of size %d signed by %s; artifact sha256 %s\n",
			f.ledgerDir, res.Ledger.Entries, res.Ledger.Checkpoint.Size, res.Ledger.Signer, res.ArtifactSHA256)
	}
	u := ldaUnionTables(owners)
	z, err := res.Project(u)
	if err != nil {
		return err
	}
	y, _, err := eval.Task{Label: f.settings.Label, Positive: f.settings.Positive}.Labels(u)
	if err != nil {
		return err
	}
	clf, err := learn.TrainSVM(res.Projections, res.Labels, len(res.ClassNames), learn.DefaultSVMOptions(), randx.NewSecure())
	if err != nil {
		return nil // e.g. a single class was drawn: no utility line
	}
	fmt.Fprintf(w, "Utility (computed on your real data, for your eyes only; not published):\n")
	miss := learn.MisclassificationRate(clf.PredictAll(z), y)
	fmt.Fprintf(w, "  an SVM trained on the published projections misclassifies %.1f%% of your own rows\n", 100*miss)
	kit.NoteQuality(cmd, "svm_on_projections_misclassification", miss)
	fmt.Fprintf(w, "  protocol: %d messages, %.2f MB, %v\n", res.Traffic.Messages, float64(res.Traffic.TotalBytes())/1e6, res.Elapsed.Round(1e6))
	if res.Clamped > 0 {
		fmt.Fprintf(w, "  %d values were clamped to the declared bounds\n", res.Clamped)
	}
	return nil
}

func ldaUnionTables(tables []*data.Table) *data.Table {
	u := &data.Table{Schema: tables[0].Schema}
	for _, t := range tables {
		u.Rows = append(u.Rows, t.Rows...)
	}
	return u
}

// Commands are the commands of LDA-DP and Mul-LDA-DP.
func Commands() []func() *cobra.Command {
	return []func() *cobra.Command{
		func() *cobra.Command { return Command(mulldaspec.NameSingle) },
		func() *cobra.Command { return Command(mulldaspec.NameMulti) },
	}
}
