package fsutil

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteFileAtomic writes path through write: the bytes go to a temporary
// file in the same directory, which is synced and then renamed over path,
// so readers see either the old file or the complete new one. On any
// error (including one returned by write) the temporary file is removed
// and path is left untouched; so it is if the process is interrupted
// (HandleInterrupts).
func WriteFileAtomic(path string, perm os.FileMode, write func(w io.Writer) error) (err error) {
	if write == nil {
		return errors.New("fsutil: nil write function")
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, untrack, err := CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("fsutil: create temporary file for %q: %w", path, err)
	}
	defer untrack() // after the removal below, so no signal finds it untracked
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if err = write(tmp); err != nil {
		return fmt.Errorf("fsutil: write %q: %w", path, err)
	}
	if err = tmp.Chmod(perm); err != nil {
		return fmt.Errorf("fsutil: chmod %q: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("fsutil: sync %q: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("fsutil: close %q: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("fsutil: rename onto %q: %w", path, err)
	}
	syncDir(dir)
	return nil
}

// syncDir makes the rename durable where the platform allows it; failure
// is not an error because some systems cannot sync directories.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}

// FindUp looks for name in start and then in each parent directory, and
// returns the first directory that contains it.
func FindUp(start, name string) (string, error) {
	dir, err := filepath.Abs(start)
	if err != nil {
		return "", fmt.Errorf("fsutil: absolute path of %q: %w", start, err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("fsutil: no %q in %q or any parent: %w", name, start, os.ErrNotExist)
		}
		dir = parent
	}
}
