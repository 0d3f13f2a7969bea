package fsutil

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFileAtomicWrites(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteFileAtomic(path, 0o600, func(w io.Writer) error {
		_, err := io.WriteString(w, "new content")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "new content" {
		t.Fatalf("read back %q, %v", got, err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	assertOnly(t, dir, "out.txt")
}

func TestWriteFileAtomicFailingWriterLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	boom := errors.New("boom")
	err := WriteFileAtomic(path, 0o644, func(w io.Writer) error {
		if _, err := io.WriteString(w, "partial"); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v does not wrap the writer's error", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("path exists after failed write: %v", err)
	}
	assertOnly(t, dir)
}

func TestWriteFileAtomicFailureKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteFileAtomic(path, 0o644, func(w io.Writer) error { return errors.New("no") })
	if err == nil {
		t.Fatal("want error")
	}
	got, _ := os.ReadFile(path)
	if string(got) != "old" {
		t.Fatalf("old file changed to %q", got)
	}
	assertOnly(t, dir, "out.txt")
}

func TestWriteFileAtomicMissingDir(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope", "out.txt")
	if err := WriteFileAtomic(path, 0o644, func(io.Writer) error { return nil }); err == nil {
		t.Fatal("want error for a missing directory")
	}
}

func TestFindUp(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b", "c")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a", "marker"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := FindUp(deep, "marker")
	if err != nil || got != filepath.Join(root, "a") {
		t.Fatalf("FindUp = %q, %v", got, err)
	}
	if _, err := FindUp(deep, "no-such-marker-file-xyz"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("want ErrNotExist, got %v", err)
	}
}

func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	if got := entries(t, dir); fmt.Sprint(got) != fmt.Sprint(names) {
		t.Fatalf("directory holds %v, want %v", got, names)
	}
}

func ExampleWriteFileAtomic() {
	path := filepath.Join(os.TempDir(), "fsutil-example.txt")
	defer os.Remove(path)
	err := WriteFileAtomic(path, 0o644, func(w io.Writer) error {
		_, err := fmt.Fprintln(w, "released")
		return err
	})
	b, _ := os.ReadFile(path)
	fmt.Print(string(b), err)
	// Output:
	// released
	// <nil>
}

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
