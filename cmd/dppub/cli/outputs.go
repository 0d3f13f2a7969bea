package cli

import (
	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/internal/fsutil"
	"github.com/spf13/cobra"
)

// inputFlags name the flags that read files a command must never write.
var inputFlags = []string{"input", "schema", "settings", "config", "queries", "real", "synthetic", "holdout", "statistics", "gate-holdout", "gate-result"}

// checkOutputsFirst runs before every command that publishes (it has
// --report) or writes predictions: every output must be writable without
// losing a file (fsutil.CheckOutputs) before anything is read, computed
// or charged. The defaults of --report, --model and --protocol-report
// are the commands' own (beside --out).
func checkOutputsFirst(cmd *cobra.Command, args []string) error {
	fs := cmd.Flags()
	publishing := fs.Lookup("report") != nil
	if !publishing && cmd.Name() != "predict" {
		return nil
	}
	if err := kit.CheckStdinOnce("input", append(kit.FlagValues(fs, "input"), args...)); err != nil {
		return err
	}
	out := kit.FlagValue(fs, "out")
	if out == "" {
		return nil // the command says that --out is required
	}
	toStdout := out == kit.StdoutPath
	if toStdout {
		if err := startStdout(cmd); err != nil {
			return err
		}
	}
	if publishing && kit.FlagValue(fs, "report") == kit.StdoutPath {
		if err := startReportStdout(cmd, toStdout); err != nil {
			return err
		}
	}
	// derived is an output's path: the flag's, else its default beside
	// --out (none beside standard output: startStdout required the flag).
	derived := func(name, suffix string) string {
		if toStdout {
			return kit.FlagValue(fs, name)
		}
		return kit.OrDefault(fs, name, out+suffix)
	}
	outs := []string{out}
	ins := append([]string(nil), args...) // positional arguments are inputs (dppub schema IN.csv)
	for _, name := range inputFlags {
		ins = append(ins, kit.FlagValues(fs, name)...)
	}
	if err := kit.CheckGateFlags(fs); err != nil {
		return err
	}
	if publishing {
		outs = append(outs, derived("report", ".privacy.json"))
		// The gate's result is written with the outputs, so it is
		// checked with them, before anything is charged.
		gp, err := kit.GatePath(fs)
		if err != nil {
			return err
		}
		if gp != "" {
			outs = append(outs, gp)
		}
		if fs.Lookup("model") != nil {
			outs = append(outs, derived("model", ".model.json"))
		}
		if fs.Lookup("protocol-report") != nil {
			outs = append(outs, derived("protocol-report", ".protocol.json"))
		}
	} else {
		ins = append(ins, kit.FlagValues(fs, "model")...)
	}
	force := false
	if f := fs.Lookup("force"); f != nil {
		force = f.Value.String() == "true"
	}
	if err := fsutil.CheckOutputs(outs, ins, force); err != nil {
		return kit.UsageError{Err: err}
	}
	return nil
}
