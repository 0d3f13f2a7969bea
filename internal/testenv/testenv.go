package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/dppub/dppub/internal/fsutil"
)

// ModuleRoot returns the directory holding go.mod, searching upwards from
// the working directory (a test's working directory is its package's).
func ModuleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("testenv: working directory: %w", err)
	}
	root, err := fsutil.FindUp(wd, "go.mod")
	if err != nil {
		return "", fmt.Errorf("testenv: module root: %w", err)
	}
	return root, nil
}

// SharedDataDir returns <module root>/../shared/data, whether or not it
// exists.
func SharedDataDir() (string, error) {
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(root), "shared", "data"), nil
}

// SharedData returns the directory of the shared dataset name
// (<module root>/../shared/data/<name>), or skips the test when it is
// absent.
func SharedData(t testing.TB, name string) string {
	t.Helper()
	base, err := SharedDataDir()
	if err != nil {
		t.Skipf("shared dataset %q not found: %v: skipping (place ../shared/data beside the repo to run it)", name, err)
	}
	dir := filepath.Join(base, name)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Skipf("shared dataset %q not found at %s: skipping (place ../shared/data beside the repo to run it)", name, dir)
	}
	return dir
}
