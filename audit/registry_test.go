package audit

import (
	"strings"
	"testing"

	"github.com/dppub/dppub/method"
	_ "github.com/dppub/dppub/method/registry"
)

// Every registered method is audited: some audit of the suite is named
// for it (its mechanisms, its protocol views or its whole pipeline), or
// auditedBy names the suite's audits that check its claim, so a method
// cannot be added without evidence for its claim.
func TestEveryRegisteredMethodIsAudited(t *testing.T) {
	inSuite := map[string]bool{}
	for _, c := range Suite(true) {
		inSuite[c.Method] = true
	}
	registered := map[string]bool{}
	for _, s := range method.All() {
		registered[s.Name] = true
		if mapped, ok := auditedBy[s.Name]; ok {
			for _, a := range mapped {
				if !inSuite[a] {
					t.Errorf("%s is audited by %q, which is not an audit of the suite", s.Name, a)
				}
			}
			continue
		}
		found := false
		for _, m := range Methods() {
			if inSuite[m.Name] && strings.Contains(m.Name, s.Name) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("no audit of the suite is named for the registered method %s", s.Name)
		}
	}
	for name := range auditedBy {
		if !registered[name] {
			t.Errorf("auditedBy names %s, which is not a registered method", name)
		}
	}
}
