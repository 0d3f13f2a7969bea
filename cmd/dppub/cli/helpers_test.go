package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/dppub/dppub/gate"
	"github.com/dppub/dppub/internal/testenv"
	"github.com/dppub/dppub/privacy"
)

// readFile is the content of the file at path; the test stops when it
// cannot be read.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// written stops the test unless every one of paths exists.
func written(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s was not written: %v", p, err)
		}
	}
}

// notWritten fails the test for every one of paths that exists (or
// cannot be told not to).
func notWritten(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s was written (%v)", p, err)
		}
	}
}

// readme is the module's root directory and its README.md, whose
// commands the tests check.
func readme(t *testing.T) (root, text string) {
	t.Helper()
	root, err := testenv.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root, string(readFile(t, filepath.Join(root, "README.md")))
}

// readJSON decodes the JSON file at path into v.
func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b := readFile(t, path)
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// readReport reads the privacy report at path.
func readReport(t *testing.T, path string) *privacy.Report {
	t.Helper()
	var r privacy.Report
	readJSON(t, path, &r)
	return &r
}

// readGate reads the release gate's result at path.
func readGate(t *testing.T, path string) *gate.Release {
	t.Helper()
	b := readFile(t, path)
	rel, err := gate.ParseRelease(b)
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

// lineCount is the number of lines of the file at path (a CSV's header
// and rows).
func lineCount(t *testing.T, path string) int {
	t.Helper()
	b := readFile(t, path)
	return strings.Count(string(b), "\n")
}

// sameBytes fails unless the files own and other hold the same bytes;
// what says why they should.
func sameBytes(t *testing.T, own, other, what string) {
	t.Helper()
	a, errA := os.ReadFile(own)
	b, errB := os.ReadFile(other)
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if !bytes.Equal(a, b) {
		t.Fatalf("%s (%d vs %d bytes)", what, len(b), len(a))
	}
}

// sha256Hex is the SHA-256 of s in hexadecimal, as reports record an
// output's digest.
func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// digestRecorded fails the test unless digests (a report's
// output_sha256) hold under name the SHA-256 of body, the output's bytes.
func digestRecorded(t *testing.T, digests map[string]string, name string, body []byte) {
	t.Helper()
	if got, want := digests[name], sha256Hex(string(body)); got != want {
		t.Errorf("the report's digest of %s is %q, the output's %s", name, got, want)
	}
}

// refusal is a case of a table of command lines that must be refused:
// its name, the arguments, and what the error must say.
type refusal struct {
	name string
	args []string
	want string
}

// refused runs args and fails the test unless the command exits non-zero
// with want in its error and has written none of outs; it returns the
// error output.
func refused(t *testing.T, want string, outs []string, args ...string) string {
	t.Helper()
	code, _, stderr := run(t, args...)
	if code == 0 || !strings.Contains(stderr, want) {
		t.Errorf("%v: exit %d, stderr %q, want an error mentioning %q", args, code, stderr, want)
	}
	for _, out := range outs {
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%v: %s written despite the error", args, out)
		}
	}
	return stderr
}

// snapshot maps every file under dir to the SHA-256 of its bytes (and
// every directory to "dir"): two equal snapshots mean nothing was
// written, replaced, appended to or created, budget stores and ledgers
// included.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			out[rel] = "dir"
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out[rel] = sha256Hex(string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// refusedInOneLine runs args and fails the test unless the command exits
// with status 1 and one line on stderr holding want, and changes nothing
// under dir (see snapshot); it returns that line and stdout.
func refusedInOneLine(t *testing.T, dir, want string, args ...string) (line, stdout string) {
	t.Helper()
	before := snapshot(t, dir)
	code, stdout, stderr := run(t, args...)
	line = strings.TrimSpace(stderr)
	if code != 1 || strings.Count(line, "\n") > 0 || !strings.Contains(line, want) {
		t.Errorf("exit %d, stderr %q; want exit 1 and one line with %q", code, stderr, want)
	}
	if d := diffSnapshots(before, snapshot(t, dir)); d != "" {
		t.Errorf("files changed: %s", d)
	}
	return line, stdout
}

func diffSnapshots(before, after map[string]string) string {
	var changes []string
	for p, h := range after {
		switch b, ok := before[p]; {
		case !ok:
			changes = append(changes, "created "+p)
		case b != h:
			changes = append(changes, "changed "+p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			changes = append(changes, "removed "+p)
		}
	}
	sort.Strings(changes)
	return strings.Join(changes, ", ")
}

// peopleInput writes the people schema (schemaJSON) and rows of them
// (csvRows) as in.csv into a new directory, returning the three paths.
func peopleInput(t *testing.T, rows int) (dir, schema, in string) {
	t.Helper()
	dir, schema = peopleSchema(t)
	return dir, schema, writeFile(t, dir, "in.csv", csvRows(rows))
}

// csvOwners writes two owners' files of the test schema in their own
// directory.
func csvOwners(t *testing.T) (schema, a, b string) {
	t.Helper()
	dir, schema := peopleSchema(t)
	return schema, writeFile(t, dir, "a.csv", csvRows(60)), writeFile(t, dir, "b.csv", csvRows(50))
}

// peopleSchema is a fresh directory holding the test schema (schemaJSON)
// as s.json, and that file's path.
func peopleSchema(t *testing.T) (dir, schema string) {
	t.Helper()
	dir = t.TempDir()
	return dir, writeFile(t, dir, "s.json", schemaJSON)
}

// mentions fails the test for every one of wants that text (what, e.g.
// "output") lacks.
func mentions(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("%s lacks %q:\n%s", what, want, text)
		}
	}
}
