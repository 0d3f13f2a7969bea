package cli

import (
	"errors"
	"fmt"
	"github.com/dppub/dppub/method"
	"github.com/spf13/pflag"
	"io"
	"strings"

	"github.com/dppub/dppub/internal/version"
	"github.com/spf13/cobra"
)

// Main runs the CLI with args and returns the process exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	root := NewRoot(stdout, stderr)
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		msg := err.Error()
		var u usageError
		var se method.SettingsError
		if errors.As(err, &u) || errors.As(err, &se) {
			msg += " (see --help)"
		}
		fmt.Fprintln(stderr, "dppub: "+strings.TrimPrefix(msg, "dppub: "))
		return 1
	}
	return 0
}

// usageError marks a mistake in the command line itself.
type usageError struct{ error }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// NewRoot builds the command tree.
func NewRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "dppub",
		Short: "Publish data from several owners under differential privacy",
		Long: `dppub lets several data owners (hospitals, banks, utilities) publish data
together under differential privacy without handing raw records to anyone.

Every output comes with a privacy report (JSON beside the output, and a
summary on the terminal) that says what is covered by DP, at what budget,
under which assumptions, and what is NOT covered.

Start with:
  dppub datasets                       list the built-in datasets
  dppub publish ppca-dp-mh --help      the first multi-party method
  dppub eval ppca-dp-mh --help         reproduce the paper's figures`,
		Version:           version.String(),
		SilenceUsage:      true,
		SilenceErrors:     true,
		PersistentPreRunE: checkOutputsFirst,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newDatasetsCmd(), newPublishCmd(), newEvalCmd())
	for _, c := range topCommands {
		root.AddCommand(c())
	}
	registerOutputMode(root)
	plainFlagHelp(root)
	examplesFromLong(root)
	return root
}

// plainFlagHelp quotes command names in flag help with '…': pflag reads a
// `backticked` word as the flag's value type (--dataset dppub datasets).
func plainFlagHelp(c *cobra.Command) {
	c.Flags().VisitAll(func(f *pflag.Flag) { f.Usage = strings.ReplaceAll(f.Usage, "`", "'") })
	for _, sub := range c.Commands() {
		plainFlagHelp(sub)
	}
}

// topCommands are further top-level commands (predict, ledger, audit, ...);
// each adds itself in an init function of its own file.
var topCommands []func() *cobra.Command
