package kit

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dppub/dppub/method"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// handSigns are the sign policies (method.CheckSign) of the numeric flags
// declared by hand, not bound from a method's settings, whose value may be
// zero or negative; every other such flag must be positive. A flag's
// zero default means "not given" (the command chooses), so a 0 written on
// the command line is refused, never silently replaced by the default.
var handSigns = map[string]string{
	"seed":       method.SignAny, // any 64-bit value is a seed
	"split-seed": method.SignAny,
	// A hidden fault-injection flag of tests: 0 is this build's version.
	"fault-transport-version": method.SignAny,
	// eval baselines: DP-SUBN3's search frontier, documented "0: all".
	"frontier": method.SignNonNegative,
}

// NumericTypes are the pflag value types RefuseNonPositive checks.
var NumericTypes = map[string]bool{"int": true, "int64": true, "float64": true, "float64Slice": true, "intSlice": true}

// RefuseNonPositive makes every numeric flag of c and its subcommands
// check its value as it is parsed: positive unless handSigns says
// otherwise (a settings flag checks itself, by its field's sign tag).
func RefuseNonPositive(c *cobra.Command) {
	c.Flags().VisitAll(func(f *pflag.Flag) {
		switch f.Value.(type) {
		case *fieldValue, *signValue:
			return
		}
		if NumericTypes[f.Value.Type()] {
			f.Value = &signValue{Value: f.Value, name: f.Name, policy: handSigns[f.Name], def: f.DefValue}
		}
	})
	for _, sub := range c.Commands() {
		RefuseNonPositive(sub)
	}
}

// signValue is a numeric flag (or list of numbers) that refuses a value
// its sign policy does not allow; the word auto asks for its default.
type signValue struct {
	pflag.Value
	name, policy, def string
	err               error
}

func (v *signValue) SetError() error { return v.err }

func (v *signValue) Set(s string) error {
	v.err = nil
	list := strings.HasSuffix(v.Value.Type(), "Slice")
	if s == AutoWord && !list {
		return v.Value.Set(v.def)
	}
	integer := strings.HasPrefix(v.Value.Type(), "int")
	items := []string{s}
	if list {
		items = strings.Split(s, ",")
	}
	for i, item := range items {
		x, err := strconv.ParseFloat(strings.TrimSpace(item), 64)
		if err != nil {
			break // the flag's own parser says what is wrong
		}
		if err := method.CheckSign(v.policy, x, integer); err != nil {
			if list {
				v.err = fmt.Errorf("--%s: %s%v (value %d) %w", v.name, listSymbol(v.name), x, i+1, err)
			} else {
				v.err = fmt.Errorf("--%s %w", v.name, err)
			}
			return v.err
		}
	}
	return v.Value.Set(s)
}

// listSymbol names the quantity of a list of budgets in messages.
func listSymbol(name string) string {
	switch name {
	case "budgets", "party-budgets", "rhos":
		return "ρ = "
	case "epsilons":
		return "ε = "
	}
	return ""
}
