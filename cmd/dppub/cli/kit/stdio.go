package kit

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// StdoutPath is the --out that writes to standard output, for pipes:
//
//	dppub schema - --out - < people.csv
//	cat people.csv | dppub publish ppca-dp-mh --input - --schema s.json --out - --report r.json | …
//
// The data then go alone to standard output; the terminal summary goes
// to standard error.
const StdoutPath = "-"

// StdoutName names standard output in messages and reports.
const StdoutName = "standard output"

type stdoutKey struct{}

// KeepStdout keeps the real standard output for the one thing a run writes
// there (DataStdout) and sends the summary to standard error (--quiet has
// already silenced it).
func KeepStdout(cmd *cobra.Command) {
	w := cmd.OutOrStdout()
	if st := outputOf(cmd); st != nil {
		w = st.stdout
	} else {
		cmd.SetOut(cmd.ErrOrStderr())
	}
	cmd.SetContext(context.WithValue(cmd.Context(), stdoutKey{}, w))
}

// DataStdout is where --out - writes the data: the real standard output.
func DataStdout(cmd *cobra.Command) io.Writer {
	if w, ok := cmd.Context().Value(stdoutKey{}).(io.Writer); ok {
		return w
	}
	return cmd.OutOrStdout()
}

// WriteStdout writes an output's bytes to standard output.
func WriteStdout(cmd *cobra.Command, b []byte) error {
	if _, err := DataStdout(cmd).Write(b); err != nil {
		return fmt.Errorf("writing to %s: %w", StdoutName, err)
	}
	return nil
}
