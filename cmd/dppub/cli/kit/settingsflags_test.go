package kit

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/dppub/dppub/method"
	"github.com/spf13/pflag"
)

type EmbeddedSettings struct {
	Theta float64 `json:"theta,omitempty" help:"θ"`
}

type flagSettings struct {
	EmbeddedSettings
	Rho     float64   `json:"rho,omitempty" help:"ρ"`
	Rounds  int       `json:"rounds,omitempty"`
	Clique  bool      `json:"any_clique,omitempty"`
	Method  string    `json:"method,omitempty"`
	Columns []string  `json:"columns,omitempty"`
	Party   []string  `json:"party,omitempty" flag:"array"`
	Budgets []float64 `json:"party_budgets,omitempty"`
	Records int       `json:"records" flag:"-"`
	Skipped string    `json:"skipped,omitempty"`
	hidden  int
}

// Applies leaves "skipped" without a flag, as DPPCA-SVM's settings leave
// δ to the Gaussian methods.
func (*flagSettings) Applies(key string) bool { return key != "skipped" }

// Every bindable field becomes a flag named by its key that writes into
// the struct; lists parse as pflag's own (an array keeps its commas).
func TestBindSettings(t *testing.T) {
	st := &flagSettings{Rho: 1, Columns: []string{"x"}}
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	BindSettings(fs, st)
	for _, absent := range []string{"records", "skipped", "hidden"} {
		if fs.Lookup(absent) != nil {
			t.Errorf("--%s is bound", absent)
		}
	}
	if fl := fs.Lookup("rho"); fl == nil || fl.DefValue != "1" || fl.Usage != "ρ" {
		t.Fatalf("--rho: %+v", fl)
	}
	err := fs.Parse([]string{"--theta", "2", "--rho", "0.5", "--rounds", "7", "--any-clique", "--method", "adaptive",
		"--columns", "a,b", "--party", "p:a,b", "--party", "q:c", "--party-budgets", "1,0.1"})
	if err != nil {
		t.Fatal(err)
	}
	want := flagSettings{EmbeddedSettings: EmbeddedSettings{Theta: 2}, Rho: 0.5, Rounds: 7, Clique: true, Method: "adaptive",
		Columns: []string{"a", "b"}, Party: []string{"p:a,b", "q:c"}, Budgets: []float64{1, 0.1}}
	if fmt.Sprint(*st) != fmt.Sprint(want) {
		t.Fatalf("settings %+v, want %+v", *st, want)
	}
	if got := fs.Lookup("party-budgets").Value.String(); got != "[1.000000,0.100000]" {
		t.Errorf("--party-budgets prints %q, as pflag's own list would", got)
	}
	for _, bad := range [][]string{{"--rounds", "x"}, {"--rho", "x"}, {"--any-clique=maybe"}} {
		if err := fs.Parse(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// A mistake in a bound setting names its flag; others pass unchanged.
func TestFlagErrors(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	BindSettings(fs, &flagSettings{})
	plain := errors.New("plain")
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"bound key", fmt.Errorf("m: %w", method.SettingsError{Err: method.Fieldf("party_budgets", "has %d values", 1)}), "--party-budgets has 1 values"},
		{"unbound key", method.Fieldf("records", "must be positive"), "records must be positive"},
		{"not a field", plain, "plain"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := FlagErrors(fs, c.err)
			if err == nil || err.Error() != c.want {
				t.Fatalf("got %v, want %q", err, c.want)
			}
			var u UsageError
			if strings.HasPrefix(c.want, "--") != errors.As(err, &u) {
				t.Fatalf("%v: usage error %v", err, errors.As(err, &u))
			}
		})
	}
	if err := FlagErrors(fs, nil); err != nil {
		t.Errorf("no error became %v", err)
	}
}
