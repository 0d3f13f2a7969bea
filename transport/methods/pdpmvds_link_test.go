package methods

import (
	"strings"
	"testing"

	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/dp"
	pdpmvdsspec "github.com/dppub/dppub/method/pdpmvds"
	"github.com/dppub/dppub/transport"
)

// A linked PDP-MVDS session is refused before any member is asked when a
// party's schema names no ID column (or when one names an ID column and
// the settings do not link), and a party whose IDs repeat refuses as it
// joins: no budget is reserved for a session that will not run.
func TestPDPMVDSLinkedPrepareAndJoin(t *testing.T) {
	member := func(name, data, schema string) consortium.Member {
		return consortium.Member{Name: name, Role: "owner", Address: "h:2", Dataset: &consortium.Dataset{Path: data, Schema: schema}, Budget: &consortium.Budget{Rho: 1}}
	}
	f := writeConsortium(t, map[string]string{
		"p1.json":  `{"id": "person", "attributes": [{"name": "age", "kind": "numeric", "min": 0, "max": 100}]}`,
		"p2.json":  `{"id": "person", "attributes": [{"name": "smoker", "kind": "binary", "categories": ["no", "yes"]}]}`,
		"p2n.json": `{"attributes": [{"name": "smoker", "kind": "binary", "categories": ["no", "yes"]}]}`,
		"p1.csv":   "person,age\nx,30\ny,41\nz,52\n",
		"p2.csv":   "person,smoker\nz,no\nx,yes\n",
		"p2d.csv":  "person,smoker\nz,no\nz,yes\n",
	}, []consortium.Member{
		{Name: "synth", Role: "synthesizer", Address: "h:1"},
		member("a", "p1.csv", "p1.json"),
		member("b", "p2.csv", "p2.json"),
		member("bd", "p2d.csv", "p2.json"),
		member("bn", "p2.csv", "p2n.json"),
		{Name: "s", Role: "third-party", Address: "h:4"},
	})
	// Consortia of a, one of the b's and S: a file per case, same directory.
	sub := func(b string) *consortium.File {
		g := *f
		g.Members = nil
		for _, m := range f.Members {
			if m.Name == "synth" || m.Name == "a" || m.Name == b || m.Name == "s" {
				g.Members = append(g.Members, m)
			}
		}
		return &g
	}
	prep := func(c *consortium.File, settings string) (*transport.Setup, error) {
		return prepareAs(pdpmvdsspec.Spec, c, "synth", settings)
	}
	for _, c := range []struct {
		name, b, settings, want string
	}{
		{"no ID column", "bn", `{"rho": 1, "link": true, "delta": 1e-6}`, "bn's schema names no ID column"},
		{"ID column without link", "b", `{"rho": 1, "records": 2}`, `a's schema names an ID column "person": set link`},
		{"no delta", "b", `{"rho": 1, "link": true}`, "needs delta"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := prep(sub(c.b), c.settings); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error saying %q", err, c.want)
			}
		})
	}
	for _, c := range []struct{ b, want string }{{"b", ""}, {"bd", `ID "z" is on rows 0 and 1`}} {
		cf := sub(c.b)
		setup, err := prep(cf, `{"rho": 1, "link": true, "delta": 1e-6}`)
		if err != nil {
			t.Fatal(err)
		}
		setup.Cleanup()
		one := dp.Concentrated(1)
		r, err := join(pdpmvdsspec.Spec, joinInput(cf, setup, "synth", c.b, setup.Participants[1].Params, &one))
		switch {
		case c.want == "" && (err != nil || r.ID() != c.b):
			t.Errorf("%s should join: %v", c.b, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s joined with repeated IDs: %v", c.b, err)
		}
	}
}
