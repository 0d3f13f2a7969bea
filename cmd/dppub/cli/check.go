package cli

import (
	"errors"
	"fmt"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/gate"
	"github.com/dppub/dppub/randx"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

type checkFlags struct {
	real, holdout, synthetic, schema string
	maxAdvantage, confidence         float64
	queries                          int
	skip                             []string
	asJSON                           bool
}

// register declares the command's flags into f.
func (f *checkFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.real, "real", "", "CSV of the owner's rows the synthetic table was made from (required)")
	fs.StringVar(&f.holdout, "holdout", "", kit.HoldoutFileHelp+" (required)")
	fs.StringVar(&f.synthetic, "synthetic", "", "CSV of the synthetic table about to be published (required)")
	fs.StringVar(&f.schema, "schema", "", "schema JSON of the three files (required)")
	kit.RegisterMaxAdvantage(fs, &f.maxAdvantage)
	fs.Float64Var(&f.confidence, "confidence", 0.95, "confidence of the reported intervals")
	fs.IntVar(&f.queries, "queries", kit.DefaultGateQueries, kit.GateQueriesHelp)
	fs.BoolVar(&f.asJSON, "json", false, "print the result as JSON")
	kit.RegisterSkipColumns(fs, &f.skip)
}

func newCheckCmd() *cobra.Command {
	return kit.NewCommand(&cobra.Command{
		Use:   "check --real REAL.csv --holdout HELD-OUT.csv --synthetic SYNTH.csv --schema SCHEMA.json",
		Short: "Release gate: membership-inference attacks on a synthetic table before it is published (for the owner only)",
		Long: `Before publishing a synthetic table, try to tell the rows it was made from
(--real) apart from rows of the same population it never saw (--holdout,
e.g. records set aside before synthesis) using only the synthetic table:

  distance to closest record  how close each row's nearest synthetic row is
  density ratio               how much denser the synthetic table is around
                              each row than the population (a held-out half)

Each attack's advantage is 2·AUC − 1: 0 when the table tells nothing about
who was in the data, 1 when it gives every member away. The command
refuses (exit status 1, saying which attack and why) when an attack's
advantage exceeds --max-advantage at the --confidence given (its interval
lies above it), so that sampling noise alone does not refuse a table; a
pass whose interval still reaches above the threshold says so (hold out
more rows). publish and synthesize run the same check with --gate.

A pass is not a privacy guarantee (the table's privacy report is); it says
these attacks found no membership signal on these rows. A refusal means
the table leaks its members to a simple attack, whatever its report says
(a leaky setting such as --paper-latent, or rows copied from the input).

FOR THE DATA OWNER ONLY: the check reads the private rows. Its result is
never part of the published privacy report.

Examples:
  dppub check --real people.csv --holdout heldout.csv --synthetic synth.csv --schema people.json
  dppub check --real people.csv --holdout heldout.csv --synthetic synth.csv --schema people.json --max-advantage 0.05 --json`,
		Args: cobra.NoArgs,
	}, (*checkFlags).register, runCheck)
}

func runCheck(cmd *cobra.Command, f *checkFlags, _ []string) error {
	if f.real == "" || f.holdout == "" || f.synthetic == "" || f.schema == "" {
		return kit.Usagef("check needs --real, --holdout, --synthetic and --schema")
	}
	if err := kit.CheckMaxAdvantage(f.maxAdvantage); err != nil {
		return err
	}
	if err := kit.CheckStdinOnce("input", []string{f.real, f.holdout, f.synthetic}); err != nil {
		return err
	}
	s, err := data.LoadSchema(f.schema)
	if err != nil {
		return err
	}
	var tables [3]*data.Table
	for i, path := range []string{f.real, f.holdout} {
		if tables[i], _, err = kit.ReadTable(cmd.ErrOrStderr(), path, s, f.skip); err != nil {
			return err
		}
	}
	if tables[2], _, err = kit.ReadSynthetic(cmd.ErrOrStderr(), f.synthetic, s, f.skip); err != nil {
		return err
	}
	res, err := gate.Check(gate.Options{Real: tables[0], Holdout: tables[1], Synthetic: tables[2],
		MaxAdvantage: f.maxAdvantage, Confidence: f.confidence, MaxQueries: f.queries, Source: randx.NewSecure()})
	if res == nil {
		return err
	}
	w := cmd.OutOrStdout()
	if perr := printJSONOr(w, f.asJSON, res, func() { kit.PrintCheck(w, res) }); perr != nil {
		return perr
	}
	if errors.Is(err, gate.ErrRefused) {
		return fmt.Errorf("%w (do not publish %s)", err, f.synthetic)
	}
	return err
}
