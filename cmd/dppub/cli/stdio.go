package cli

import (
	"slices"
	"strings"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/spf13/cobra"
)

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

// startStdout prepares a run with --out -: it refuses what cannot share
// standard output with the data (--json, a report or model beside "-"),
// keeps the real standard output for the data, and sends the summary to
// standard error.
func startStdout(cmd *cobra.Command) error {
	path := cmd.CommandPath()
	if !slices.Contains(stdioCommands, path) {
		return kit.Usagef("--out - (standard output) is for %s; %s writes files", listCommands(stdioCommands), path)
	}
	fs := cmd.Flags()
	if kit.InheritedBool(cmd, kit.JSONFlag) {
		return kit.Usagef("--out - writes the data to standard output, so --json cannot print there too: give --quiet, or --out FILE with --json")
	}
	needed := []string{"report"}
	if cmd.Name() == "schema" && !fs.Changed("epsilon") {
		needed = nil // a draft has no privacy report
	}
	if fs.Lookup("model") != nil {
		needed = append(needed, "model")
	}
	for _, name := range needed {
		if kit.FlagValue(fs, name) == "" {
			return kit.Usagef("--out - needs --%s FILE: the %s cannot share standard output with the data", name, map[string]string{"report": "privacy report", "model": "model"}[name])
		}
	}
	kit.KeepStdout(cmd)
	return nil
}

// startReportStdout prepares a run with --report -: the privacy report
// goes to standard output (where a file named "-" was written before),
// alone, so the summary goes to standard error; it cannot share standard
// output with the data (--out -) or with --json's document.
func startReportStdout(cmd *cobra.Command, dataToStdout bool) error {
	switch {
	case dataToStdout:
		return kit.Usagef("--out - and --report - cannot both write to standard output: give one of them a file")
	case kit.InheritedBool(cmd, kit.JSONFlag):
		return kit.Usagef("--report - writes the privacy report to standard output, so --json cannot print there too: give --quiet, or --report FILE with --json")
	}
	kit.KeepStdout(cmd)
	return nil
}

func listCommands(paths []string) string {
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = strings.TrimPrefix(p, "dppub ")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
