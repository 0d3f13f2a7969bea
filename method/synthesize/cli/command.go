// Package synthesizecli is the hand-written `dppub synthesize` command:
// one owner's table (read whole, or streamed and encoded as it is read),
// the synthetic rows streamed to the output behind the release gate, and
// the owner's quality summary.
package synthesizecli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/method/synthesize"
	"github.com/dppub/dppub/utility"
)

// synthFlags are synthesize's own flags (where the data come from, the
// randomness, the outputs); its settings are bound from the method's
// settings struct.
type synthFlags struct {
	dataset, input, schema string
	skip                   []string
	settings               synthesize.Settings
	src                    kit.SourceFlags
	gate                   kit.GateFlags
	kit.OutputFlags
}

// Command is `dppub synthesize`.
func Command() *cobra.Command {
	// A budget has no default in the settings; on the command line ρ = 1
	// unless --epsilon is given instead (runSynthesize).
	f := &synthFlags{settings: synthesize.Settings{Rho: 1}}
	f.settings.SetDefaults()
	cmd := &cobra.Command{
		Use:   synthesize.Name,
		Short: "Synthetic data from noisy marginals under personalised zCDP budgets (PDP-MVDS engine)",
		Long: `Publish a synthetic table whose low-dimensional marginals match the real
one's, under zero-concentrated DP (the statistical engine of PDP-MVDS, after
PrivSyn). Categorical attributes keep their categories. A numeric
attribute's bins are chosen from the data with --bin-share of a single
owner's budget (default 0.05: noisy counts on a public grid over the
declared bounds, refining --bins equal-width bins where the noise lets
them). By default (--bin-refine decoded) the engine measures the
equal-width bins plus the values that hold most of theirs (a column of
zeros keeps its zeros), and the finer bins only place each value inside
its bin; --bin-refine measured measures the finer bins themselves. A
negative --bin-share, or several parties, keeps the --bins equal-width
bins, with the declared minimum, the maximum and 0 (inside the bounds)
each a bin of its own, so a column's floor, cap or zeros keep their
point mass at no cost in budget.
Each party's budget ρ_k is split 0.1 / 0.1 / 0.8 between noisy one-way
marginals (Gaussian), noisy pair scores for Algorithm 2's pair selection,
and the selected (combined) marginals (Gaussian). The synthetic rows are
drawn by the gradually update method from the noisy marginals alone.

Parties (vertical partition, one process): attributes belong to parties,
each with its own budget. A release over attributes of several parties is
held to the strictest of their budgets and charged to each. Give
  --parties K                     K contiguous groups of attributes, or
  --party NAME:ATTR,ATTR,...      explicit groups (repeat per party),
and --party-budgets r1,r2,... for their budgets (default: --rho each).
This mode holds every column in one process (a trusted curator); the
multi-party protocol runs the same engine across owners.

Examples:
  dppub synthesize --dataset adult --rho 0.5 --out adult-synth.csv
  dppub synthesize --dataset adult --parties 2 --party-budgets 1,0.1 --out synth.csv
  dppub synthesize --input people.csv --schema people.json --rho 1 \
      --party bank:income,owns-home --party clinic:smoker,diagnosis --party-budgets 1,0.1 --out synth.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return kit.FlagErrors(cmd.Flags(), runSynthesize(cmd, f))
		},
		// The method's own command, so it gets no generic `publish` one.
		Annotations: map[string]string{kit.MethodKey: synthesize.Name},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.dataset, "dataset", "", "built-in dataset (adult, big5, ...; see `dppub datasets`)")
	fs.StringVar(&f.input, "input", "", "CSV/TSV file (gzip allowed) with a header row, a .parquet file, or - for standard input")
	fs.StringVar(&f.schema, "schema", "", "schema JSON for --input (column kinds and public bounds)")
	kit.RegisterSkipColumns(fs, &f.skip)
	kit.BindSettings(fs, &f.settings)
	f.src.Register(fs)
	f.OutputFlags.Register(fs, "synthetic table (CSV, Parquet for a .parquet path, - for standard output; its rows streamed as they are made)")
	f.gate.Register(fs)
	return cmd
}

func runSynthesize(cmd *cobra.Command, f *synthFlags) error {
	if err := f.Resolve(); err != nil {
		return err
	}
	st := f.settings
	if st.Epsilon != 0 && !cmd.Flags().Changed("rho") {
		st.Rho = 0 // the budget is (ε, δ), not the flag's default ρ
	}
	// The settings are checked before any data is read.
	st.SetDefaults()
	if err := st.Validate(); err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	in, err := f.load(stderr, &st)
	if err != nil {
		return err
	}
	if in.table != nil {
		if in.table, err = f.gate.HoldOutTable(stderr, in.table, f.skip); err != nil {
			return err
		}
		in.values = tableValues(in.table)
		if err := in.countTable(); err != nil {
			return err
		}
	}
	if err := kit.CheckParquet(&f.OutputFlags, in.schema()); err != nil {
		return err // before the engine spends the budget
	}
	// The synthetic table is never held whole: publishStream decodes and
	// writes it a chunk at a time, to any output, the gate checking a
	// bounded sample of it.
	out, err := method.RunCentral(cmd.Context(), synthesize.Spec, &st, method.Local{Table: in.table,
		Source: f.src.Source(cmd.Flags(), stderr),
		Attach: synthesize.Input{Progress: kit.StageBars(stderr), Encoded: in.encoded, NoTable: true}})
	if err != nil {
		return err
	}
	res, ok := out.Detail.(method.RowChunks)
	if !ok {
		return fmt.Errorf("%s: the outcome's table cannot be decoded a chunk at a time", synthesize.Spec.Name)
	}
	f.recordUsed(st, out.Detail)
	var owners []*data.Table
	if in.table != nil {
		owners = []*data.Table{in.table}
	}
	sample, counts, err := publishStream(cmd, &f.OutputFlags, &f.gate, owners, res, out.Report)
	if err != nil {
		return err
	}
	summary, _ := out.Detail.(method.Summarizer)
	printSynthUtility(cmd, cmd.OutOrStdout(), in, res.RowCount(), summary, sample, counts)
	return nil
}

// recordUsed puts the settings the run used into the flags, which the
// report's parameters record: the defaults filled in (--delta 0 and
// --rows 0 are what the flags say when left out, not what ran).
func (f *synthFlags) recordUsed(st synthesize.Settings, detail any) {
	if u, ok := detail.(method.UsedSettings); ok {
		u.RecordUsed(&st)
	}
	f.settings = st
}

// load reads the owner's data: a built-in dataset, a Parquet file or any
// file the release gate will attack as a table, else a CSV/TSV file (or
// standard input) in one streaming pass that keeps only the records'
// cells (streamInput).
func (f *synthFlags) load(notes io.Writer, st *synthesize.Settings) (*synthInput, error) {
	switch {
	case f.dataset != "" && f.input != "":
		return nil, kit.Usagef("give --dataset or --input, not both")
	case f.dataset != "":
		t, err := kit.LoadDataset(f.dataset, f.skip)
		if err != nil {
			return nil, err
		}
		return &synthInput{table: t, values: tableValues(t)}, nil
	case f.input == "":
		return nil, kit.Usagef("no data: give --dataset NAME or --input FILE --schema FILE")
	case f.schema == "":
		return nil, kit.Usagef("--input needs --schema FILE (column kinds and public bounds)")
	}
	s, err := data.LoadSchema(f.schema)
	if err != nil {
		return nil, err
	}
	if data.IsParquetPath(f.input) || f.gate.On {
		// The release gate attacks the real table: it is held whole.
		t, _, err := kit.ReadOwnerTable(notes, f.input, s, f.skip)
		if err != nil {
			return nil, err
		}
		return &synthInput{table: t, values: tableValues(t)}, nil
	}
	return streamInput(notes, f.input, s, f.skip, st)
}

// printSynthUtility prints the owner's quality summary: the mean TVD of
// the 1-way and 2-way marginals as dppub compare computes them
// (printQuality: the real records counted as they were read, the
// synthetic ones as they were written), what the engine measured, and
// the numeric columns' distances on their original values (the real
// values' counts against the synthetic values written, up to sampleRows
// rows).
func printSynthUtility(cmd *cobra.Command, w io.Writer, in *synthInput, rows int, summary method.Summarizer, sample synthSample, counts *kit.SynthCounts) {
	var whyNot error
	if in.counts == nil {
		whyNot = fmt.Errorf("the real rows were not counted")
	}
	kit.PrintQuality(cmd, w, in.counts, counts.Joint, whyNot)
	if summary != nil {
		kit.PrintLines(w, summary.Summary())
	}
	s := in.schema()
	for j, a := range s.Attributes {
		if a.Kind != data.Numeric {
			continue
		}
		real, ok := in.values[j]
		syn := slices.Clone(sample[j])
		if !ok || len(syn) == 0 {
			continue
		}
		slices.Sort(syn)
		d := utility.NumericDistanceOf(a, real, syn)
		fmt.Fprintf(w, "  %s (original values): Wasserstein-1 %.4g (%.4f of the range), KS %.4f; value %g: %.1f%% real, %.1f%% synthetic\n",
			d.Name, d.W1, d.W1Range, d.KS, d.Mode, 100*d.RealMass, 100*d.SynthMass)
	}
	if len(in.tooMany) > 0 {
		fmt.Fprintf(w, "  %s: more than %d distinct values, distances on original values not computed\n", strings.Join(in.tooMany, ", "), maxDistinct)
	}
	if len(sample) > 0 && rows > sampleRows {
		fmt.Fprintf(w, "  (original-value distances against the first %d synthetic rows)\n", sampleRows)
	}
	if summary != nil {
		kit.PrintLines(w, summary.Notes())
	}
}
