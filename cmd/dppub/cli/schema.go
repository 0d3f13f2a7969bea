package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/internal/fsutil"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/schemadisc"
	"github.com/spf13/cobra"
)

type schemaFlags struct {
	out, report    string
	epsilon, delta float64
	id, label      string
	skip, skipOld  []string
	force          bool
	src            kit.SourceFlags
}

func newSchemaCmd() *cobra.Command {
	f := &schemaFlags{}
	cmd := &cobra.Command{
		Use:   "schema INPUT.csv --out SCHEMA.json",
		Short: "Draft a schema for your CSV (DP bounds with --epsilon, or placeholders to review)",
		Long: `Read a CSV or TSV file with a header row (or a .parquet file) and write a draft schema: column
names, kinds (numeric, categorical, binary), integer or decimal precision,
and the public bounds and category lists every method needs.

Bounds and category lists must never be read off the private data as they
are (a column's minimum is one person's value). Two ways:

  --epsilon E [--delta D]   find them under differential privacy: numeric
                            bounds at the 0.5% and 99.5% quantiles of a
                            noisy histogram on a public log grid with a bin
                            for exact zeros (a bound never stops at a point
                            mass such as 0 while values lie beyond it; each
                            column shows the share its bounds would clamp),
                            category lists by noisy partition selection
                            (rarer values read as "other"; the budget is
                            sized so that a value of 5% of the rows is kept
                            where it can be). On a table too small for the
                            budget to give usable bounds (decided from the
                            row count and ε before spending), nothing is
                            spent on them and the columns that need your
                            bounds are listed. The budget is charged
                            to the data's owner and recorded in a privacy
                            report beside the schema (--report); it adds to
                            the budget of every later release.
  (no --epsilon)            spend nothing: numeric bounds are left null for
                            you to fill from public knowledge, category
                            lists are the values found (WITHOUT noise), and
                            the schema is marked "draft": true. Every
                            publishing command refuses it until you have
                            reviewed it and deleted that line.

Kinds and precision are read from the data without noise in both cases:
check them.

INPUT "-" reads standard input and --out - writes the schema to standard
output (the summary then goes to standard error; with --epsilon, give
--report FILE).

Examples:
  dppub schema people.csv --out people.json
  dppub schema people.csv --epsilon 0.5 --label smoker --skip-columns patient-id,note --out people.json
  gunzip -c people.csv.gz | dppub schema - --out - > people.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runSchema(cmd, args[0], f) },
	}
	fs := cmd.Flags()
	fs.StringVar(&f.out, "out", "", "schema JSON to write (required)")
	fs.StringVar(&f.report, "report", "", "privacy report JSON, with --epsilon (default <out>.privacy.json)")
	fs.Float64Var(&f.epsilon, "epsilon", 0, "find bounds and categories under DP at this budget ε (default: a draft with placeholders, no budget)")
	fs.Float64Var(&f.delta, "delta", 0, "δ of the category selection, with --epsilon (default 1/n²)")
	fs.StringVar(&f.id, "id", "", "ID column: carried with each row, never an attribute")
	kit.RegisterSkipColumns(fs, &f.skip)
	fs.StringArrayVar(&f.skipOld, "skip", nil, "column to leave out of the schema (repeat)")
	_ = fs.MarkDeprecated("skip", "use --skip-columns, the name every command that reads a CSV uses")
	fs.StringVar(&f.label, "label", "", "categorical or binary column to record as the schema's label")
	fs.BoolVar(&f.force, "force", false, "replace existing output files")
	f.src.Register(fs)
	return cmd
}

func runSchema(cmd *cobra.Command, input string, f *schemaFlags) error {
	if err := f.check(cmd, input); err != nil {
		return err
	}
	raw, err := readRaw(input)
	if err != nil {
		return err
	}
	res, err := schemadisc.Discover(raw, schemadisc.Options{
		Epsilon: f.epsilon, Delta: f.delta, ID: f.id, Skip: append(f.skip, f.skipOld...), Label: f.label,
		Source: f.src.Source(cmd.Flags(), cmd.ErrOrStderr()),
	})
	if err != nil {
		return err
	}
	js, err := json.MarshalIndent(res.Schema, "", "  ")
	if err != nil {
		return err
	}
	js = append(js, '\n')
	if res.Report != nil {
		err = kit.PublishFiles(cmd, nil, res.Report, f.report, kit.OutputFile{Path: f.out, Data: js})
	} else {
		err = kit.WriteOutput(cmd, f.out, js)
	}
	if err != nil {
		return err
	}
	printSchemaSummary(cmd.OutOrStdout(), input, f, res)
	return nil
}

// check validates the flags and the output paths before anything is
// read or spent.
func (f *schemaFlags) check(cmd *cobra.Command, input string) error {
	switch {
	case f.out == "":
		return kit.Usagef("--out SCHEMA.json is required")
	case cmd.Flags().Changed("epsilon") && (!(f.epsilon > 0) || f.epsilon > 1e6):
		return kit.Usagef("--epsilon must be positive and finite, got %v", f.epsilon)
	case f.delta != 0 && !cmd.Flags().Changed("epsilon"):
		return kit.Usagef("--delta needs --epsilon (a draft spends no budget)")
	case !(f.delta >= 0 && f.delta < 1):
		return kit.Usagef("--delta must be in [0, 1), got %v", f.delta)
	case f.report != "" && !cmd.Flags().Changed("epsilon"):
		return kit.Usagef("--report needs --epsilon (a draft spends no budget and has no privacy report)")
	}
	outs := []string{f.out}
	if cmd.Flags().Changed("epsilon") {
		if f.report == "" {
			f.report = f.out + ".privacy.json"
		}
		outs = append(outs, f.report)
	}
	return checkOwnerOutputs(f.force, []string{input}, outs...)
}

// checkOwnerOutputs refuses an output that is also an input or another
// output, lies in a missing directory, or exists (unless force).
func checkOwnerOutputs(force bool, inputs []string, outs ...string) error {
	if err := fsutil.CheckOutputs(outs, inputs, force); err != nil {
		return kit.UsageError{Err: err}
	}
	return nil
}

func readRaw(path string) (*data.Raw, error) {
	if data.IsParquetPath(path) {
		return data.ReadRawParquetFile(path)
	}
	f, name, err := kit.OpenInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return data.ReadRaw(f, name)
}

// maxSchemaLines caps the lines of columns that need nothing; every
// column that needs review or a look is listed, first, whatever their
// number.
const maxSchemaLines = 15

func printSchemaSummary(w io.Writer, input string, f *schemaFlags, res *schemadisc.Result) {
	s := res.Schema
	fmt.Fprintf(w, "Read %d rows × %d columns from %s.\n", res.Rows, len(s.Attributes), kit.DisplayPath(input, kit.StdinName))
	if res.Plan != "" {
		fmt.Fprintf(w, "Budget: %s.\n", res.Plan)
	}
	out := kit.DisplayPath(f.out, kit.StdoutName)
	cols := slices.Clone(res.Columns)
	slices.SortStableFunc(cols, func(a, b schemadisc.Column) int { return schemaRank(a) - schemaRank(b) })
	width := 0
	for _, c := range cols {
		width = max(width, min(len(c.Name), 24))
	}
	for i, c := range cols {
		if schemaRank(c) == 2 && i >= maxSchemaLines {
			fmt.Fprintf(w, "  ... and %d more columns that need nothing (see %s)\n", len(cols)-i, out)
			break
		}
		mark := [3]string{"!", "?", " "}[schemaRank(c)]
		fmt.Fprintf(w, "%s %-*s %-11s %s\n", mark, width, c.Name, c.Kind, c.Note)
	}
	switch {
	case res.Report != nil:
		p := res.Report.Parties[0]
		fmt.Fprintf(w, "Spent %v of the data's budget (privacy report: %s); it adds to every later release from this data.\n", p.Spent, f.report)
	case f.epsilon > 0:
		fmt.Fprintln(w, "Spent nothing of the data's budget (no privacy report written): it could buy no usable answer on this table.")
	}
	if s.Draft {
		fmt.Fprintf(w, "Wrote a DRAFT schema to %s. Review the columns marked !, then delete the line \"draft\": true:\n", out)
		fmt.Fprintln(w, "publishing commands refuse the file until then.")
		return
	}
	fmt.Fprintf(w, "Wrote the schema to %s; check the columns marked ? and the kinds.\n", out)
}

// schemaRank orders a summary: columns needing review, then those
// deserving a look, then the rest.
func schemaRank(c schemadisc.Column) int {
	switch {
	case c.Review:
		return 0
	case c.Warn:
		return 1
	}
	return 2
}
