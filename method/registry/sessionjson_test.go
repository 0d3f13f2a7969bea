package registry_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method"
	_ "github.com/dppub/dppub/method/registry"
)

var update = flag.Bool("update", false, "rewrite the golden session files")

// TestSessionJSONUnchanged pins the JSON a coordinator sends its members
// for every method of owners of rows: sessions travel between processes,
// so a refactoring of the session types must leave these bytes alone (a
// member on the old build must still decode a new coordinator's session).
func TestSessionJSONUnchanged(t *testing.T) {
	schema := data.Schema{ID: "golden", Attributes: []data.Attribute{
		{Name: "age", Kind: data.Numeric, Min: 17, Max: 90, Integer: true},
		{Name: "hours", Kind: data.Numeric, Min: 0, Max: 99},
		{Name: "sex", Kind: data.Binary, Categories: []string{"f", "m"}},
		{Name: "class", Kind: data.Categorical, Categories: []string{"a", "b", "c"}},
	}}
	for _, tc := range []struct {
		name, settings string
		members        map[string][]string
	}{
		{"ppca-dp-mh", `{"epsilon":1,"delta":1e-5}`, nil},
		{"dp-subn3", `{"epsilon":1,"frontier":2}`, nil},
		{"synthesize-rows", `{"rho":0.5,"delta":1e-6}`, nil},
		{"mul-lda-dp", `{"epsilon":1,"delta":1e-5,"label":"class"}`, map[string][]string{"dealer": {"d"}}},
		{"lda-dp", `{"epsilon":1,"delta":1e-5,"label":"class"}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec, err := method.Lookup(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			st, err := spec.Settings(json.RawMessage(tc.settings))
			if err != nil {
				t.Fatal(err)
			}
			owners := []string{"alice", "bob"}
			if tc.name == "lda-dp" {
				owners = owners[:1]
			}
			members := map[string][]string{method.RoleOwner: owners}
			for r, n := range tc.members {
				members[r] = n
			}
			sess, err := spec.Open(st, method.Open{ID: "session-1", Coordinator: "carol", Members: members,
				Schemas: []data.Schema{schema}})
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(sess, "", "\t")
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", tc.name+".session.json")
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("session JSON changed:\n got %s\nwant %s", got, want)
			}
			back, err := spec.Decode(want)
			if err != nil {
				t.Fatalf("the golden session no longer decodes: %v", err)
			}
			again, err := json.MarshalIndent(back, "", "\t")
			if err != nil || !bytes.Equal(again, want) {
				t.Errorf("decode and re-encode changed the session (err %v):\n got %s\nwant %s", err, again, want)
			}
		})
	}
}
