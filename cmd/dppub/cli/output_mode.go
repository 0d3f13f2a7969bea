package cli

import (
	"fmt"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/internal/version"
	"github.com/spf13/cobra"
)

// registerOutputMode adds --quiet and --json to the root and wraps its
// hooks: before a publishing command runs, its summary writer is silenced
// (cmd.OutOrStdout() discards: every print site follows without change);
// after it succeeds, --json writes the document to the real stdout.
func registerOutputMode(root *cobra.Command) {
	pf := root.PersistentFlags()
	pf.Bool(kit.QuietFlag, false, "publishing commands: print no summary on the terminal (files, warnings and errors as usual)")
	pf.Bool(kit.JSONFlag, false, "publishing commands: print the privacy report and a short quality summary as one JSON document instead of the summary")
	pre := root.PersistentPreRunE
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		warnDeprecated(cmd)
		if err := kit.StartOutputMode(cmd); err != nil {
			return err
		}
		if pre != nil {
			return pre(cmd, args)
		}
		return nil
	}
	root.PersistentPostRunE = func(cmd *cobra.Command, _ []string) error { return kit.FinishOutputMode(cmd) }
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
