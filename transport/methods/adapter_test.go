package methods

import (
	"testing"

	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/transport"
)

// Every registered session method is on the network, coordinated by the
// role its spec names: registering a spec is all a method needs.
func TestEveryMethodIsOnTheNetwork(t *testing.T) {
	n := 0
	for _, s := range method.All() {
		if !s.Multiparty() {
			continue
		}
		n++
		m, err := transport.Lookup(s.Name)
		if err != nil {
			t.Errorf("%s: %v", s.Name, err)
			continue
		}
		if m.CoordinatorRole != s.Coordinator {
			t.Errorf("%s is coordinated by %q on the network, its spec says %q", s.Name, m.CoordinatorRole, s.Coordinator)
		}
	}
	if n < 6 {
		t.Fatalf("only %d session methods registered", n)
	}
}

func TestSplitSchemaKey(t *testing.T) {
	cases := []struct {
		name, raw, rest, file string
		rows                  bool
	}{
		{"rows with schema", `{"schema": "s.json", "epsilon": 1}`, `{"epsilon":1}`, "s.json", true},
		{"rows without schema", `{"epsilon": 1}`, `{"epsilon": 1}`, "", true},
		{"columns keep the key", `{"schema": "s.json"}`, `{"schema": "s.json"}`, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rest, file, err := splitSchemaKey([]byte(c.raw), c.rows)
			if err != nil || string(rest) != c.rest || file != c.file {
				t.Fatalf("got %s, %q, %v; want %s, %q", rest, file, err, c.rest, c.file)
			}
		})
	}
	if _, _, err := splitSchemaKey([]byte(`{"schema": 3}`), true); err == nil {
		t.Fatal("a non-string schema key was accepted")
	}
}
