package cli

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/gate"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/quality"
	"github.com/dppub/dppub/randx"
	"github.com/dppub/dppub/utility"
	"github.com/spf13/cobra"
)

type compareFlags struct {
	schema, label, out, jsonOut, privacyReport string
	gateHoldout, gateResult                    string
	maxAdvantage                               float64
	bins                                       int
	skip                                       []string
	asJSON, force                              bool
}

func newCompareCmd() *cobra.Command {
	f := &compareFlags{}
	cmd := &cobra.Command{
		Use:   "compare REAL.csv SYNTH.csv --schema SCHEMA.json --out REPORT.html",
		Short: "Quality report of a synthetic table against the real one (for the owner only)",
		Long: `Compare a synthetic table with the real one it was made from: each
column's distribution overlaid (histograms, bar charts) with Wasserstein-1
and Kolmogorov–Smirnov distances for numeric columns, 1-, 2- and 3-way
marginal distances, association matrices side by side, and — when a label
is declared (--label or the schema's "label") — the accuracy of a
classifier trained on the synthetic rows and tested on held-out real rows.

With --gate-holdout FILE (rows of the same population never given to the
generator) it also runs the release gate of ` + "`dppub check`" + ` on the synthetic
table: membership-inference attacks that try to tell the real rows from
the held-out ones, each attack's advantage with its interval, and the
verdict at --max-advantage. Without it, the result of a run with --gate
(--gate-result, default SYNTH.gate.json when present) is shown as it is.
A pass is not a privacy guarantee; a refusal means do not publish.

The report is written as one self-contained HTML page (--out) and as JSON
(--json-out, default <out>.json). With --json the JSON also goes to
standard output instead of the summary.

FOR THE DATA OWNER ONLY: the report is computed from the private data
without noise. Never publish it or send it to anyone who may not see the
real data.

Examples:
  dppub compare people.csv synth.csv --schema people.json --out quality.html
  dppub compare people.csv synth.csv --schema people.json --label smoker --out quality.html --json
  dppub compare people.csv synth.csv --schema people.json --gate-holdout heldout.csv --out quality.html`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error { return runCompare(cmd, args[0], args[1], f) },
	}
	fs := cmd.Flags()
	fs.StringVar(&f.schema, "schema", "", "schema JSON of both files (required)")
	fs.StringVar(&f.label, "label", "", "categorical or binary column to predict (default: the schema's label)")
	fs.StringVar(&f.out, "out", "", "HTML report to write (required)")
	fs.StringVar(&f.jsonOut, "json-out", "", "JSON report to write (default <out>.json)")
	fs.StringVar(&f.privacyReport, "privacy-report", "", "the synthetic table's privacy report, whose key facts are shown (default SYNTH.privacy.json when present)")
	fs.IntVar(&f.bins, "bins", utility.DefaultBins, "equal-width bins per numeric column (the default is the publishing commands' own, so that their quality lines and this report agree)")
	fs.StringVar(&f.gateHoldout, "gate-holdout", "", kit.HoldoutFileHelp+": run the release gate on SYNTH and show its result")
	fs.StringVar(&f.gateResult, "gate-result", "", "the release gate's result of a run with --gate, shown as it is (default SYNTH.gate.json when present)")
	kit.RegisterMaxAdvantage(fs, &f.maxAdvantage)
	fs.BoolVar(&f.asJSON, "json", false, "print the JSON report on standard output instead of the summary")
	fs.BoolVar(&f.force, "force", false, "replace existing output files")
	kit.RegisterSkipColumns(fs, &f.skip)
	return cmd
}

func runCompare(cmd *cobra.Command, realPath, synthPath string, f *compareFlags) error {
	if err := f.check(realPath, synthPath); err != nil {
		return err
	}
	s, err := data.LoadSchema(f.schema)
	if err != nil {
		return err
	}
	real, rst, err := kit.ReadTable(nil, realPath, s, f.skip)
	if err != nil {
		return err
	}
	synth, sst, err := kit.ReadSynthetic(nil, synthPath, s, f.skip)
	if err != nil {
		return err
	}
	facts, err := f.privacyFacts(synthPath)
	if err != nil {
		return err
	}
	gateSection, err := f.gate(real, synth, synthPath)
	if err != nil {
		return err
	}
	label := f.label
	if label == "" {
		label = s.Label
	}
	rep, err := quality.Compare(real, synth, quality.Options{Label: label, Bins: f.bins, Source: randx.NewSecure(), Privacy: facts, Gate: gateSection})
	if err != nil {
		return err
	}
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	js = append(js, '\n')
	var page bytes.Buffer
	if err := rep.WriteHTML(&page); err != nil {
		return err
	}
	if err := writeOwnerFiles(kit.OutputFile{Path: f.out, Data: page.Bytes()}, kit.OutputFile{Path: f.jsonOut, Data: js}); err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	if f.asJSON {
		_, err := w.Write(js)
		return err
	}
	printCompareSummary(w, f, rep, [2]data.ReadStats{rst, sst})
	return nil
}

func (f *compareFlags) check(realPath, synthPath string) error {
	switch {
	case f.schema == "":
		return kit.Usagef("--schema FILE is required")
	case f.out == "":
		return kit.Usagef("--out REPORT.html is required")
	case f.bins < 2:
		return kit.Usagef("--bins must be at least 2, got %d", f.bins)
	case f.gateHoldout != "" && f.gateResult != "":
		return kit.Usagef("give --gate-holdout FILE (run the gate) or --gate-result FILE (show a gate's result), not both")
	}
	if err := kit.CheckMaxAdvantage(f.maxAdvantage); err != nil {
		return err
	}
	if err := kit.CheckStdinOnce("input", []string{realPath, synthPath, f.gateHoldout}); err != nil {
		return err
	}
	if f.jsonOut == "" {
		f.jsonOut = strings.TrimSuffix(f.out, ".html") + ".json"
	}
	return checkOwnerOutputs(f.force, []string{realPath, synthPath, f.schema, f.gateHoldout, f.gateResult}, f.out, f.jsonOut)
}

// readNamedOrBeside reads the file named, or when none is named the file
// beside the synthetic table if there is one (path is "" when there is
// not); what names the file in an error.
func readNamedOrBeside(what, named, beside string) (b []byte, path string, err error) {
	path = named
	if path == "" {
		if _, err := os.Stat(beside); errors.Is(err, fs.ErrNotExist) {
			return nil, "", nil
		}
		path = beside
	}
	if b, err = os.ReadFile(path); err != nil {
		return nil, "", fmt.Errorf("%s: %w", what, err)
	}
	return b, path, nil
}

// privacyFacts reads the key facts of the synthetic table's privacy
// report: the one named, or SYNTH.privacy.json when it exists.
func (f *compareFlags) privacyFacts(synthPath string) (*quality.PrivacyFacts, error) {
	b, path, err := readNamedOrBeside("privacy report", f.privacyReport, synthPath+".privacy.json")
	if err != nil || path == "" {
		return nil, err
	}
	var r privacy.Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("privacy report %s: %w", path, err)
	}
	if err := checkReportDigest(&r, path, synthPath); err != nil {
		return nil, err
	}
	return &quality.PrivacyFacts{Method: r.Method, Status: r.Status.Phrase(), Claimed: r.Claimed.String()}, nil
}

// checkReportDigest refuses a privacy report that is not the synthetic
// table's: the SHA-256 of the table's bytes must be one of the report's
// output_sha256 digests, or the facts shown would be another table's
// (its budget, its guarantee).
func checkReportDigest(r *privacy.Report, reportPath, synthPath string) error {
	if synthPath == kit.StdinPath {
		return kit.Usagef("--privacy-report %s cannot be checked against a synthetic table read from standard input: give the table's file", reportPath)
	}
	sum, err := kit.FileSHA256(synthPath)
	if err != nil {
		return fmt.Errorf("privacy report: %w", err)
	}
	digest := hex.EncodeToString(sum[:])
	for _, d := range r.OutputSHA256 {
		if d == digest {
			return nil
		}
	}
	if len(r.OutputSHA256) == 0 {
		return fmt.Errorf("privacy report %s records no output_sha256, so it cannot be checked against %s", reportPath, synthPath)
	}
	return fmt.Errorf("privacy report %s is not the report of %s: none of its %d output_sha256 digests is the SHA-256 of the table (give the table's own report with --privacy-report)", reportPath, synthPath, len(r.OutputSHA256))
}

// gate is the report's release-gate section: the gate run on synth
// against --gate-holdout, or the result read from --gate-result (default
// SYNTH.gate.json when it exists), or none.
func (f *compareFlags) gate(real, synth *data.Table, synthPath string) (*quality.Gate, error) {
	if f.gateHoldout != "" {
		held, _, err := kit.ReadTable(nil, f.gateHoldout, real.Schema, f.skip)
		if err != nil {
			return nil, fmt.Errorf("--gate-holdout %s: %w", f.gateHoldout, err)
		}
		res, err := gate.Check(gate.Options{Real: real, Holdout: held, Synthetic: synth, MaxAdvantage: f.maxAdvantage, Source: randx.NewSecure()})
		if res == nil {
			return nil, err
		}
		// A refusal is the report's finding, shown in it, not a failure
		// of the command.
		rel := gate.NewRelease(fmt.Sprintf("%d rows of %s", held.Len(), f.gateHoldout), []gate.OwnerResult{{Owner: "owner", Result: *res}})
		return rel.Quality(), nil
	}
	b, path, err := readNamedOrBeside("gate result", f.gateResult, synthPath+".gate.json")
	if err != nil || path == "" {
		return nil, err
	}
	rel, err := gate.ParseRelease(b)
	if err != nil {
		return nil, fmt.Errorf("gate result %s: %w", path, err)
	}
	return rel.Quality(), nil
}

// writeOwnerFiles writes every file or none.
func writeOwnerFiles(outs ...kit.OutputFile) error {
	var written []string
	for _, o := range outs {
		if err := kit.WriteBytes(o.Path, o.Data); err != nil {
			for _, p := range written {
				os.Remove(p)
			}
			return fmt.Errorf("writing %s: %w", o.Path, err)
		}
		written = append(written, o.Path)
	}
	return nil
}

func printCompareSummary(w io.Writer, f *compareFlags, r *quality.Report, st [2]data.ReadStats) {
	fmt.Fprintln(w, "FOR THE DATA OWNER ONLY: computed from the private data without noise. Never publish these files.")
	fmt.Fprintf(w, "Real: %d rows", r.RealRows)
	if st[0].DroppedMissing > 0 {
		fmt.Fprintf(w, " (%d dropped for a missing value)", st[0].DroppedMissing)
	}
	fmt.Fprintf(w, "; synthetic: %d rows", r.SynthRows)
	if st[1].DroppedMissing > 0 {
		fmt.Fprintf(w, " (%d dropped for a missing value)", st[1].DroppedMissing)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  binning: %s\n", r.Binning)
	for _, m := range r.Marginals {
		fmt.Fprintf(w, "  %d-way marginals: mean total variation %.3f, worst %.3f (%s)\n", m.Order, m.Mean, m.Max, strings.Join(m.Worst, ", "))
	}
	fmt.Fprintf(w, "  associations: mean |real − synthetic| %.3f\n", r.Association.MeanAbsDiff)
	if c := r.Classifier; c != nil {
		fmt.Fprintf(w, "  predicting %s on real rows: trained on synthetic %.3f, on real %.3f, majority class %.3f\n",
			c.Label, c.SynthAccuracy, c.RealAccuracy, c.Majority)
	}
	if g := r.Gate; g != nil {
		fmt.Fprintf(w, "  release gate: %s (non-members: %s; a pass is not a privacy guarantee)\n", g.Verdict, g.Holdout)
	}
	for _, warn := range r.Warnings {
		fmt.Fprintln(w, "WARNING: "+warn)
	}
	fmt.Fprintf(w, "Wrote %s and %s.\n", f.out, f.jsonOut)
}
