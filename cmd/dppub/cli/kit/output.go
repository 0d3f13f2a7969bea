package kit

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/dppub/dppub/internal/version"
	"github.com/dppub/dppub/privacy"
	"github.com/spf13/cobra"
)

// The output modes of the publishing commands (those with --report):
// the terminal summary (default), nothing on stdout (--quiet), or one JSON
// document on stdout (--json) holding the privacy report and a short
// quality summary. Files are written the same way in every mode, and
// warnings and errors still go to stderr.
const (
	QuietFlag = "quiet"
	JSONFlag  = "json"
)

// outputState is one publishing command's run under --quiet or --json:
// the real stdout, and what the JSON document will hold.
type outputState struct {
	json    bool
	stdout  io.Writer
	command string
	report  *privacy.Report
	quality map[string]any
}

type outputKey struct{}

// StartOutputMode starts a publishing command's run under --quiet or
// --json (the root's persistent hook): the summary writer is silenced.
func StartOutputMode(cmd *cobra.Command) error {
	quiet, asJSON := InheritedBool(cmd, QuietFlag), InheritedBool(cmd, JSONFlag)
	switch {
	case !quiet && !asJSON:
		return nil
	case quiet && asJSON:
		return Usagef("give --quiet or --json, not both")
	case cmd.Flags().Lookup("report") == nil:
		return Usagef("--%s is for the publishing commands (dppub publish …, run, synthesize, schema); dppub %s prints its own output",
			map[bool]string{true: JSONFlag, false: QuietFlag}[asJSON], cmd.Name())
	}
	st := &outputState{json: asJSON, stdout: cmd.OutOrStdout(), command: cmd.CommandPath(), quality: map[string]any{}}
	cmd.SetContext(context.WithValue(cmd.Context(), outputKey{}, st))
	cmd.SetOut(io.Discard)
	return nil
}

// InheritedBool reads the root's persistent flag name; a command's own
// flag of that name (compare --json) shadows it and is the command's.
func InheritedBool(cmd *cobra.Command, name string) bool {
	f := cmd.InheritedFlags().Lookup(name)
	return f != nil && f.Value.String() == "true" && cmd.LocalFlags().Lookup(name) == nil
}

func outputOf(cmd *cobra.Command) *outputState {
	st, _ := cmd.Context().Value(outputKey{}).(*outputState)
	return st
}

// PrintReport prints the privacy report's text to w (the summary) and
// keeps the report for --json: every publishing command's print site.
func PrintReport(cmd *cobra.Command, w io.Writer, r *privacy.Report) {
	fmt.Fprint(w, r.Summary())
	NoteReport(cmd, r)
}

// NoteQuality records one figure of the quality summary for --json
// (computed on the owners' real data: for them, never published).
func NoteQuality(cmd *cobra.Command, key string, v any) {
	if st := outputOf(cmd); st != nil {
		st.quality[key] = v
	}
}

// OutputDocument is what --json prints.
type OutputDocument struct {
	Command     string          `json:"command"`
	Version     string          `json:"version"`
	Report      *privacy.Report `json:"privacy_report"`
	Quality     map[string]any  `json:"quality"`
	QualityNote string          `json:"quality_note"`
}

// FinishOutputMode prints --json's document once the command has succeeded.
func FinishOutputMode(cmd *cobra.Command) error {
	st := outputOf(cmd)
	if st == nil || !st.json {
		return nil
	}
	doc := OutputDocument{Command: st.command, Version: version.String(), Report: st.report, Quality: st.quality,
		QualityNote: "computed on the owners' real data, for their eyes only; not published"}
	enc := json.NewEncoder(st.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// NoteReport keeps the privacy report for --json where the command
// prints the report's text itself.
func NoteReport(cmd *cobra.Command, r *privacy.Report) {
	if st := outputOf(cmd); st != nil {
		st.report = r
	}
}
