package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
)

// A networked run that streamed to standard output says, when it fails,
// how many bytes went there and that they are unpublished; a run to a
// file (removed on failure) or one that wrote nothing yet says nothing
// more.
func TestStdoutIncomplete(t *testing.T) {
	base := errors.New("owner-2 is unreachable")
	for _, c := range []struct {
		name, out string
		st        *streamedRows
		want      string
	}{
		{"standard output, rows written", kit.StdoutPath, &streamedRows{written: 1234}, "the 1234 bytes already written to standard output are incomplete and unpublished"},
		{"standard output, nothing written", kit.StdoutPath, &streamedRows{}, ""},
		{"standard output, session refused", kit.StdoutPath, nil, ""},
		{"file", "synth.csv", &streamedRows{written: 1234}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := stdoutIncomplete(base, c.out, c.st)
			if !errors.Is(err, base) {
				t.Fatalf("%v does not wrap the session's error", err)
			}
			if c.want == "" && err != base {
				t.Fatalf("got %q, want the session's error alone", err)
			}
			if c.want != "" && !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %q, want it to say %q", err, c.want)
			}
		})
	}
}

// The publishing ledger's digests of a streamed run: the main output's
// from the digest taken on the way (keyed as the report keys it,
// "standard output" for --out -), the report's read back.
func TestStreamedDigests(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "r.json")
	if err := os.WriteFile(report, []byte(`{"report": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	rows := []byte("age,sex\n30,Male\n")
	st := &streamedRows{sum: sha256.Sum256(rows)}
	reportSum := sha256.Sum256([]byte(`{"report": 1}`))
	for _, c := range []struct {
		name, out, key string
	}{
		{"file", filepath.Join(dir, "synth.csv"), "synth.csv"},
		{"standard output", kit.StdoutPath, kit.StdoutName},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := streamedDigests([]string{c.out, report}, c.out, st)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{c.key: hex.EncodeToString(st.sum[:]), "r.json": hex.EncodeToString(reportSum[:])}
			if len(got) != len(want) || got[c.key] != want[c.key] || got["r.json"] != want["r.json"] {
				t.Fatalf("digests %v, want %v", got, want)
			}
		})
	}
}
