package cli

import (
	"github.com/dppub/dppub/internal/fsutil"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// inputFlags name the flags that read files a command must never write.
var inputFlags = []string{"input", "schema", "settings", "config", "queries", "real", "synthetic", "holdout", "statistics"}

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
	out := flagValue(fs, "out")
	if out == "" || out == "-" {
		return nil // the command says that --out is required
	}
	outs := []string{out}
	ins := append([]string(nil), args...) // positional arguments are inputs (dppub schema IN.csv)
	for _, name := range inputFlags {
		ins = append(ins, flagValues(fs, name)...)
	}
	if publishing {
		outs = append(outs, orDefault(fs, "report", out+".privacy.json"))
		if fs.Lookup("model") != nil {
			outs = append(outs, orDefault(fs, "model", out+".model.json"))
		}
		if fs.Lookup("protocol-report") != nil {
			outs = append(outs, orDefault(fs, "protocol-report", out+".protocol.json"))
		}
	} else {
		ins = append(ins, flagValues(fs, "model")...)
	}
	force := false
	if f := fs.Lookup("force"); f != nil {
		force = f.Value.String() == "true"
	}
	return fsutil.CheckOutputs(outs, ins, force)
}

func flagValue(fs *pflag.FlagSet, name string) string {
	if f := fs.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// flagValues reads a string or a repeated flag.
func flagValues(fs *pflag.FlagSet, name string) []string {
	f := fs.Lookup(name)
	if f == nil {
		return nil
	}
	if sv, ok := f.Value.(pflag.SliceValue); ok {
		return sv.GetSlice()
	}
	return []string{f.Value.String()}
}

func orDefault(fs *pflag.FlagSet, name, def string) string {
	if v := flagValue(fs, name); v != "" {
		return v
	}
	return def
}
