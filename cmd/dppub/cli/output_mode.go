package cli

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
	quietFlag = "quiet"
	jsonFlag  = "json"
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

// registerOutputMode adds --quiet and --json to the root and wraps its
// hooks: before a publishing command runs, its summary writer is silenced
// (cmd.OutOrStdout() discards: every print site follows without change);
// after it succeeds, --json writes the document to the real stdout.
func registerOutputMode(root *cobra.Command) {
	pf := root.PersistentFlags()
	pf.Bool(quietFlag, false, "publishing commands: print no summary on the terminal (files, warnings and errors as usual)")
	pf.Bool(jsonFlag, false, "publishing commands: print the privacy report and a short quality summary as one JSON document instead of the summary")
	pre := root.PersistentPreRunE
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		warnDeprecated(cmd)
		if err := startOutputMode(cmd); err != nil {
			return err
		}
		if pre != nil {
			return pre(cmd, args)
		}
		return nil
	}
	root.PersistentPostRunE = func(cmd *cobra.Command, _ []string) error { return finishOutputMode(cmd) }
}

func startOutputMode(cmd *cobra.Command) error {
	quiet, asJSON := inheritedBool(cmd, quietFlag), inheritedBool(cmd, jsonFlag)
	switch {
	case !quiet && !asJSON:
		return nil
	case quiet && asJSON:
		return usagef("give --quiet or --json, not both")
	case cmd.Flags().Lookup("report") == nil:
		return usagef("--%s is for the publishing commands (dppub publish …, run, synthesize, schema); dppub %s prints its own output",
			map[bool]string{true: jsonFlag, false: quietFlag}[asJSON], cmd.Name())
	}
	st := &outputState{json: asJSON, stdout: cmd.OutOrStdout(), command: cmd.CommandPath(), quality: map[string]any{}}
	cmd.SetContext(context.WithValue(cmd.Context(), outputKey{}, st))
	cmd.SetOut(io.Discard)
	return nil
}

// inheritedBool reads the root's persistent flag name; a command's own
// flag of that name (compare --json) shadows it and is the command's.
func inheritedBool(cmd *cobra.Command, name string) bool {
	f := cmd.InheritedFlags().Lookup(name)
	return f != nil && f.Value.String() == "true" && cmd.LocalFlags().Lookup(name) == nil
}

func outputOf(cmd *cobra.Command) *outputState {
	st, _ := cmd.Context().Value(outputKey{}).(*outputState)
	return st
}

// printReport prints the privacy report's text to w (the summary) and
// keeps the report for --json: every publishing command's print site.
func printReport(cmd *cobra.Command, w io.Writer, r *privacy.Report) {
	fmt.Fprint(w, r.Summary())
	noteReport(cmd, r)
}

// noteQuality records one figure of the quality summary for --json
// (computed on the owners' real data: for them, never published).
func noteQuality(cmd *cobra.Command, key string, v any) {
	if st := outputOf(cmd); st != nil {
		st.quality[key] = v
	}
}

// outputDocument is what --json prints.
type outputDocument struct {
	Command     string          `json:"command"`
	Version     string          `json:"version"`
	Report      *privacy.Report `json:"privacy_report"`
	Quality     map[string]any  `json:"quality"`
	QualityNote string          `json:"quality_note"`
}

func finishOutputMode(cmd *cobra.Command) error {
	st := outputOf(cmd)
	if st == nil || !st.json {
		return nil
	}
	doc := outputDocument{Command: st.command, Version: version.String(), Report: st.report, Quality: st.quality,
		QualityNote: "computed on the owners' real data, for their eyes only; not published"}
	enc := json.NewEncoder(st.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print dppub's version (as --version does, and as every privacy report records it)",
		Args:    cobra.NoArgs,
		Example: "  dppub version",
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "dppub version %s\n", version.String())
			return err
		},
	}
}

// noteReport keeps the privacy report for --json where the command
// prints the report's text itself.
func noteReport(cmd *cobra.Command, r *privacy.Report) {
	if st := outputOf(cmd); st != nil {
		st.report = r
	}
}
