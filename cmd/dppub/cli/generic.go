package cli

import (
	"fmt"
	"io"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/ownerstats"
	"github.com/dppub/dppub/randx"
	"github.com/dppub/dppub/utility"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// settingsCommand is the command of method s whose settings (with their
// defaults filled) are its flags: named and summarised by the spec, its
// help the summary and then how it runs; run gets the settings as the
// flags set them, and a mistake in one is reported under its flag.
func settingsCommand(s method.Spec, how string, run func(*cobra.Command, method.Settings) error) *cobra.Command {
	st := s.NewSettings()
	st.SetDefaults()
	cmd := &cobra.Command{
		Use:   s.Name,
		Short: s.Summary,
		Long:  s.Summary + "\n\n" + how,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return kit.FlagErrors(cmd.Flags(), run(cmd, st))
		},
	}
	kit.BindSettings(cmd.Flags(), st)
	return cmd
}

// genericPublishCmd is `dppub publish NAME` for a registered method that
// has no command of its own: its settings become flags (bindSettings),
// its owners' data come from --dataset or --input files laid out by the
// method's split (one table for a central method), and its outcome is
// written as `dppub run` writes it. A new method needs nothing more in
// the CLI.
func genericPublishCmd(s method.Spec) *cobra.Command {
	if !s.Multiparty() {
		return genericCentralCmd(s)
	}
	f := &genericFlags{}
	cmd := settingsCommand(s, `Runs the method's session in one process: the same roles, draws and
privacy report as a networked run (dppub run `+s.Name+`).
Its settings are the flags below. The owners hold `+s.Split.String()+`: --dataset is
split among --owners of them, or give one --input per owner.`,
		func(cmd *cobra.Command, st method.Settings) error { return runGenericPublish(cmd, s, st, f) })
	fs := cmd.Flags()
	fs.StringVar(&f.dataset, "dataset", "", "built-in dataset (see `dppub datasets`), split among the owners")
	fs.StringArrayVar(&f.inputs, "input", nil, "CSV/TSV file with a header row, a .parquet file, or - for standard input, one per owner (repeat)")
	fs.StringArrayVar(&f.schemas, "schema", nil, "schema JSON of the --input files (one for all, or one per file for parties of columns)")
	kit.RegisterSkipColumns(fs, &f.skip)
	fs.IntVar(&f.owners, "owners", 3, "number of owners to split --dataset among, or one --input file (default: one owner per --input file)")
	f.src.Register(fs)
	f.OutputFlags.Register(fs, "output file")
	// Only owners of rows have rows of the published table's columns
	// for the gate to attack.
	if s.Split == method.Rows {
		f.gate.Register(fs)
		fs.StringArrayVar(&f.statistics, "statistics", nil, "an owner's statistics file computed elsewhere (dppub-beam, beam/README.md), instead of its rows; repeat once per owner, with one --schema")
	}
	cmd.Example = genericExample(s.Name, fs)
	return cmd
}

// genericExample is a method's example, with the budget flags its
// settings have.
func genericExample(name string, fs *pflag.FlagSet) string {
	budget := exampleFlags(fs, false, [2]string{"epsilon", "1"}, [2]string{"delta", "1e-5"})
	return fmt.Sprintf("  dppub publish %s --dataset adult --owners 3%s --out %s.csv", name, budget, name)
}

// exampleFlags writes " --flag value" for each of flags that fs has (only
// the first such when first is set).
func exampleFlags(fs *pflag.FlagSet, first bool, flags ...[2]string) string {
	out := ""
	for _, f := range flags {
		if fs.Lookup(f[0]) != nil {
			out += " --" + f[0] + " " + f[1]
			if first {
				break
			}
		}
	}
	return out
}

type genericFlags struct {
	dataset string
	inputs  []string
	schemas []string
	skip    []string
	owners  int
	// ownersGiven says --owners was given: one --input file is then
	// split among them.
	ownersGiven bool
	// statistics are owners' statistics files (ownerstats), one per
	// owner, instead of --dataset or --input.
	statistics []string
	src        kit.SourceFlags
	gate       kit.GateFlags
	kit.OutputFlags
}

func runGenericPublish(cmd *cobra.Command, s method.Spec, st method.Settings, f *genericFlags) error {
	if err := f.Resolve(); err != nil {
		return err
	}
	src := f.src.Source(cmd.Flags(), cmd.ErrOrStderr())
	if len(f.statistics) > 0 {
		return runGenericFromStatistics(cmd, s, st, f, src)
	}
	f.ownersGiven = cmd.Flags().Changed("owners")
	tables, err := f.tables(cmd.ErrOrStderr(), s, src)
	if err != nil {
		return err
	}
	if tables, err = f.gate.HoldOut(cmd.ErrOrStderr(), tables, f.skip); err != nil {
		return err
	}
	lo := method.LocalOptions{Members: localMembers(s, len(tables)), Data: map[string]*data.Table{}, Source: src}
	for i, t := range tables {
		lo.Data[method.OwnerName(i+1)] = t
	}
	run, err := method.RunLocal(cmd.Context(), s, st, lo)
	if err != nil {
		return err
	}
	f.gate.Account(run.Outcome.Report)
	if err := f.gate.Guard(cmd, tables, run.Outcome.Table, func() error {
		return writeOutcome(cmd, nil, f.Out, f.Report, run.Outcome)
	}); err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	kit.PrintReport(cmd, w, run.Outcome.Report)
	kit.NoteQuality(cmd, "summary", run.Outcome.Summary)
	printTableQuality(cmd, tables, run.Outcome.Table, f.Out)
	fmt.Fprintf(w, "\nWrote %s and the report to %s\n", f.Out, f.Report)
	for _, file := range run.Outcome.Files {
		fmt.Fprintf(w, "Wrote %s\n", f.Out+file.Suffix)
	}
	if run.Outcome.Summary != "" {
		fmt.Fprintf(w, "  %s\n", run.Outcome.Summary)
	}
	f.gate.Summary(cmd)
	return nil
}

// localMembers names the members of an in-process session: owners
// owner-1 … owner-N (method.OwnerName), and one member of every other
// role, named after it.
func localMembers(s method.Spec, owners int) map[string][]string {
	m := map[string][]string{}
	for i := range owners {
		m[method.RoleOwner] = append(m[method.RoleOwner], method.OwnerName(i+1))
	}
	for _, r := range s.MemberRoles {
		if r != method.RoleOwner {
			m[r] = []string{r}
		}
	}
	return m
}

// runGenericFromStatistics runs a session whose owners bring statistics
// files instead of rows (the method's Join decides whether its roles can
// work from them). No quality is printed and no release gate runs: this
// process holds no rows to compare or attack.
func runGenericFromStatistics(cmd *cobra.Command, s method.Spec, st method.Settings, f *genericFlags, src *randx.Source) error {
	if len(f.schemas) != 1 || f.dataset != "" || len(f.inputs) > 0 || len(f.skip) > 0 {
		return kit.Usagef("--statistics takes one --schema (the schema the statistics were computed under) and no --dataset, --input or --skip-columns")
	}
	if f.gate.On {
		return kit.Usagef("--statistics leaves no rows for the release gate to attack; leave out --gate")
	}
	schema, err := data.LoadSchema(f.schemas[0])
	if err != nil {
		return err
	}
	lo := method.LocalOptions{Members: localMembers(s, len(f.statistics)), Stats: map[string]*ownerstats.Statistics{},
		Schemas: []data.Schema{schema}, Source: src}
	for i, path := range f.statistics {
		stats, err := kit.ReadOwnerStatistics(path)
		if err != nil {
			return err
		}
		lo.Stats[method.OwnerName(i+1)] = stats
	}
	run, err := method.RunLocal(cmd.Context(), s, st, lo)
	if err != nil {
		return err
	}
	if err := writeOutcome(cmd, nil, f.Out, f.Report, run.Outcome); err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	kit.PrintReport(cmd, w, run.Outcome.Report)
	fmt.Fprintf(w, "\nWrote %s and the report to %s\n", f.Out, f.Report)
	if run.Outcome.Summary != "" {
		fmt.Fprintf(w, "  %s\n", run.Outcome.Summary)
	}
	kit.PrintQuality(cmd, w, nil, nil, kit.ErrNoRows)
	return nil
}

// genericCentralCmd is the generic command of a central method (Spec.Run,
// no session): one owner's table from --dataset or one --input, run by
// method.RunCentral, which fills the defaults and validates once.
func genericCentralCmd(s method.Spec) *cobra.Command {
	f := &genericCentralFlags{}
	cmd := settingsCommand(s, `Runs the method in one place, on one owner's table (--dataset, or one
--input with its --schema): nothing leaves the owner but the published
output and its privacy report. Its settings are the flags below.`,
		func(cmd *cobra.Command, st method.Settings) error { return runGenericCentral(cmd, s, st, f) })
	fs := cmd.Flags()
	f.table.Register(cmd)
	f.src.Register(fs)
	f.OutputFlags.Register(fs, "output file")
	cmd.Example = genericCentralExample(s.Name, fs)
	return cmd
}

// genericCentralExample is a central method's example, with the budget
// flags its settings have.
func genericCentralExample(name string, fs *pflag.FlagSet) string {
	budget := exampleFlags(fs, true, [2]string{"epsilon", "1"}, [2]string{"rho", "1"})
	return fmt.Sprintf("  dppub publish %s --dataset adult%s --out %s.out", name, budget, name)
}

// genericCentralFlags are a central method's generic flags besides its
// settings: one owner's table (as the DPPCA commands take it), the
// randomness and the outputs.
type genericCentralFlags struct {
	table kit.TableFlags
	src   kit.SourceFlags
	kit.OutputFlags
}

func runGenericCentral(cmd *cobra.Command, s method.Spec, st method.Settings, f *genericCentralFlags) error {
	if err := f.table.Check(); err != nil {
		return err
	}
	if err := f.Resolve(); err != nil {
		return err
	}
	table, err := f.table.Load(cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	out, err := method.RunCentral(cmd.Context(), s, st, method.Local{Table: table,
		Source: f.src.Source(cmd.Flags(), cmd.ErrOrStderr())})
	if err != nil {
		return err
	}
	if err := writeOutcome(cmd, nil, f.Out, f.Report, out); err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	kit.PrintReport(cmd, w, out.Report)
	kit.NoteQuality(cmd, "summary", out.Summary)
	printTableQuality(cmd, []*data.Table{table}, out.Table, f.Out)
	fmt.Fprintf(w, "\nWrote %s and the report to %s\n", f.Out, f.Report)
	for _, file := range out.Files {
		fmt.Fprintf(w, "Wrote %s\n", f.Out+file.Suffix)
	}
	if out.Summary != "" {
		fmt.Fprintf(w, "  %s\n", out.Summary)
	}
	return nil
}

// tables are the owners' tables, laid out by the method's split.
func (f *genericFlags) tables(notes io.Writer, s method.Spec, src *randx.Source) ([]*data.Table, error) {
	switch {
	case (f.dataset == "") == (len(f.inputs) == 0):
		return nil, kit.Usagef("give --dataset NAME or --input FILE (one per owner)")
	case f.dataset != "":
		t, err := kit.LoadDataset(f.dataset, f.skip)
		if err != nil {
			return nil, err
		}
		if s.Split == method.Columns {
			return data.SplitVerticalEven(t, f.owners)
		}
		return data.SplitHorizontal(t, f.owners, nil, src)
	}
	owners := 0
	if f.ownersGiven {
		owners = f.owners
	}
	if err := kit.CheckOwnerInputs(f.inputs, owners); err != nil {
		return nil, err
	}
	if len(f.schemas) != 1 && len(f.schemas) != len(f.inputs) {
		return nil, kit.Usagef("give one --schema for all --input files or one per file, got %d for %d", len(f.schemas), len(f.inputs))
	}
	var out []*data.Table
	for i, path := range f.inputs {
		sc, err := data.LoadSchema(f.schemas[min(i, len(f.schemas)-1)])
		if err != nil {
			return nil, err
		}
		// A column named in --skip-columns that one party's file lacks
		// is an error there (data.ReadOptions.SkipColumns): with parties
		// of columns, name only columns every file has.
		t, _, err := kit.ReadOwnerTable(notes, path, sc, f.skip)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return kit.LayOutOwners(f.inputs, out, owners, s.Split, src)
}

// printTableQuality compares a published table with the owners' tables
// pooled (this process holds them all): mean 1-way and 2-way TVD at
// dppub compare's binning and with its code (printQuality), the table
// counted as the output out holds it. It is for the owners' eyes
// (computed on the real data) and is never written to a published file.
// An output that is not a table of the owners' columns (a model, a
// projection) has no such figures.
func printTableQuality(cmd *cobra.Command, owners []*data.Table, syn *data.Table, out string) {
	if syn == nil || len(owners) == 0 || !owners[0].Schema.EqualAttributes(syn.Schema) {
		return
	}
	real, err := kit.RealCounts(owners...)
	var sc *kit.SynthCounts
	if err == nil {
		sc, err = kit.TableSynthCounts(syn, out)
	}
	var counted *utility.Joint
	if sc != nil {
		counted = sc.Joint
	}
	kit.PrintQuality(cmd, cmd.OutOrStdout(), real, counted, err)
}
