package kit

import (
	"fmt"
	"io"
	"slices"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/learn"
	"github.com/dppub/dppub/method"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TableFlags choose one owner's table: a built-in dataset or one CSV file.
type TableFlags struct {
	dataset, input, schema string
	skip                   []string
	// ignore is the old name of --skip-columns on the DPPCA commands
	// (RegisterIgnore), kept for old scripts.
	ignore []string
}

// Register adds the table flags to cmd.
func (t *TableFlags) Register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&t.dataset, "dataset", "", "built-in dataset (see `dppub datasets`)")
	fs.StringVar(&t.input, "input", "", "CSV/TSV file (gzip allowed) with a header row, a .parquet file, or - for standard input")
	fs.StringVar(&t.schema, "schema", "", "schema JSON for --input (column kinds and public bounds)")
	RegisterSkipColumns(fs, &t.skip)
}

// RegisterIgnore adds --ignore, the DPPCA commands' old name of
// --skip-columns: deprecated, its notice on stderr (deprecationsToStderr).
func (t *TableFlags) RegisterIgnore(fs *pflag.FlagSet) {
	fs.StringSliceVar(&t.ignore, "ignore", nil, "header columns of --input to skip (comma-separated)")
	_ = fs.MarkDeprecated("ignore", "use --skip-columns, the name every command that reads a CSV uses")
}

// Check validates the flags without reading any data.
func (t *TableFlags) Check() error {
	switch {
	case t.dataset != "" && t.input != "":
		return Usagef("give --dataset or --input, not both")
	case t.dataset == "" && t.input == "":
		return Usagef("no data: give --dataset NAME or --input FILE")
	case t.dataset != "":
		_, err := datasets.Schema(t.dataset)
		return err
	case t.schema == "":
		return Usagef("--input needs --schema FILE (column kinds and public bounds)")
	}
	return nil
}

// Load reads the table: the built-in dataset or the --input file.
func (t *TableFlags) Load(notes io.Writer) (*data.Table, error) {
	if err := t.Check(); err != nil {
		return nil, err
	}
	skip := append(slices.Clone(t.skip), t.ignore...)
	if t.dataset != "" {
		return LoadDataset(t.dataset, skip)
	}
	s, err := data.LoadSchema(t.schema)
	if err != nil {
		return nil, err
	}
	tab, _, err := ReadOwnerTable(notes, t.input, s, skip)
	return tab, err
}

// DefaultLabel is the dataset's documented label, if any.
func (t *TableFlags) DefaultLabel() string {
	for _, d := range datasets.List() {
		if d.Name == t.dataset {
			return d.Label
		}
	}
	return ""
}

// PrintClassifierUtility prints a classifier's utility on the owner's
// own rows (method.Classifier, its method.Summarizer lines around the
// accuracy), and warns on stderr (shown under --quiet too) when it does
// no better than the majority class: computed from the private rows, it
// never goes into the published report. A result that is no classifier
// prints nothing.
func PrintClassifierUtility(cmd *cobra.Command, train *data.Table, detail any) error {
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
		PrintLines(w, summary.Summary())
	}
	fmt.Fprintf(w, "  training accuracy: %.4f on %d records\n", acc, train.Len())
	NoteQuality(cmd, "training_accuracy", acc)
	if summary != nil {
		PrintLines(w, summary.Notes())
	}
	if msg := c.Weak(acc, learn.MajorityShare(truth)); msg != "" {
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", msg)
	}
	return nil
}

// PrintLines prints a result's terminal lines (method.Summarizer), indented
// under the report.
func PrintLines(w io.Writer, lines []string) {
	for _, l := range lines {
		fmt.Fprintf(w, "  %s\n", l)
	}
}
