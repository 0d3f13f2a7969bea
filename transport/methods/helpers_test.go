package methods

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/dppub/dppub/consortium"
)

// writeConsortium writes files (name → content) and a consortium file of
// members into a fresh directory and loads it.
func writeConsortium(t *testing.T, files map[string]string, members []consortium.Member) *consortium.File {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := json.Marshal(consortium.File{Name: "t", Members: members})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "c.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := consortium.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
