package method_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/method/dppcasvm/dppca"
	"github.com/dppub/dppub/method/methodtest"
	"github.com/dppub/dppub/method/mullda"
	"github.com/dppub/dppub/method/mullda/lda"
	"github.com/dppub/dppub/method/ppcadpmh"
	"github.com/dppub/dppub/method/ppcadpmh/ppca"
	"github.com/dppub/dppub/method/privbayes"
	_ "github.com/dppub/dppub/method/registry"
	"github.com/dppub/dppub/method/synthesize"
	"github.com/dppub/dppub/randx"
)

// owners lays out a one-process run of WDBC split among m owners.
func owners(t *testing.T, m int) method.LocalOptions {
	return method.OwnersLocal(methodtest.Owners(t, "wdbc", m, 1), nil)
}

func TestSettingsDecodeOverDefaultsAndRefuseTypos(t *testing.T) {
	cases := []struct {
		name, raw, want string
	}{
		{"unknown key", `{"epsilon": 1, "epsilonn": 2}`, "epsilonn"},
		{"trailing data", `{"epsilon": 1} {}`, "trailing"},
		{"invalid value", `{"epsilon": -1}`, "epsilon"},
		{"unknown word", `{"epsilon": 1, "noise": "loud"}`, "loud"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := ppcadpmh.Spec.Settings([]byte(c.raw)); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error naming %q", err, c.want)
			}
		})
	}
	st, err := ppcadpmh.Spec.Settings([]byte(`{"epsilon": 0.5}`))
	if err != nil {
		t.Fatal(err)
	}
	if s := st.(*ppcadpmh.Settings); s.Epsilon != 0.5 || s.Calibration != "sound" || s.Contribution != 0.85 {
		t.Fatalf("defaults not filled around the given key: %+v", s)
	}
}

// A seeded one-process run is reproducible, its session ID is the first
// draw of the run's randomness, and BuildLocal + Coordinate is RunLocal.
func TestRunLocalDrawsInOneOrder(t *testing.T) {
	o := owners(t, 3)
	run := func() *method.Run {
		o.Source = randx.NewSeeded(7)
		r, err := method.RunLocal(context.Background(), ppcadpmh.Spec, &ppcadpmh.Settings{Epsilon: 1, K: 2}, o)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a, b := run(), run()
	if want := method.SessionID(ppcadpmh.Name, randx.NewSeeded(7).Uint64); a.Session.Head().ID != want {
		t.Fatalf("session %q, want the first draw %q", a.Session.Head().ID, want)
	}
	var ca, cb bytes.Buffer
	if err := data.WriteCSV(&ca, a.Outcome.Table); err != nil {
		t.Fatal(err)
	}
	if err := data.WriteCSV(&cb, b.Outcome.Table); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ca.Bytes(), cb.Bytes()) {
		t.Fatal("two runs with the same seed published different tables")
	}
	if len(a.Accountants) != 3 || a.Facts.Rows != 569 {
		t.Fatalf("%d accountants, %d rows read; want 3 and 569", len(a.Accountants), a.Facts.Rows)
	}
	for _, acct := range a.Accountants {
		if acct.Spent().Epsilon > 1+1e-9 {
			t.Fatalf("%s spent %v of ε = 1", acct.Party(), acct.Spent())
		}
	}
}

func TestRunLocalRefuses(t *testing.T) {
	o := owners(t, 2)
	cases := []struct {
		name string
		st   *ppcadpmh.Settings
		o    method.LocalOptions
		want string
	}{
		{"bad settings", &ppcadpmh.Settings{Epsilon: 0}, o, "epsilon"},
		{"no owners", &ppcadpmh.Settings{Epsilon: 1}, method.LocalOptions{}, `role "owner"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := method.RunLocal(context.Background(), ppcadpmh.Spec, c.st, c.o)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error naming %s", err, c.want)
			}
		})
	}
}

func TestRegistry(t *testing.T) {
	if _, err := method.Lookup("nope"); err == nil || !strings.Contains(err.Error(), ppcadpmh.Name) {
		t.Fatalf("unknown method: %v (should list the known ones)", err)
	}
	names := method.Names(func(s method.Spec) bool { return s.Multiparty() })
	for _, want := range []string{"dp-subn3", "lda-dp", "mp-crdp", "mul-lda-dp", "pdp-mvds", "ppca-dp-mh"} {
		if !strings.Contains(strings.Join(names, " "), want) {
			t.Errorf("%s is not registered: %v", want, names)
		}
	}
	defer func() {
		if recover() == nil {
			t.Fatal("registering a name twice did not panic")
		}
	}()
	method.Register(ppcadpmh.Spec)
}

// The central methods are registered beside the session methods, and
// none of them runs as a session.
func TestCentralMethodsAreRegistered(t *testing.T) {
	central := method.Names(func(s method.Spec) bool { return s.Split == method.Central })
	want := []string{synthesize.Name, privbayes.Name, string(dppca.DPPCASVM), string(dppca.PCADPSVM), string(dppca.AGSVM), string(dppca.ModSuLQSVM)}
	for _, name := range want {
		if !slices.Contains(central, name) {
			t.Errorf("%s is not registered as a central method: %v", name, central)
		}
	}
	for _, name := range central {
		if s, err := method.Lookup(name); err != nil || s.Multiparty() || s.Run == nil {
			t.Errorf("central method %s: multiparty %v, run %v, %v", name, s.Multiparty(), s.Run != nil, err)
		}
	}
}

// TestDerivedOnce checks that a session's derived values are computed
// once, a failure included, however many members join.
func TestDerivedOnce(t *testing.T) {
	bad := errors.New("bad settings")
	for _, tc := range []struct {
		name string
		err  error
	}{{"value", nil}, {"error", bad}} {
		t.Run(tc.name, func(t *testing.T) {
			var d method.Derived[int]
			calls := 0
			derive := func() (int, error) { calls++; return 42, tc.err }
			for range 4 {
				v, err := d.Get(derive)
				if v != 42 || !errors.Is(err, tc.err) {
					t.Fatalf("Get = %d, %v; want 42, %v", v, err, tc.err)
				}
			}
			if calls != 1 {
				t.Errorf("derive ran %d times for 4 Gets, want 1", calls)
			}
		})
	}
}

// TestRunCalibratesOnePlan checks that a one-process run calibrates its
// noise plan once, whatever the number of owners m: the session agrees
// its parameters once and carries the plan to every role and its report.
// Before, every role and report line rebuilt it: PPCA-DP-MH 3m+5 plans
// (3m+6 with secure aggregation), Mul-LDA-DP 3m+8 with its dealer. Not
// parallel: the counters are the process's.
func TestRunCalibratesOnePlan(t *testing.T) {
	cases := []struct {
		name     string
		spec     method.Spec
		settings string
		dealer   bool
		plans    func() int64
	}{
		{"ppca-dp-mh/local", ppcadpmh.Spec, `{"epsilon": 1}`, false, ppca.PlansBuilt},
		{"ppca-dp-mh/secure-aggregate", ppcadpmh.Spec, `{"epsilon": 1, "noise": "secure-aggregate"}`, false, ppca.PlansBuilt},
		{"mul-lda-dp/correlated", mullda.Multi, `{"epsilon": 1, "delta": 1e-6, "label": "diagnosis"}`, true, lda.PlansBuilt},
		{"mul-lda-dp/independent", mullda.Multi, `{"epsilon": 1, "delta": 1e-6, "label": "diagnosis", "noise": "independent"}`, false, lda.PlansBuilt},
	}
	for _, c := range cases {
		for _, m := range []int{1, 3, 5} {
			t.Run(fmt.Sprintf("%s/m=%d", c.name, m), func(t *testing.T) {
				st, err := c.spec.Settings([]byte(c.settings))
				if err != nil {
					t.Fatal(err)
				}
				o := owners(t, m)
				if c.dealer {
					o.Members[mullda.RoleDealer] = []string{mullda.RoleDealer}
				}
				o.Source = randx.NewSeeded(2)
				before := c.plans()
				if _, err := method.RunLocal(context.Background(), c.spec, st, o); err != nil {
					t.Fatal(err)
				}
				if got := c.plans() - before; got != 1 {
					t.Errorf("%d owners: the run calibrated %d noise plans, want 1", m, got)
				}
			})
		}
	}
}
