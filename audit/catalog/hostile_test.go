package catalog

import (
	"slices"
	"testing"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/method"
)

// Every hostile-coordinator attack gets the outcome the member must give:
// refused with nothing charged or sent, or charged at its true cost.
func TestHostileSuite(t *testing.T) {
	attacks, err := All().HostileSuite()
	if err != nil {
		t.Fatal(err)
	}
	if len(attacks) < 10 {
		t.Fatalf("%d attacks, want the whole list", len(attacks))
	}
	for _, a := range attacks {
		t.Run(a.Method+"/"+a.Name, func(t *testing.T) {
			r, err := a.Run()
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != "PASS" {
				t.Fatalf("%s: expected %q, got %q: %s", a.Attempt, a.Expect, r.Got, r.Detail)
			}
			if r.Detail == "" {
				t.Fatal("no detail: the audit must say what the member did")
			}
		})
	}
	if _, err := All().HostileSuite("no-such-method"); err == nil {
		t.Fatal("an unknown method was accepted")
	}
}

// Every multi-party method has a hostile-coordinator suite, and every
// suite tries both refusals and what a member must accept (a replay it
// ignores or a request it pays for) on the role the method builds. lda-dp
// runs the same owner role as mul-lda-dp, without a dealer; it has no
// suite of its own.
func TestHostileSuiteCoversEveryMultipartyMethod(t *testing.T) {
	have := All().HostileMethods()
	for _, s := range method.All() {
		if !s.Multiparty() || s.Name == "lda-dp" {
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			if !slices.Contains(have, s.Name) {
				t.Fatalf("no hostile-coordinator suite for %s (have %v)", s.Name, have)
			}
			attacks, err := All().HostileSuite(s.Name)
			if err != nil {
				t.Fatal(err)
			}
			kinds := map[audit.HostileExpect]int{}
			for _, a := range attacks {
				kinds[a.Expect]++
			}
			if kinds[audit.HostileRefused] < 5 || kinds[audit.HostileCharged]+kinds[audit.HostileIgnored] == 0 {
				t.Errorf("%d attacks by expectation %v: want at least 5 refusals and one accepted message", len(attacks), kinds)
			}
		})
	}
}
