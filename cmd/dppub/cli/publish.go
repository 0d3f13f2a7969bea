package cli

import (
	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/method"
	_ "github.com/dppub/dppub/method/registry"
	"github.com/spf13/cobra"
)

func newPublishCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "publish METHOD",
		Short: "Publish a dataset or model under differential privacy",
		Long: `Publish with one of the implemented methods. Each writes its output and a
privacy report (JSON) beside it, and prints the report's summary.`,
	}
	for _, sub := range publishCommands() {
		cmd.AddCommand(sub())
	}
	return cmd
}

// addGenericPublish gives every registered method, session or central,
// that has no command of its own (a `publish` subcommand of its name, or
// a command annotated with kit.MethodKey) the generic `dppub publish NAME`.
func addGenericPublish(root, publish *cobra.Command) {
	own := map[string]bool{}
	for _, c := range publish.Commands() {
		own[c.Name()] = true
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if name := c.Annotations[kit.MethodKey]; name != "" {
			own[name] = true
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for _, s := range method.All() {
		if !own[s.Name] {
			publish.AddCommand(genericPublishCmd(s))
		}
	}
}
