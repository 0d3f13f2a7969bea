// Package commands is the one explicit list of the hand-written method
// commands, each in its method's folder (method/<name>/cli): the root's
// command tree takes them from here, so the CLI knows a method only
// through this list and the method registry.
package commands

import (
	"github.com/spf13/cobra"

	dppcasvmcli "github.com/dppub/dppub/method/dppcasvm/cli"
	dpsubn3cli "github.com/dppub/dppub/method/dpsubn3/cli"
	mpcrdpcli "github.com/dppub/dppub/method/mpcrdp/cli"
	mulldacli "github.com/dppub/dppub/method/mullda/cli"
	pdpmvdscli "github.com/dppub/dppub/method/pdpmvds/cli"
	ppcadpmhcli "github.com/dppub/dppub/method/ppcadpmh/cli"
	privbayescli "github.com/dppub/dppub/method/privbayes/cli"
	synthesizecli "github.com/dppub/dppub/method/synthesize/cli"
)

// Publish are the `publish` subcommands written by hand in their
// methods' folders (the registry's other session methods get generic ones).
func Publish() []func() *cobra.Command {
	out := []func() *cobra.Command{
		privbayescli.Command, dpsubn3cli.Command,
		mpcrdpcli.Command, pdpmvdscli.Command, ppcadpmhcli.Command,
	}
	out = append(out, dppcasvmcli.Commands()...)
	return append(out, mulldacli.Commands()...)
}

// Top are the top-level commands of methods: `dppub synthesize` (a
// central method's own command) and PDP-MVDS's key ceremony and record
// linkage.
func Top() []func() *cobra.Command {
	return []func() *cobra.Command{synthesizecli.Command, pdpmvdscli.KeygenCommand, pdpmvdscli.LinkCommand}
}
