package cli

import (
	"github.com/spf13/cobra"

	"github.com/dppub/dppub/cmd/dppub/commands"
)

// The command tree is listed here once, instead of init() functions that
// append to package variables from every file: adding a command is one
// line in one of these lists, and the tree does not depend on the order
// the files' init functions run in (cobra sorts the commands for help).

// topCommands are the top-level commands besides publish and eval: those
// written here, then the methods' own (package commands: `dppub
// synthesize`, PDP-MVDS's keygen and link).
func topCommands() []func() *cobra.Command {
	out := []func() *cobra.Command{
		newAuditCmd, newCheckCmd, newCompareCmd,
		newConsortiumCmd, newServeCmd, newRunCmd,
		newLedgerCmd, newVersionCmd, newPredictCmd,
		newSchemaCmd, newStatisticsCmd,
	}
	return append(out, commands.Top()...)
}

// publishCommands are the `publish` subcommands of methods with a
// hand-written command, each in its method's folder (the list of package
// commands); the registry's other session methods get generic ones.
func publishCommands() []func() *cobra.Command {
	return commands.Publish()
}

// The `eval` subcommands are the experiments of the registry eval/all.
