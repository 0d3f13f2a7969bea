// Package mpcrdpcli is the hand-written `dppub publish mp-crdp` command:
// its built-in datasets split by columns, one input file per party joined
// on an ID, its query file, and the summary of its result.
package mpcrdpcli

import (
	"fmt"
	"os"
	"slices"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method/mpcrdp"
	"github.com/dppub/dppub/randx"
	"github.com/spf13/cobra"
)

type mpcrdpFlags struct {
	dataset    string
	inputs     []string
	schema, id string
	skip       []string
	parties    int
	rows       int
	src        kit.SourceFlags
	settings   mpcrdp.Settings
	queries    string
	kit.OutputFlags
}

// Command is `dppub publish mp-crdp`.
func Command() *cobra.Command {
	f := &mpcrdpFlags{}
	f.settings.Epsilon = 1
	f.settings.SetDefaults()
	cmd := &cobra.Command{
		Use:   "mp-crdp",
		Short: "Vertically partitioned parties release count queries or a classifier with correlated sensitivity (MP-CRDP)",
		Long: `MP-CRDP (Zhao, Wang, Mao, Huang, Su, Li, JCST 2022): parties holding different
features of the same individuals (joined on an ID) send them to a TRUSTED
server (the paper's trust model), which selects features privately (MP-FS:
stability selection per party, then noisy Pearson / normalised mutual
information to drop redundant ones; MP-OP: the exponential mechanism picks b
extra features by information gain (u1) or correlated sensitivity (u2)) and
releases noisy count queries, a logistic regression (functional mechanism) or
an SVM (objective perturbation). Budget: ε = ε1 + ε2/2 + ε2/2; every party
spends every step on its own accountant before the server runs it.

Privacy notions (--notion), i.e. what the release noise is scaled to:
  standard (default)  1: record-level DP
  group               ΔGS, the largest correlated group (or a declared
                      public bound, --group-size)
  correlated          ΔCS at w0 (Zhu et al. 2015)
  mp-crdp (the paper) ΔCS_p: correlated sensitivity at w0 = MCD
mp-crdp, correlated and group without --group-size calibrate noise to a
sensitivity computed from the private data: that is NOT standard DP, and
the report's guarantee status says so (not-standard-dp). Records correlate when they agree (same category, or
same equal-width bin of the declared bounds for numeric features) on at
least w0 of the features.

Calibrations:
  sound (default)  DP stability selection, Pearson/NMI from noisy sufficient
                   statistics with proven sensitivities, query noise for the
                   whole query set
  paper            the paper's steps as written; the report states what they
                   really guarantee and what is not DP

Data: --dataset adult|wdbc splits a built-in dataset by columns as the paper
does (Adult: --rows records drawn at random, 12 features, label income;
WDBC: 569 × 30, label diagnosis; party 1 holds the label), or one --input
file per party with a header, the ID column and its features, read with one
--schema declaring every column (the label in exactly one file).

Output: --release logreg|svm writes the model JSON (apply it with
` + "`dppub predict`" + `); --release queries writes a CSV of queries and noisy
counts (--queries FILE: one query per line, "feature=value; feature=value";
default: --num-queries random ones). The report goes beside it.

Examples:
  dppub publish mp-crdp --dataset adult --parties 3 --epsilon 1 --release logreg --out adult-lr.json
  dppub publish mp-crdp --dataset wdbc --release svm --notion mp-crdp --out wdbc-svm.json
  dppub publish mp-crdp --input a.csv --input b.csv --input c.csv --schema s.json --id pid \
      --label outcome --release queries --queries q.txt --out answers.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPublishMPCRDP(cmd, f) },
	}
	fs := cmd.Flags()
	fs.StringVar(&f.dataset, "dataset", "", "built-in dataset split by columns: adult | wdbc")
	fs.StringArrayVar(&f.inputs, "input", nil, "one CSV/TSV file per party with a header row (repeat)")
	fs.StringVar(&f.schema, "schema", "", "schema JSON declaring every column of the --input files (kinds, public bounds)")
	fs.StringVar(&f.id, "id", "", "ID column joining the parties' rows (default: the schema's id)")
	kit.RegisterSkipColumns(fs, &f.skip)
	fs.IntVar(&f.parties, "parties", 3, "--dataset: number of parties (consecutive feature groups)")
	fs.IntVar(&f.rows, "rows", mpcrdp.DefaultAdultRows, "--dataset adult: records drawn at random (0: all 45222)")
	f.src.Register(fs)
	kit.BindSettings(fs, &f.settings)
	fs.StringVar(&f.queries, "queries", "", "query file for --release queries")
	f.OutputFlags.Register(fs, "model JSON (logreg, svm) or answers CSV (queries)")
	return cmd
}

func runPublishMPCRDP(cmd *cobra.Command, f *mpcrdpFlags) error {
	if err := f.Resolve(); err != nil {
		return err
	}
	if f.dataset == "wdbc" && !cmd.Flags().Changed("b") {
		f.settings.B = 4 // the paper's b for the breast-cancer data
	}
	src := f.src.Source(cmd.Flags(), cmd.ErrOrStderr())
	parties, label, desc, err := f.load(src)
	if err != nil {
		return err
	}
	f.settings.Label, f.settings.Queries = label, nil
	if f.queries != "" {
		if !f.settings.ReleasesQueries() {
			return kit.Usagef("--queries needs --release queries")
		}
		file, err := os.Open(f.queries)
		if err != nil {
			return err
		}
		f.settings.Queries, err = mpcrdp.ParseQueries(file)
		file.Close()
		if err != nil {
			return err
		}
	}
	res, err := mpcrdp.Publish(cmd.Context(), mpcrdp.Options{Parties: parties, Source: src, Settings: f.settings})
	if err != nil {
		return err
	}
	if err := writeMPCRDP(cmd, f, res); err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	kit.PrintReport(cmd, w, res.Report)
	fmt.Fprintf(w, "\nData: %s\nWrote the %s to %s and the report to %s\n", desc, f.settings.Release, f.Out, f.Report)
	kit.NoteQuality(cmd, "mcd", res.Result.MCD)
	return res.WriteSummary(w, f.settings.Config, len(parties))
}

// load returns one table per party, the label and a description.
func (f *mpcrdpFlags) load(src *randx.Source) ([]*data.Table, string, string, error) {
	switch {
	case f.dataset != "" && len(f.inputs) > 0:
		return nil, "", "", kit.Usagef("give --dataset or --input, not both")
	case f.dataset != "":
		d, err := mpcrdp.LoadDataset(f.dataset, f.rows, src)
		if err != nil {
			return nil, "", "", kit.UsageError{Err: err}
		}
		label := d.Label
		if f.settings.Label != "" && f.settings.Label != label {
			return nil, "", "", kit.Usagef("--dataset %s predicts %q, not %q", f.dataset, label, f.settings.Label)
		}
		parties, err := mpcrdp.SplitFeatures(d.Table, d.Features, label, f.parties)
		if err != nil {
			return nil, "", "", kit.UsageError{Err: err}
		}
		return parties, label, fmt.Sprintf("%s, split by columns among %d parties", d.Description, f.parties), nil
	case len(f.inputs) == 0:
		return nil, "", "", kit.Usagef("no data: give --dataset adult|wdbc or one --input FILE per party")
	case f.schema == "" || f.settings.Label == "":
		return nil, "", "", kit.Usagef("--input needs --schema FILE and --label COLUMN")
	}
	if err := kit.CheckDistinctInputs(f.inputs, kit.PartiesOfColumn); err != nil {
		return nil, "", "", err
	}
	s, err := data.LoadSchema(f.schema)
	if err != nil {
		return nil, "", "", err
	}
	if f.id != "" {
		s.ID = f.id
	}
	if s.ID == "" {
		return nil, "", "", kit.Usagef("no ID column: give --id COLUMN or an \"id\" in the schema")
	}
	var parties []*data.Table
	for _, path := range f.inputs {
		t, err := readPartyFile(path, s, f.skip)
		if err != nil {
			return nil, "", "", err
		}
		parties = append(parties, t)
	}
	return parties, f.settings.Label, fmt.Sprintf("%d input files joined on %q", len(parties), s.ID), nil
}

// readPartyFile reads the schema's attributes that the file's header names,
// with the ID column.
func readPartyFile(path string, s data.Schema, skip []string) (*data.Table, error) {
	header, err := data.ReadHeader(path)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(header, s.ID) {
		return nil, fmt.Errorf("mp-crdp: %s has no ID column %q", path, s.ID)
	}
	var keep, ignore []string
	for _, name := range s.Names() {
		if slices.Contains(header, name) && !slices.Contains(skip, name) {
			keep = append(keep, name)
		}
	}
	for _, name := range skip {
		switch _, err := s.Attribute(name); {
		case slices.Contains(header, name):
			ignore = append(ignore, name)
		case err != nil:
			return nil, kit.Usagef("--%s: column %q is neither in the header of %s nor in the schema", kit.SkipColumnsFlag, name, path)
		}
	}
	if len(keep) == 0 {
		return nil, fmt.Errorf("mp-crdp: %s has none of the schema's columns", path)
	}
	sel, err := s.Select(keep...)
	if err != nil {
		return nil, err
	}
	t, _, err := data.ReadFile(path, sel, data.ReadOptions{Header: true, IgnoreColumns: ignore, MinRows: kit.MinOwnerRows})
	return t, err
}

func writeMPCRDP(cmd *cobra.Command, f *mpcrdpFlags, res *mpcrdp.Result) error {
	out, err := res.Output()
	if err != nil {
		return err
	}
	return kit.PublishFiles(cmd, nil, res.Report, f.Report, kit.OutputFile{Path: f.Out, Data: out})
}
