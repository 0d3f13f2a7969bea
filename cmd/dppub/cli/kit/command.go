package kit

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// NewCommand completes cmd, which carries the command's help and Args
// rule: its flags fill a fresh F, declared by register, and its RunE
// hands them and the arguments to run. Every build of the tree gets its
// own F, so that two roots (as tests make) never share flag values.
func NewCommand[F any](cmd *cobra.Command, register func(*F, *pflag.FlagSet), run func(*cobra.Command, *F, []string) error) *cobra.Command {
	f := new(F)
	register(f, cmd.Flags())
	cmd.RunE = func(c *cobra.Command, args []string) error { return run(c, f, args) }
	return cmd
}

// MethodKey annotates a registered method's own command that is not a
// `publish` subcommand of its name (dppub synthesize); its value is the
// method's name.
const MethodKey = "dppub-method"
