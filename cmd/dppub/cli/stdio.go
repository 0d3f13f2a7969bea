package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// stdoutPath is the --out that writes to standard output, for pipes:
//
//	dppub schema - --out - < people.csv
//	cat people.csv | dppub publish ppca-dp-mh --input - --schema s.json --out - --report r.json | …
//
// The data then go alone to standard output; the terminal summary goes
// to standard error.
const stdoutPath = "-"

// stdoutName names standard output in messages and reports.
const stdoutName = "standard output"

// stdioCommands are the commands whose main output may be standard
// output (--out -) and whose table may come from standard input
// (--input -): the single-table publishing commands and schema; and run,
// whose main output may be standard output (for ppca-dp-mh, whose rows
// it streams: runRun refuses the other methods).
var stdioCommands = []string{
	"dppub schema",
	"dppub synthesize",
	"dppub publish ppca-dp-mh",
	"dppub publish lda-dp",
	"dppub publish mul-lda-dp",
	"dppub publish privbayes",
	"dppub publish dp-subn3",
	"dppub publish dppca-svm",
	"dppub publish pca-dpsvm",
	"dppub publish ag-svm",
	"dppub publish mod-sulq-svm",
	"dppub run",
}

type stdoutKey struct{}

// startStdout prepares a run with --out -: it refuses what cannot share
// standard output with the data (--json, a report or model beside "-"),
// keeps the real standard output for the data, and sends the summary to
// standard error.
func startStdout(cmd *cobra.Command) error {
	path := cmd.CommandPath()
	if !slices.Contains(stdioCommands, path) {
		return usagef("--out - (standard output) is for %s; %s writes files", listCommands(stdioCommands), path)
	}
	fs := cmd.Flags()
	if inheritedBool(cmd, jsonFlag) {
		return usagef("--out - writes the data to standard output, so --json cannot print there too: give --quiet, or --out FILE with --json")
	}
	needed := []string{"report"}
	if cmd.Name() == "schema" && !fs.Changed("epsilon") {
		needed = nil // a draft has no privacy report
	}
	if fs.Lookup("model") != nil {
		needed = append(needed, "model")
	}
	for _, name := range needed {
		if flagValue(fs, name) == "" {
			return usagef("--out - needs --%s FILE: the %s cannot share standard output with the data", name, map[string]string{"report": "privacy report", "model": "model"}[name])
		}
	}
	keepStdout(cmd)
	return nil
}

// startReportStdout prepares a run with --report -: the privacy report
// goes to standard output (where a file named "-" was written before),
// alone, so the summary goes to standard error; it cannot share standard
// output with the data (--out -) or with --json's document.
func startReportStdout(cmd *cobra.Command, dataToStdout bool) error {
	switch {
	case dataToStdout:
		return usagef("--out - and --report - cannot both write to standard output: give one of them a file")
	case inheritedBool(cmd, jsonFlag):
		return usagef("--report - writes the privacy report to standard output, so --json cannot print there too: give --quiet, or --report FILE with --json")
	}
	keepStdout(cmd)
	return nil
}

// keepStdout keeps the real standard output for the one thing a run writes
// there (dataStdout) and sends the summary to standard error (--quiet has
// already silenced it).
func keepStdout(cmd *cobra.Command) {
	w := cmd.OutOrStdout()
	if st := outputOf(cmd); st != nil {
		w = st.stdout
	} else {
		cmd.SetOut(cmd.ErrOrStderr())
	}
	cmd.SetContext(context.WithValue(cmd.Context(), stdoutKey{}, w))
}

// dataStdout is where --out - writes the data: the real standard output.
func dataStdout(cmd *cobra.Command) io.Writer {
	if w, ok := cmd.Context().Value(stdoutKey{}).(io.Writer); ok {
		return w
	}
	return cmd.OutOrStdout()
}

// writeStdout writes an output's bytes to standard output.
func writeStdout(cmd *cobra.Command, b []byte) error {
	if _, err := dataStdout(cmd).Write(b); err != nil {
		return fmt.Errorf("writing to %s: %w", stdoutName, err)
	}
	return nil
}

func listCommands(paths []string) string {
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = strings.TrimPrefix(p, "dppub ")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
