package methods

import (
	"strings"
	"testing"

	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/method/methodtest"
	rowsynthspec "github.com/dppub/dppub/method/rowsynth"
	"github.com/dppub/dppub/ownerstats"
)

// A synthesize-rows owner whose consortium entry names a fine statistics
// file joins like one holding rows when the session measures pairs only;
// a file of the equal-width kind, or a session that may combine three
// attributes, is refused at the join, before anything is charged.
func TestRowSynthJoinWithStatisticsFile(t *testing.T) {
	schema, tab := threeRows(t)
	file := func(c ownerstats.Config) string { return string(methodtest.StatisticsFile(t, tab, c)) }
	f := writeConsortium(t, map[string]string{"s.json": schemaJSON,
		"fine.stats": file(ownerstats.Config{Schema: schema, Fine: true}), "plain.stats": file(ownerstats.Config{Schema: schema})},
		[]consortium.Member{
			{Name: "curator", Role: "curator", Address: "h:1"},
			{Name: "owner-1", Role: "owner", Address: "h:2",
				Dataset: &consortium.Dataset{Statistics: "fine.stats", Schema: "s.json"}, Budget: &consortium.Budget{Rho: 5}},
			{Name: "owner-2", Role: "owner", Address: "h:3",
				Dataset: &consortium.Dataset{Statistics: "plain.stats", Schema: "s.json"}, Budget: &consortium.Budget{Rho: 5}},
		})
	if _, err := consortium.Init(f, consortium.InitOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, member, settings, want string
	}{
		{"fine file, pairs only", "owner-1", `{"rho": 0.5, "max_cells": 1}`, ""},
		{"fine file, combined marginals", "owner-1", `{"rho": 0.5}`, "max_cells 1"},
		{"equal-width file", "owner-2", `{"rho": 0.5, "max_cells": 1}`, "fine"},
	} {
		t.Run(c.name, func(t *testing.T) {
			setup, err := prepareAs(rowsynthspec.Spec, f, "curator", c.settings)
			if err != nil {
				t.Fatal(err)
			}
			me := participant(setup, c.member)
			in := joinInput(f, setup, "curator", c.member, me.Params, me.Budget)
			if in.Credentials, err = consortium.LoadCredentials(f, c.member); err != nil {
				t.Fatal(err)
			}
			_, err = join(rowsynthspec.Spec, in)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("should join: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
			if spent := in.Accountant.Spent(); c.want != "" && spent.Rho != 0 {
				t.Fatalf("charged %v before refusing", spent)
			}
		})
	}
}
