package transport_test

import (
	"encoding/json"
	"os"

	"github.com/dppub/dppub/consortium"
)

// readConfig reads the cluster's consortium file as written (relative
// paths as they are).
func (c *cluster) readConfig() consortium.File {
	c.t.Helper()
	b, err := os.ReadFile(c.config)
	if err != nil {
		c.t.Fatal(err)
	}
	var f consortium.File
	if err := json.Unmarshal(b, &f); err != nil {
		c.t.Fatal(err)
	}
	return f
}

// writeJSON writes v as indented JSON to path.
func (c *cluster) writeJSON(path string, v any) {
	c.t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		c.t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		c.t.Fatal(err)
	}
}

// reload loads the consortium file again into c.file.
func (c *cluster) reload() {
	c.t.Helper()
	f, err := consortium.Load(c.config)
	if err != nil {
		c.t.Fatal(err)
	}
	c.file = f
}

// editConfig changes the consortium file, writes it and reloads it.
func (c *cluster) editConfig(change func(*consortium.File)) {
	c.t.Helper()
	f := c.readConfig()
	change(&f)
	c.writeJSON(c.config, f)
	c.reload()
}

// editMembers changes every member of the consortium file and reloads it.
func (c *cluster) editMembers(change func(*consortium.Member)) {
	c.t.Helper()
	c.editConfig(func(f *consortium.File) {
		for i := range f.Members {
			change(&f.Members[i])
		}
	})
}
