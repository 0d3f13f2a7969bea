package catalog

import (
	"strings"
	"testing"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/method"
	_ "github.com/dppub/dppub/method/registry"
)

// Every registered method is audited: some audit of the suite is named
// for it (its mechanisms, its protocol views or its whole pipeline), or
// its family names the suite's audits that check its claim (Evidence), so
// a method cannot be added without evidence for its claim.
func TestEveryRegisteredMethodIsAudited(t *testing.T) {
	c := All()
	inSuite := map[string]bool{}
	for _, k := range c.Suite(true) {
		inSuite[k.Method] = true
	}
	registered := map[string]bool{}
	for _, s := range method.All() {
		registered[s.Name] = true
		if mapped := c.Evidence(s.Name); mapped != nil {
			for _, a := range mapped {
				if !inSuite[a] {
					t.Errorf("%s is audited by %q, which is not an audit of the suite", s.Name, a)
				}
			}
			continue
		}
		found := false
		for _, m := range c.Methods() {
			if inSuite[m.Name] && strings.Contains(m.Name, s.Name) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("no audit of the suite is named for the registered method %s", s.Name)
		}
	}
	for _, name := range c.EvidenceMethods() {
		if !registered[name] {
			t.Errorf("a family names evidence for %s, which is not a registered method", name)
		}
	}
}

// The catalog holds every family's audits once, under unique names, and
// every suite case names an audit of the catalog.
func TestCatalog(t *testing.T) {
	c := All()
	n := 0
	for _, f := range Families() {
		n += len(f.Methods)
	}
	if got := len(c.Methods()); got != n || n < 39 {
		t.Errorf("%d audits in the catalog, %d in its families; want equal and the whole list", got, n)
	}
	for _, k := range c.Suite(true) {
		if _, err := c.Lookup(k.Method); err != nil {
			t.Error(err)
		}
	}
	if _, err := audit.NewCatalog(audit.Core(), audit.Core()); err == nil {
		t.Error("a catalog with every core audit twice was accepted")
	}
}
