package cli

import (
	"io"
	"strings"
	"testing"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/method"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// numericFlag is one numeric flag of one command of the tree.
type numericFlag struct {
	path []string // the command's words after dppub
	name string
	list bool
}

// numericFlags lists every numeric flag of every command (the whole cobra
// tree, the registry's generic commands included).
func numericFlags() []numericFlag {
	var out []numericFlag
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if kit.NumericTypes[f.Value.Type()] && f.Name != "help" {
				out = append(out, numericFlag{path: path, name: f.Name, list: strings.HasSuffix(f.Value.Type(), "Slice")})
			}
		})
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string(nil), path...), sub.Name()))
		}
	}
	walk(NewRoot(io.Discard, io.Discard), nil)
	return out
}

// allowed are the only numeric flags that accept zero or a negative value
// (each with the meaning it documents); every other budget, δ, size or
// count refuses both.
var allowed = map[string]string{
	"seed": method.SignAny, "split-seed": method.SignAny, "fault-transport-version": method.SignAny,
	"frontier": method.SignNonNegative, "group-size": method.SignNonNegative, "svm-lambda": method.SignNonNegative,
	"publish privbayes --k": method.SignNonNegative, "publish dp-subn3 --k": method.SignNonNegative,
	"bin-share": method.SignNonZero, "label-check-share": method.SignNonZero,
}

func policyOf(f numericFlag) string {
	if p, ok := allowed[strings.Join(f.path, " ")+" --"+f.name]; ok {
		return p
	}
	return allowed[f.name]
}

// Every numeric flag of every command refuses 0 and -1 (or, for the few
// whose zero or negative values mean something documented, what they do
// not allow) as it is parsed: one line naming the flag, before any work.
// Before, --epsilon 0 of synthesize spent ρ = 1, and --delta 0, --rows 0,
// --bins 0, --max-cells 0 and --parties 0 silently meant their defaults.
func TestEveryNumericFlagRefusesNonPositive(t *testing.T) {
	flags := numericFlags()
	if len(flags) < 150 {
		t.Fatalf("found %d numeric flags; the tree has about 190", len(flags))
	}
	for _, f := range flags {
		var bad []string
		switch policyOf(f) {
		case method.SignAny:
			continue
		case method.SignNonNegative:
			bad = []string{"-1"}
		case method.SignNonZero:
			bad = []string{"0"}
		default:
			bad = []string{"0", "-1"}
		}
		for _, v := range bad {
			t.Run(strings.Join(f.path, "_")+"/--"+f.name+"="+v, func(t *testing.T) {
				args := append(append([]string(nil), f.path...), "--"+f.name, v)
				code, stdout, stderr := run(t, args...)
				want := "dppub: --" + f.name + " must "
				if f.list {
					want = "dppub: --" + f.name + ": "
				}
				line := strings.TrimSpace(stderr)
				if code != 1 || stdout != "" || !strings.HasPrefix(line, want) || strings.Contains(line, "\n") ||
					!strings.Contains(line, "got "+v) {
					t.Errorf("exit %d, stdout %q, stderr %q; want one line starting %q and quoting %s", code, stdout, stderr, want, v)
				}
			})
		}
	}
}

// The word auto asks a numeric setting for its default explicitly, and
// the default δ's help says how it is chosen.
func TestAutoAsksForTheDefault(t *testing.T) {
	root := NewRoot(io.Discard, io.Discard)
	cmd, _, err := root.Find([]string{"synthesize"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ flag, def string }{{"delta", "0"}, {"bins", "16"}, {"max-cells", "5000"}} {
		fl := cmd.Flags().Lookup(c.flag)
		if err := fl.Value.Set("7"); err != nil {
			t.Fatal(err)
		}
		if err := fl.Value.Set("auto"); err != nil {
			t.Fatalf("--%s auto: %v", c.flag, err)
		}
		if got := fl.Value.String(); got != c.def {
			t.Errorf("--%s auto gives %s, want the default %s", c.flag, got, c.def)
		}
	}
	if u := cmd.Flags().Lookup("delta").Usage; !strings.Contains(u, "auto") {
		t.Errorf("--delta's help does not mention auto: %q", u)
	}
}
