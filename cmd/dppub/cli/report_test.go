package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dppub/dppub/internal/version"
	"github.com/dppub/dppub/privacy"
)

// published is one CLI run's privacy report, as JSON and as read back,
// with the terminal output.
type published struct {
	raw    map[string]any
	report privacy.Report
	stdout string
}

// publishRun runs the CLI, which must succeed, and reads the report
// written beside out.
func publishRun(t *testing.T, out string, args ...string) published {
	t.Helper()
	return publishRunWith(t, run, out, args...)
}

// publishRunWith is publishRun through a given runner (runPassingGate for a
// gated run).
func publishRunWith(t *testing.T, runner func(*testing.T, ...string) (int, string, string), out string, args ...string) published {
	t.Helper()
	code, stdout, stderr := runner(t, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	b := readFile(t, out+".privacy.json")
	p := published{stdout: stdout}
	if err := json.Unmarshal(b, &p.raw); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &p.report); err != nil {
		t.Fatal(err)
	}
	return p
}

// headline is the guarantee line of the terminal report.
func (p published) headline(t *testing.T) string {
	t.Helper()
	for _, line := range strings.Split(p.stdout, "\n") {
		if h, ok := strings.CutPrefix(line, "  guarantee:     "); ok {
			return h
		}
	}
	t.Fatalf("no guarantee line in:\n%s", p.stdout)
	return ""
}

// field reads a nested JSON field, e.g. field("actual", "epsilon").
func (p published) field(path ...string) any {
	var v any = p.raw
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// verticalOwners writes two owners' columns of the same records in their
// own directory.
func verticalOwners(t *testing.T) (schema, a, b string) {
	t.Helper()
	return pdpmvdsParts(t, t.TempDir())
}

// A seeded run carries no guarantee: the status says so first, and the
// nominal guarantee is kept as claimed.
func TestReportSeededRunsHaveNoGuarantee(t *testing.T) {
	dir := t.TempDir()
	schema, a, b := csvOwners(t)
	for _, tc := range []struct {
		name     string
		args     []string
		status   privacy.Status
		headline string
	}{
		{"ppca-dp-mh seeded", []string{"publish", "ppca-dp-mh", "--input", a, "--input", b, "--schema", schema, "--epsilon", "2", "--seed", "1"},
			privacy.NoneSeeded, "NONE (seeded): claimed ε=2 per record; the randomness is seeded and predictable"},
		{"ppca-dp-mh secure", []string{"publish", "ppca-dp-mh", "--input", a, "--input", b, "--schema", schema, "--epsilon", "2"},
			privacy.Holds, "holds: ε=2 per record"},
		{"synthesize seeded", []string{"synthesize", "--input", a, "--schema", schema, "--rho", "0.5", "--rounds", "3", "--seed", "2"},
			privacy.NoneSeeded, "NONE (seeded): claimed ρ=0.5 (zCDP) per record"},
		{"mp-crdp seeded", []string{"publish", "mp-crdp", "--dataset", "wdbc", "--utility", "u1", "--release", "queries", "--num-queries", "20", "--seed", "3"},
			privacy.NoneSeeded, "NONE (seeded): claimed ε=1 per record"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".out")
			p := publishRun(t, out, append(tc.args, "--out", out)...)
			if got := p.raw["guarantee_status"]; got != string(tc.status) {
				t.Errorf("guarantee_status %v, want %q", got, tc.status)
			}
			if p.field("claimed", "notion") == nil {
				t.Errorf("no claimed guarantee in the JSON: %v", p.raw["claimed"])
			}
			if h := p.headline(t); !strings.HasPrefix(h, tc.headline) {
				t.Errorf("headline %q, want it to start with %q", h, tc.headline)
			}
		})
	}
}

// A paper calibration with a known true guarantee reports claimed and
// actual side by side; no party is within budget against the claim only,
// and the headline shows the actual figure.
func TestReportPaperCalibrationStatesActual(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name   string
		args   []string
		status privacy.Status
		actual float64 // actual ε, when known in advance
	}{
		// Adult's encoding, p = 106 columns in 8 one-hot groups and 7
		// scalars, noise Lap(2p/ε) = Lap(212) on both sums: Σx moves by at
		// most 23 and the second moment by at most 212
		// (ppca.RowBounds.PaperOuterL1), ε = 235/212 = 1.108 (the generic
		// bound for rows in [0,1]^p said 27.25).
		{"ppca-dp-mh", []string{"publish", "ppca-dp-mh", "--dataset", "adult", "--owners", "2", "--epsilon", "1", "--calibration", "paper"},
			privacy.ExceedsClaim, 235.0 / 212},
		// With --generic-bounds the rows are only known to lie in
		// [0,1]^p: (p+1)/4 = 26.75 on the second moment plus 0.5 on the mean.
		{"ppca-dp-mh generic bounds", []string{"publish", "ppca-dp-mh", "--dataset", "adult", "--owners", "2", "--epsilon", "1", "--calibration", "paper", "--generic-bounds"},
			privacy.ExceedsClaim, 27.25},
		{"mp-crdp", []string{"publish", "mp-crdp", "--dataset", "wdbc", "--utility", "u1", "--release", "queries", "--num-queries", "20",
			"--calibration", "paper"}, privacy.ExceedsClaim, 0},
		{"ag-svm", []string{"publish", "ag-svm", "--dataset", "wdbc", "--calibration", "paper"}, privacy.ExceedsClaim, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, tc.name+".out")
			p := publishRun(t, out, append(tc.args, "--out", out)...)
			r := p.report
			if r.Status != tc.status || p.raw["guarantee_status"] != string(tc.status) {
				t.Errorf("status %q, want %q", r.Status, tc.status)
			}
			if r.Actual == nil || p.field("actual", "notion") == nil || p.field("claimed", "notion") == nil {
				t.Fatalf("claimed %v and actual %v are not side by side", p.raw["claimed"], p.raw["actual"])
			}
			// The grid's rounding moves the figure by a relative 2^-20 or so.
			if tc.actual > 0 && (math.Abs(r.Actual.Epsilon-tc.actual) > 1e-4*tc.actual || r.Claimed.Epsilon != 1) {
				t.Errorf("actual %v, claimed %v; want ε=%v and ε=1", *r.Actual, r.Claimed, tc.actual)
			}
			for _, party := range p.raw["parties"].([]any) {
				if party.(map[string]any)["within_budget"] != false {
					t.Errorf("party %v is within budget against its claim only", party.(map[string]any)["party"])
				}
			}
			want := fmt.Sprintf("EXCEEDS THE CLAIM: actually %v per record; claimed %v per record", *r.Actual, r.Claimed)
			if h := p.headline(t); !strings.HasPrefix(h, want) {
				t.Errorf("headline %q, want it to start with %q", h, want)
			}
		})
	}
}

// Under personalised per-party budgets the headline and the JSON carry the
// guarantee of a whole record and each party's.
func TestReportWholeRecordUnderPersonalisedBudgets(t *testing.T) {
	dir := t.TempDir()
	schema, a, _ := csvOwners(t)
	vschema, va, vb := verticalOwners(t)
	for _, tc := range []struct {
		name    string
		args    []string
		parties []string // in order; none when there is no whole-record figure
	}{
		{"synthesize --party-budgets", []string{"synthesize", "--input", a, "--schema", schema, "--party", "bank:age,smoker",
			"--party", "clinic:region", "--party-budgets", "1,0.1", "--rounds", "3"}, []string{"bank", "clinic"}},
		{"synthesize --parties", []string{"synthesize", "--input", a, "--schema", schema, "--parties", "2", "--party-budgets", "0.5,0.2",
			"--rounds", "3"}, []string{"party-1", "party-2"}},
		{"pdp-mvds", []string{"publish", "pdp-mvds", "--input", va, "--input", vb, "--schema", vschema, "--budgets", "1,2", "--rounds", "3"},
			[]string{"party-1", "party-2"}},
		{"one owner", []string{"synthesize", "--input", a, "--schema", schema, "--rho", "1", "--rounds", "3"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".out")
			p := publishRun(t, out, append(tc.args, "--out", out)...)
			r := p.report
			h := p.headline(t)
			if tc.parties == nil {
				if r.WholeRecord != nil || !strings.HasPrefix(h, "holds: ρ=1 (zCDP) per record") {
					t.Errorf("one owner: whole record %v, headline %q", r.WholeRecord, h)
				}
				return
			}
			rho, ok := p.field("whole_record", "rho").(float64)
			if !ok || r.WholeRecord == nil || rho != r.WholeRecord.Rho {
				t.Fatalf("whole_record %v", p.raw["whole_record"])
			}
			if p.field("whole_record_equivalent_approx_dp", "epsilon") == nil {
				t.Errorf("no (ε, δ) equivalent of the whole-record guarantee")
			}
			largest, sum := 0.0, 0.0
			var per []string
			for i, party := range r.Parties {
				largest, sum = max(largest, party.Spent.Rho), sum+party.Spent.Rho
				if party.Party != tc.parties[i] {
					t.Errorf("party %d is %q, want %q", i, party.Party, tc.parties[i])
				}
				per = append(per, fmt.Sprintf("%s %v", party.Party, party.Spent))
			}
			if rho < largest*(1-1e-9) || rho > sum*(1+1e-9) {
				t.Errorf("whole record ρ = %v outside [largest party %v, sum %v]", rho, largest, sum)
			}
			want := fmt.Sprintf("holds: %v per whole record ≈ %v, per party (its own columns): %s", *r.WholeRecord, *r.WholeRecordAsDP, strings.Join(per, ", "))
			if h != want {
				t.Errorf("headline\n %q, want\n %q", h, want)
			}
		})
	}
}

// MP-CRDP defaults to standard DP; the correlated notions are explicit and
// reported as not standard DP; MCD is always listed as not covered; the
// group notion states its group-level total.
func TestReportMPCRDPNotions(t *testing.T) {
	dir := t.TempDir()
	base := []string{"publish", "mp-crdp", "--dataset", "wdbc", "--utility", "u1", "--release", "queries", "--num-queries", "20"}
	for _, tc := range []struct {
		name     string
		args     []string
		status   privacy.Status
		headline string
		group    string // expected in the group notion's statement
	}{
		{"default", nil, privacy.Holds, "holds: ε=1 per record", ""},
		{"mp-crdp", []string{"--notion", "mp-crdp"}, privacy.NotStandardDP, "NOT STANDARD DP: claimed ε=1 per record; notion mp-crdp scales the release noise to a sensitivity factor", ""},
		{"correlated", []string{"--notion", "correlated"}, privacy.NotStandardDP, "NOT STANDARD DP: claimed ε=1 per record; notion correlated", ""},
		{"group measured", []string{"--notion", "group"}, privacy.NotStandardDP, "NOT STANDARD DP: claimed ε=1 per record; notion group", "k = the measured ΔGS"},
		{"group declared", []string{"--notion", "group", "--group-size", "3"}, privacy.Holds, "holds: ε=1 per record",
			"k = the declared bound 3, the record-level feature selection (ε − ε2/2 = 0.75) costs k·0.75 by group privacy, so the group is protected at k·0.75 + 0.25 = 2.5 in total"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".csv")
			p := publishRun(t, out, append(append(base, tc.args...), "--out", out)...)
			r := p.report
			if p.raw["guarantee_status"] != string(tc.status) {
				t.Errorf("guarantee_status %v, want %q", p.raw["guarantee_status"], tc.status)
			}
			if h := p.headline(t); !strings.HasPrefix(h, tc.headline) {
				t.Errorf("headline %q, want it to start with %q", h, tc.headline)
			}
			if tc.args == nil && r.Parameters["notion"] != "standard" {
				t.Errorf("default notion %q", r.Parameters["notion"])
			}
			notCovered := strings.Join(r.NotCovered, "\n")
			if !strings.Contains(notCovered, "MCD = ") || !strings.Contains(notCovered, "broadcast by the server to every party") {
				t.Errorf("MCD is not listed as not covered: %v", r.NotCovered)
			}
			all := strings.Join(append(r.Covered, r.NotCovered...), "\n")
			if tc.group != "" && (!strings.Contains(all, "group-level total including feature selection") || !strings.Contains(all, tc.group)) {
				t.Errorf("group notion: no group-level total with %q in\n%s", tc.group, all)
			}
		})
	}
}

// The threat model states what a colluding curator (PPCA-DP-MH secure
// aggregate) or a malicious coordinator (PDP-MVDS sign step) learns.
func TestReportThreatModel(t *testing.T) {
	dir := t.TempDir()
	schema, a, b := csvOwners(t)
	vschema, va, vb := verticalOwners(t)
	ppca := []string{"publish", "ppca-dp-mh", "--input", a, "--input", b, "--schema", schema, "--noise", "secure-aggregate"}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"ppca-dp-mh gaussian shares", append(ppca, "--mechanism", "gaussian", "--delta", "1e-6"),
			[]string{"colludes with the other m−1 = 1 owners", "N(0, σ²/2) per entry, i.e. ρ·m-zCDP", "for that owner's statistics", "instead of its budget (ε=1, δ=1e-06)"}},
		{"ppca-dp-mh laplace shares", ppca,
			[]string{"colludes with the other m−1 = 1 owners", "Pólya NB(1/2, e^{−1/t}) draws", "that owner's statistics then keep only ε ≤ ", "a vacuous guarantee"}},
		{"pdp-mvds sign step", []string{"publish", "pdp-mvds", "--input", va, "--input", vb, "--schema", vschema, "--budgets", "1,1", "--rounds", "3"},
			[]string{"a MALICIOUS coordinator is not covered", "reference one-way counts", "sign step (Algorithm 1, step 5)", "exact joint counts"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".csv")
			p := publishRun(t, out, append(tc.args, "--out", out)...)
			threats := strings.Join(p.report.ThreatModel, "\n")
			for _, want := range tc.want {
				if !strings.Contains(threats, want) {
					t.Errorf("threat_model lacks %q:\n%s", want, threats)
				}
				if !strings.Contains(p.stdout, want) {
					t.Errorf("terminal report lacks %q", want)
				}
			}
		})
	}
}

// Every report records the version, the publication time, the run's
// parameters and the SHA-256 of every output file, but not its own.
func TestReportRecordsTheRun(t *testing.T) {
	dir := t.TempDir()
	schema, a, b := csvOwners(t)
	vschema, va, vb := verticalOwners(t)
	for _, tc := range []struct {
		name    string
		args    []string
		param   [2]string // one parameter and its value
		outputs []string  // suffixes of the output files after --out
	}{
		{"ppca-dp-mh", []string{"publish", "ppca-dp-mh", "--input", a, "--input", b, "--schema", schema, "--epsilon", "2", "--seed", "1"},
			[2]string{"epsilon", "2"}, []string{""}},
		{"mp-crdp model", []string{"publish", "mp-crdp", "--dataset", "wdbc", "--utility", "u1", "--seed", "1"},
			[2]string{"release", "logreg"}, []string{""}},
		{"mul-lda-dp", []string{"publish", "mul-lda-dp", "--dataset", "nltcs", "--label", "money", "--seed", "1"},
			[2]string{"label", "money"}, []string{"", ".model.json"}},
		{"pdp-mvds", []string{"publish", "pdp-mvds", "--input", va, "--input", vb, "--schema", vschema, "--budgets", "1,1", "--rounds", "3", "--seed", "1"},
			[2]string{"budgets", "[1.000000,1.000000]"}, []string{"", ".protocol.json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".out")
			start := time.Now().Add(-time.Second)
			p := publishRun(t, out, append(tc.args, "--out", out)...)
			r := p.report
			if r.Version == "" || r.Version != version.String() || p.raw["dppub_version"] != r.Version {
				t.Errorf("dppub_version %v, want %q", p.raw["dppub_version"], version.String())
			}
			created, err := time.Parse(time.RFC3339, r.Created)
			if err != nil || !strings.HasSuffix(r.Created, "Z") || created.Before(start.Truncate(time.Second)) || created.After(time.Now()) {
				t.Errorf("created %q (%v) is not this run's time in UTC", r.Created, err)
			}
			if got := r.Parameters[tc.param[0]]; got != tc.param[1] || r.Parameters["command"] == "" {
				t.Errorf("parameters[%q] = %q, want %q (command %q)", tc.param[0], got, tc.param[1], r.Parameters["command"])
			}
			if len(r.OutputSHA256) != len(tc.outputs) {
				t.Errorf("output_sha256 %v, want %d files", r.OutputSHA256, len(tc.outputs))
			}
			for _, suffix := range tc.outputs {
				digestRecorded(t, r.OutputSHA256, filepath.Base(out+suffix), readFile(t, out+suffix))
			}
			if _, ok := r.OutputSHA256[filepath.Base(out)+".privacy.json"]; ok {
				t.Error("the report lists a digest of itself")
			}
			if !strings.Contains(p.stdout, "  dppub "+r.Version+"\n") {
				t.Error("the terminal report does not name the version")
			}
		})
	}
	t.Run("--version", func(t *testing.T) {
		code, stdout, _ := run(t, "--version")
		if code != 0 || !strings.Contains(stdout, version.String()) {
			t.Fatalf("--version: exit %d, %q", code, stdout)
		}
	})
	// The run is recorded after the outputs are rendered, so that a
	// seeded run's outputs are the same wherever and whenever it runs.
	t.Run("model embeds the report without the run record", func(t *testing.T) {
		b := readFile(t, filepath.Join(dir, "mp-crdp-model.out"))
		var m struct {
			Privacy map[string]any `json:"privacy"`
		}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if m.Privacy["dppub_version"] != version.String() || m.Privacy["created"] != nil || m.Privacy["parameters"] != nil || m.Privacy["output_sha256"] != nil {
			t.Errorf("embedded report: version %v, created %v, parameters %v, digests %v",
				m.Privacy["dppub_version"], m.Privacy["created"], m.Privacy["parameters"] != nil, m.Privacy["output_sha256"])
		}
	})
}
