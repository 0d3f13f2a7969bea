package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What the bad-input suite cannot show, as it asserts refusals: a CSV
// with a UTF-8 byte order mark before its header publishes (it said
// `header lacks column "age"`), and --report - writes the privacy report
// to standard output, alone, with the summary on standard error (it
// wrote a file named "-").
func TestByteOrderMarkAndReportToStdout(t *testing.T) {
	dir, s := peopleSchema(t)
	in := writeFile(t, dir, "bom.csv", "\ufeff"+csvRows(300))
	out := filepath.Join(dir, "out.csv")
	cases := []struct {
		name string
		args []string
	}{
		{"synthesize", []string{"synthesize", "--input", in, "--schema", s, "--out", out, "--report", "-", "--seed", "1"}},
		{"ppca-dp-mh", []string{"publish", "ppca-dp-mh", "--input", in, "--schema", s, "--out", out, "--report", "-", "--seed", "1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_ = os.Remove(out)
			wd, _ := os.Getwd()
			stdout, stderr := mustRun(t, c.args...)
			var report struct {
				Status  string            `json:"guarantee_status"`
				Outputs map[string]string `json:"output_sha256"`
			}
			if err := json.Unmarshal([]byte(stdout), &report); err != nil {
				t.Fatalf("standard output is not the report alone: %v: %.200q", err, stdout)
			}
			if report.Status != "none-seeded" || report.Outputs[filepath.Base(out)] == "" {
				t.Fatalf("report status %q, outputs %v", report.Status, report.Outputs)
			}
			if !strings.Contains(stderr, "Privacy report:") {
				t.Errorf("the summary is not on standard error: %.300q", stderr)
			}
			if b, err := os.ReadFile(out); err != nil || strings.Count(string(b), "\n") != 301 {
				t.Fatalf("table: %d lines, %v", strings.Count(string(b), "\n"), err)
			}
			for _, d := range []string{dir, wd} {
				notWritten(t, filepath.Join(d, "-"))
			}
		})
	}
}
