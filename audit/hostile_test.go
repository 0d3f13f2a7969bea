package audit

import "testing"

// Every hostile-coordinator attack gets the outcome the member must give:
// refused with nothing charged or sent, or charged at its true cost.
func TestHostileSuite(t *testing.T) {
	attacks, err := HostileSuite()
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
	if _, err := HostileSuite("no-such-method"); err == nil {
		t.Fatal("an unknown method was accepted")
	}
}
