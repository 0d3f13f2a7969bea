package cli

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/internal/fsutil"
	"github.com/dppub/dppub/learn"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/model"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

type predictFlags struct {
	model, input, schema, dataset, out string
}

// register declares the command's flags into f.
func (f *predictFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.model, "model", "", "model JSON written by dppub publish (required)")
	fs.StringVar(&f.input, "input", "", "CSV/TSV file (gzip allowed) with a header row")
	fs.StringVar(&f.schema, "schema", "", "schema JSON to read --input with (default: the model's)")
	fs.StringVar(&f.dataset, "dataset", "", "built-in dataset to predict instead of --input")
	fs.StringVar(&f.out, "out", "", "CSV file for the predictions")
}

func newPredictCmd() *cobra.Command {
	return kit.NewCommand(&cobra.Command{
		Use:   "predict",
		Short: "Apply a published model to a table and print its accuracy if the label is present",
		Long: `Apply a model written by ` + "`dppub publish`" + ` (its JSON holds the schema, the
scaling, any projection and the classifier; an LDA-DP or Mul-LDA-DP
<out>.model.json classifies its projections with its DP class means,
covariance and class counts) to the rows of a CSV/TSV file or a
built-in dataset. Columns are matched by the header; columns the model does
not read are ignored, and the label column is optional. With the label
present, the accuracy is printed. Predictions go to --out as CSV (row number,
predicted class, and the true class when known).

The file is read with the model's own schema unless --schema gives another
one, which must declare the model's features identically (same bounds and
categories: the model's encoding depends on them).

Examples:
  dppub predict --model musk-model.json --dataset musk2
  dppub predict --model model.json --input test.csv --out predictions.csv`,
		Args: cobra.NoArgs,
	}, (*predictFlags).register, runPredict)
}

func runPredict(cmd *cobra.Command, f *predictFlags, _ []string) error {
	switch {
	case f.model == "":
		return kit.Usagef("--model FILE is required")
	case f.input != "" && f.dataset != "":
		return kit.Usagef("give --input or --dataset, not both")
	case f.input == "" && f.dataset == "":
		return kit.Usagef("no data: give --input FILE or --dataset NAME")
	case f.dataset != "" && f.schema != "":
		return kit.Usagef("--schema applies to --input only")
	}
	m, err := loadModel(f.model)
	if err != nil {
		return err
	}
	t, err := f.table(m)
	if err != nil {
		return err
	}
	pred, err := m.Apply(t)
	if err != nil {
		return err
	}
	truth, hasLabel, err := m.Truth(t)
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "Applied %s model (%s) to %d rows\n", m.Method, f.model, t.Len())
	if hasLabel {
		fmt.Fprintf(w, "Accuracy: %.4f (%d rows, label %q)\n", learn.Accuracy(pred, truth), len(truth), m.Label)
	} else {
		fmt.Fprintf(w, "No %q column: no accuracy\n", m.Label)
	}
	if f.out == "" {
		return nil
	}
	if err := fsutil.WriteFileAtomic(f.out, 0o644, func(out io.Writer) error {
		return writePredictions(out, m, pred, truth, hasLabel)
	}); err != nil {
		return err
	}
	fmt.Fprintf(w, "Wrote the predictions to %s\n", f.out)
	return nil
}

// loadModel reads a published model: the dppub-model format, or a model
// file in its method's own format turned into it (method.Spec.ReadModel:
// LDA-DP's and Mul-LDA-DP's, whose DP Gaussian model of the projections
// classifies).
func loadModel(path string) (*model.Model, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	var probe struct{ Format, Method string }
	if json.Unmarshal(b, &probe) == nil && probe.Format == "" {
		if s, err := method.Lookup(probe.Method); err == nil && s.ReadModel != nil {
			m, err := s.ReadModel(b)
			if err != nil {
				return nil, fmt.Errorf("%w (in %s)", err, path)
			}
			return m, nil
		}
	}
	m, err := model.Read(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	return m, nil
}

// table reads the rows to predict: with the model's schema (or --schema),
// dropping the label when the file has no label column and ignoring
// columns the schema does not name.
func (f *predictFlags) table(m *model.Model) (*data.Table, error) {
	if f.dataset != "" {
		return datasets.Load(f.dataset)
	}
	s := m.Schema
	if f.schema != "" {
		var err error
		if s, err = data.LoadSchema(f.schema); err != nil {
			return nil, err
		}
	}
	header, err := data.ReadHeader(f.input)
	if err != nil {
		return nil, err
	}
	var keep, ignore []string
	for _, name := range s.Names() {
		if slices.Contains(header, name) {
			keep = append(keep, name)
		}
	}
	for _, h := range header {
		if !slices.Contains(keep, h) && h != s.ID {
			ignore = append(ignore, h)
		}
	}
	if len(keep) == 0 {
		return nil, fmt.Errorf("predict: %s has none of the model's columns", f.input)
	}
	sel, err := s.Select(keep...)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(header, s.ID) {
		sel.ID = ""
	}
	t, _, err := data.ReadFile(f.input, sel, data.ReadOptions{Header: true, IgnoreColumns: ignore})
	return t, err
}

func writePredictions(w io.Writer, m *model.Model, pred, truth []int, hasLabel bool) error {
	cw := csv.NewWriter(w)
	head := []string{"row", "predicted_" + m.Label}
	if hasLabel {
		head = append(head, m.Label)
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for i, p := range pred {
		rec := []string{strconv.Itoa(i + 1), m.ClassName(p)}
		if hasLabel {
			rec = append(rec, m.ClassName(truth[i]))
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
