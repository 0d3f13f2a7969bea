package cli

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method"
	"github.com/spf13/pflag"

	"github.com/dppub/dppub/internal/fsutil"
	"github.com/dppub/dppub/internal/version"
	"github.com/spf13/cobra"
)

// Main runs the CLI with args and returns the process exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	fsutil.HandleInterrupts() // Ctrl-C leaves no temporary file behind
	root := NewRoot(stdout, stderr)
	root.SetArgs(args)
	if cmd, err := root.ExecuteC(); err != nil {
		fmt.Fprintln(stderr, "dppub: "+strings.TrimPrefix(errorLine(cmd, err), "dppub: "))
		return 1
	}
	return 0
}

// errorLine is the one line an error is reported in: a column the schema
// lacks names the command's --skip-columns, and a mistake in the command
// line (a usage or settings error) ends with "(see --help)"; a failure of
// the run does not.
func errorLine(cmd *cobra.Command, err error) string {
	var unknown *data.UnknownColumnError
	if errors.As(err, &unknown) && cmd != nil && cmd.Flags().Lookup(kit.SkipColumnsFlag) != nil {
		unknown.Remedy = fmt.Sprintf("declare it in the schema, or give --%s %s to leave it out", kit.SkipColumnsFlag, unknown.Column)
	}
	msg := err.Error()
	var u kit.UsageError
	var se method.SettingsError
	if errors.As(err, &u) || errors.As(err, &se) {
		msg += " (see --help)"
	}
	return msg
}

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
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if e := onceError(c); e != nil {
			return kit.UsageError{Err: e} // without pflag's "invalid argument" preamble
		}
		return kit.UsageError{Err: err}
	})
	publish := newPublishCmd()
	root.AddCommand(newDatasetsCmd(), publish, newEvalCmd())
	for _, c := range topCommands() {
		root.AddCommand(c())
	}
	// After every method's own command exists, wherever it sits.
	addGenericPublish(root, publish)
	registerOutputMode(root)
	onceOnly(root)
	kit.RefuseNonPositive(root)
	deprecationsToStderr(root)
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

// deprecatedKey annotates a deprecated flag with its notice.
const deprecatedKey = "dppub-deprecated"

// deprecationsToStderr takes pflag's deprecation notices over: cobra
// prints them on standard output, where --out - writes the data. The
// flags stay hidden from help, and warnDeprecated prints the notice on
// standard error.
func deprecationsToStderr(c *cobra.Command) {
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Deprecated == "" {
			return
		}
		if f.Annotations == nil {
			f.Annotations = map[string][]string{}
		}
		f.Annotations[deprecatedKey] = []string{f.Deprecated}
		f.Deprecated, f.Hidden = "", true
	})
	for _, sub := range c.Commands() {
		deprecationsToStderr(sub)
	}
}

// warnDeprecated prints the notice of every deprecated flag given.
func warnDeprecated(cmd *cobra.Command) {
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if msg := f.Annotations[deprecatedKey]; len(msg) > 0 {
			fmt.Fprintf(cmd.ErrOrStderr(), "Flag --%s has been deprecated, %s\n", f.Name, msg[0])
		}
	})
}

// onceFlags name the single-file flags that a command line must not give
// twice: the second would silently replace the first (a second --input
// to a command that reads one table; a second --gate-holdout would run
// the gate against other rows than the owner meant).
var onceFlags = []string{"input", "schema", "out", "report", "model", "config", "settings", "json-out", "protocol-report", "real", "holdout", "synthetic",
	"gate-holdout", "gate-out", "gate-result"}

// onceOnly makes every single-valued flag of onceFlags, on c and its
// subcommands, refuse to be given twice.
func onceOnly(c *cobra.Command) {
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if slices.Contains(onceFlags, f.Name) && f.Value.Type() == "string" {
			f.Value = &onceValue{Value: f.Value, name: f.Name, command: c.Name()}
		}
	})
	for _, sub := range c.Commands() {
		onceOnly(sub)
	}
}

// onceValue is a string flag that refuses a second value.
type onceValue struct {
	pflag.Value
	name, command string
	set           bool
	err           error
}

func (o *onceValue) Set(s string) error {
	if o.set {
		o.err = fmt.Errorf("--%s given twice (%q, then %q): dppub %s takes one", o.name, o.Value.String(), s, o.command)
		return o.err
	}
	o.set = true
	return o.Value.Set(s)
}

func (o *onceValue) SetError() error { return o.err }

// onceError is the error of a flag of c given twice, or of a number its
// flag refuses (refuseNonPositive), or nil: these name the flag
// themselves.
func onceError(c *cobra.Command) error {
	var err error
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if o, ok := f.Value.(interface{ SetError() error }); ok && o.SetError() != nil {
			err = o.SetError()
		}
	})
	return err
}
