package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dppub/dppub/budgetstore"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/learn"
	"github.com/dppub/dppub/model"
)

// stateFixture adds to the bad-input fixture the damaged state on disk
// its last cases use: owner-2's budget ledger with every page but the two
// meta pages zeroed (its free list among them: bbolt panicked "invalid
// freelist page" on it), a copy of the demo consortium whose owner-1
// names a data file that does not exist, and a model file whose method
// no dppub method writes.
func stateFixture(t *testing.T, f badInputFixture) {
	t.Helper()
	path := f.p("demo/owner-2.budget.db")
	s, err := budgetstore.Open(budgetstore.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Define("adult-owner-2", dp.Approx(3, 1e-5)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	clear(b[2*os.Getpagesize():]) // bbolt's default page size
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}

	var c map[string]any
	b, err = os.ReadFile(f.p("demo/consortium.json"))
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range c["members"].([]any) {
		if m := m.(map[string]any); m["name"] == "owner-1" {
			m["dataset"].(map[string]any)["path"] = filepath.Join("data", "nope.csv")
		}
	}
	if b, err = json.Marshal(c); err != nil {
		t.Fatal(err)
	}
	writeFile(t, f.dir, "demo/missing-data.json", string(b))

	schema, err := data.LoadSchema(f.p("s.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.New(model.Options{Method: "dppca-svm", Schema: schema, Label: "smoker", Features: []string{"age"},
		Classifier: &learn.Classifier{Classes: 2, Models: []*learn.LinearModel{{W: []float64{1}, B: -0.5}}}})
	if err == nil {
		b, err = m.JSON()
	}
	if err != nil {
		t.Fatal(err)
	}
	forest := strings.Replace(string(b), `"method": "dppca-svm"`, `"method": "forest"`, 1)
	if forest == string(b) {
		t.Fatalf("the model's method is not where the fixture looks for it:\n%s", b)
	}
	writeFile(t, f.dir, "forest.json", forest)
}
