package fsutil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckOutputs(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	existing := filepath.Join(dir, "old.csv")
	link := filepath.Join(dir, "link.csv")
	for _, p := range []string{in, existing} {
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(dir, "new.csv")
	cases := []struct {
		name      string
		outs, ins []string
		overwrite bool
		want      string
	}{
		{"fresh output", []string{fresh, fresh + ".privacy.json"}, []string{in}, false, ""},
		{"output is an input", []string{in}, []string{in}, true, "also the input"},
		{"output is an input by another path", []string{filepath.Join(dir, ".", "in.csv")}, []string{in}, true, "also the input"},
		{"output links to an input", []string{link}, []string{in}, true, "same file as the input"},
		{"two outputs alike", []string{fresh, fresh}, nil, false, "also the output"},
		{"existing output", []string{existing}, nil, false, "already exists"},
		{"existing output with overwrite", []string{existing}, nil, true, ""},
		{"missing directory", []string{filepath.Join(dir, "nodir", "x.csv")}, nil, false, "does not exist"},
		{"stdout", []string{"-"}, []string{"-"}, false, ""},
		{"the current directory", []string{"."}, nil, true, "output . is a directory: give a file name"},
		{"a directory", []string{dir}, nil, true, "is a directory"},
		{"a path ending in a slash", []string{filepath.Join(dir, "new") + "/"}, nil, false, "names a directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckOutputs(c.outs, c.ins, c.overwrite)
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Fatalf("the check left files behind: %v", entries)
	}
}
