package audit

import (
	"strings"
	"testing"

	"github.com/dppub/dppub/method"
	_ "github.com/dppub/dppub/method/registry"
)

// Every registered method is audited: some audit of the suite is named
// for it (its mechanisms, its protocol views or its whole pipeline), so a
// method cannot be added without evidence for its claim.
func TestEveryRegisteredMethodIsAudited(t *testing.T) {
	inSuite := map[string]bool{}
	for _, c := range Suite(true) {
		inSuite[c.Method] = true
	}
	for _, s := range method.All() {
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
}
