package fsutil

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// CheckOutputs checks, before anything is computed or charged, that every
// output can be written without losing a file: the outputs are distinct
// from each other and from every input (compared as absolute paths and,
// for existing files, as the same file through links), none is a
// directory (even with overwrite: the rename at the end would fail after
// all the work), none exists unless overwrite is set, and each one's
// directory exists and is writable.
func CheckOutputs(outputs, inputs []string, overwrite bool) error {
	seen := map[string]string{}
	var known []namedFile
	for _, in := range inputs {
		if in == "" || in == "-" {
			continue
		}
		seen[absPath(in)] = "input " + in
		known = append(known, namedFile{"input " + in, in})
	}
	for _, out := range outputs {
		if out == "" || out == "-" {
			continue
		}
		if err := notADirectory(out); err != nil {
			return err
		}
		key := absPath(out)
		if what, dup := seen[key]; dup {
			return fmt.Errorf("output %s is also the %s: refusing to overwrite it", out, what)
		}
		if what := sameAsAny(out, known); what != "" {
			return fmt.Errorf("output %s is the same file as the %s: refusing to overwrite it", out, what)
		}
		seen[key] = "output " + out
		known = append(known, namedFile{"output " + out, out})
		if err := writableDir(filepath.Dir(key)); err != nil {
			return fmt.Errorf("output %s: %w", out, err)
		}
		if _, err := os.Lstat(out); err == nil && !overwrite {
			return fmt.Errorf("output %s already exists (give --force to replace it)", out)
		}
	}
	return nil
}

// notADirectory refuses an output that names a directory: an existing one
// (--out .) or a path ending in a separator.
func notADirectory(out string) error {
	if fi, err := os.Stat(out); err == nil && fi.IsDir() {
		return fmt.Errorf("output %s is a directory: give a file name (such as %s)", out, filepath.Join(out, "out.csv"))
	}
	if strings.HasSuffix(out, "/") || strings.HasSuffix(out, string(filepath.Separator)) {
		return fmt.Errorf("output %s names a directory: give a file name", out)
	}
	return nil
}

type namedFile struct{ what, path string }

func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return filepath.Clean(p)
}

// sameAsAny names the known file that out already is (a hard or symbolic
// link to it), or "".
func sameAsAny(out string, known []namedFile) string {
	fo, err := os.Stat(out)
	if err != nil {
		return ""
	}
	for _, k := range known {
		if fk, err := os.Stat(k.path); err == nil && os.SameFile(fo, fk) {
			return k.what
		}
	}
	return ""
}

// writableDir checks that dir exists and a file can be created in it.
func writableDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return fmt.Errorf("directory %s does not exist", dir)
	}
	f, err := os.CreateTemp(dir, ".dppub-check-*")
	if err != nil {
		return fmt.Errorf("directory %s is not writable", dir)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}
