package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dppub/dppub/privacy"
)

func TestSynthesizeCSVTwoParties(t *testing.T) {
	dir, schema, in := peopleInput(t, 300)
	out := filepath.Join(dir, "synth.csv")
	stdout, stderr := mustRun(t, "synthesize", "--input", in, "--schema", schema, "--party", "a:age,smoker",
		"--party", "b:region", "--party-budgets", "1,0.1", "--seed", "3", "--out", out)
	if !strings.Contains(stderr, "NO privacy guarantee") {
		t.Errorf("--seed did not warn on stderr")
	}
	if lines := lineCount(t, out); lines != 301 {
		t.Fatalf("synthetic CSV has %d lines, want header + 300 rows", lines)
	}
	rep := readReport(t, out+".privacy.json")
	if len(rep.Parties) != 2 || !rep.WithinBudget() || rep.Parties[1].Budget.Rho != 0.1 || rep.Parties[1].AsDP == nil {
		t.Fatalf("report: %d parties, within %v, %+v", len(rep.Parties), rep.WithinBudget(), rep.Parties)
	}
	if !strings.Contains(stdout, "Privacy report") || !strings.Contains(stdout, "total-variation") {
		t.Errorf("stdout lacks the report or the utility summary:\n%s", stdout)
	}
}

func TestSynthesizeBadInput(t *testing.T) {
	dir, schema, in := peopleInput(t, 50)
	out := filepath.Join(dir, "out.csv")
	cases := []refusal{
		{"rho zero", []string{"--input", in, "--schema", schema, "--rho", "0"}, "--rho must be positive"},
		{"budgets mismatch", []string{"--input", in, "--schema", schema, "--parties", "2", "--party-budgets", "1"}, "1 values for 2 parties"},
		{"too many parties", []string{"--input", in, "--schema", schema, "--parties", "4"}, "--parties must be in 1..3"},
		{"bad party", []string{"--input", in, "--schema", schema, "--party", "nocolon"}, "NAME:ATTR"},
		{"uncovered attribute", []string{"--input", in, "--schema", schema, "--party", "a:age"}, `"smoker" belongs to no party`},
		{"bad score", []string{"--input", in, "--schema", schema, "--score", "mi"}, "--score"},
		{"no schema", []string{"--input", in}, "--schema"},
		{"both sources", []string{"--input", in, "--dataset", "adult"}, "not both"},
		{"epsilon and rho", []string{"--input", in, "--schema", schema, "--epsilon", "1", "--rho", "0.5"}, "--epsilon"},
		{"epsilon and parties", []string{"--input", in, "--schema", schema, "--epsilon", "1", "--parties", "2"}, "--epsilon"},
		{"bad method", []string{"--input", in, "--schema", schema, "--method", "mst"}, "--method"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			refused(t, c.want, []string{out}, append([]string{"synthesize", "--out", out}, c.args...)...)
		})
	}
	refused(t, "--out", nil, "synthesize", "--dataset", "adult")
}

func TestEvalSynthWritesCSVAndPlots(t *testing.T) {
	if testing.Short() {
		t.Skip("a figure run of the engine on Adult (about 6–13 s on 2 cores); runs without -short")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "fig1.csv")
	stdout, _ := mustRun(t, "eval", "pdp-mvds", "--figure", "1", "--reps", "1", "--rhos", "1",
		"--datasets", "adult", "--seed", "1", "--out", out)
	for _, m := range []string{"tvd", "accuracy", "range-error", "seconds"} {
		if _, err := os.Stat(filepath.Join(dir, "fig1-"+m+".png")); err != nil {
			t.Errorf("plot for %s: %v (stdout %q)", m, err, stdout)
		}
	}
	body := readFile(t, out)
	if !strings.Contains(string(body), "pdp-mvds,sound,one owner,1,") {
		t.Errorf("CSV lacks the ρ = 1 rows:\n%s", body)
	}
	refused(t, "--figure must be 1 or 2", nil, "eval", "pdp-mvds", "--figure", "3")
}

// --epsilon/--delta: the owner's budget as (ε, δ); the output states the
// conversion to ρ.
func TestSynthesizeEpsilonDelta(t *testing.T) {
	dir, schema, in := peopleInput(t, 300)
	out := filepath.Join(dir, "synth.csv")
	stdout, _ := mustRun(t, "synthesize", "--input", in, "--schema", schema, "--epsilon", "1", "--delta", "1e-5", "--seed", "3", "--out", out)
	if !strings.Contains(stdout, "(ε, δ) = (1, 1e-05) → ρ = 0.0305") || !strings.Contains(stdout, "Wasserstein-1") {
		t.Errorf("stdout lacks the conversion or the numeric distances:\n%s", stdout)
	}
}

// A schema that names an ID column (WDBC's does) used to make synthesize
// fail after spending its budget: the synthetic rows have no IDs, and the
// writer refused a table whose schema names an ID column it lacks. The
// synthetic table has the real one's attributes and no ID column, the
// release gate attacks it, and compare reads it beside the real file.
// The gate's held-out rows come from the operating system's CSPRNG even
// under --seed, and on 320 members and 80 held-out rows an attack's
// advantage has a wide spread: at the default --max-advantage 0.1 the
// gate refused 2 of 450 runs (measured 2026-11-29), which is the gate
// working, not what this test is about, so it accepts up to 0.99.
func TestSynthesizeIDColumn(t *testing.T) {
	dir := t.TempDir()
	schema := writeFile(t, dir, "s.json", strings.Replace(schemaJSON, `{"attributes"`, `{"id": "pid", "attributes"`, 1))
	var b strings.Builder
	for i, line := range strings.Split(strings.TrimSpace(csvRows(400)), "\n") {
		id := "pid"
		if i > 0 {
			id = "p" + itoa(i)
		}
		b.WriteString(id + "," + line + "\n")
	}
	in := writeFile(t, dir, "in.csv", b.String())
	out := filepath.Join(dir, "synth.csv")
	code, _, stderr := run(t, "synthesize", "--input", in, "--schema", schema, "--epsilon", "1", "--seed", "3", "--gate", "--max-advantage", "0.99", "--quiet", "--out", out)
	if code != 0 {
		t.Fatalf("synthesize exit %d: %s", code, stderr)
	}
	got := readFile(t, out)
	if header, _, _ := strings.Cut(string(got), "\n"); header != "age,smoker,region" {
		t.Errorf("synthetic header %q, want the attributes alone", header)
	}
	written(t, out+".gate.json")
	code, _, stderr = run(t, "compare", in, out, "--schema", schema, "--out", filepath.Join(dir, "q.html"))
	if code != 0 {
		t.Fatalf("compare exit %d: %s", code, stderr)
	}
	// check's exit code is the gate's verdict; an unreadable file is a
	// usage or data error whose message names the file.
	_, _, stderr = run(t, "check", "--real", in, "--holdout", in, "--synthetic", out, "--schema", schema, "--json")
	if strings.Contains(stderr, "synth.csv") {
		t.Errorf("check could not read the synthetic table: %s", stderr)
	}
}

// The built-in WDBC declares an ID column. synthesize on it used to fail
// writing its table, and publish pdp-mvds to exit 1 after writing it (its
// quality summary refused the synthetic rows for lacking the ID); both
// now write WDBC's attributes and no ID, and exit 0.
func TestSynthesizeDatasetWithID(t *testing.T) {
	for name, args := range map[string][]string{
		"synthesize": {"synthesize", "--epsilon", "1"},
		"pdp-mvds":   {"publish", "pdp-mvds", "--parties", "2", "--budgets", "0.1"},
	} {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "wdbc.csv")
			mustRun(t, append(args, "--dataset", "wdbc", "--seed", "3", "--quiet", "--out", out)...)
			got := readFile(t, out)
			if header, _, _ := strings.Cut(string(got), "\n"); !strings.HasPrefix(header, "diagnosis,radius_mean,") {
				t.Errorf("synthetic header %q, want WDBC's attributes and no ID", header)
			}
		})
	}
}

// Under --parties the privacy unit is a record, so the claim must be the
// record-level guarantee (whole_record), not the largest party's spend,
// which covers only that party's columns and stays beside it as
// party_level. On Adult, --parties 3 --rho 1 claimed ρ = 1 before (the
// largest party), while a whole record costs more (ρ = 1.875 on Adult at seed 1).
func TestSynthesizePartiesClaimsWholeRecord(t *testing.T) {
	for _, tc := range []struct {
		name      string
		args      []string
		wantParty float64
		// sumParties bounds whole_record: a record's values change in every
		// party's columns, at most the sum of the parties' budgets (3 for
		// --parties 3 --rho 1; it depends on which marginals span parties,
		// 1.864 before public values got bins of their own, 1.875 after).
		sumParties float64
	}{
		{"parties 3 rho 1", []string{"--parties", "3", "--rho", "1"}, 1, 3},
		{"party budgets", []string{"--parties", "2", "--party-budgets", "1,0.1"}, 1, 1.1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "s.csv")
			args := append([]string{"synthesize", "--dataset", "adult", "--seed", "1", "--out", out, "--json"}, tc.args...)
			stdout, _ := mustRun(t, args...)
			var doc struct {
				Report privacy.Report `json:"privacy_report"`
			}
			if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
				t.Fatalf("--json: %v", err)
			}
			r := doc.Report
			if r.WholeRecord == nil || r.PartyLevel == nil {
				t.Fatalf("whole_record %v, party_level %v: want both", r.WholeRecord, r.PartyLevel)
			}
			if r.Claimed != *r.WholeRecord {
				t.Errorf("claimed %v, want the record-level guarantee whole_record %v", r.Claimed, *r.WholeRecord)
			}
			if math.Abs(r.PartyLevel.Rho-tc.wantParty) > 1e-9 || !(r.Claimed.Rho > r.PartyLevel.Rho) {
				t.Errorf("party_level %v, claimed %v: want the largest party ρ = %v below the claim", *r.PartyLevel, r.Claimed, tc.wantParty)
			}
			if r.Claimed.Rho > tc.sumParties+1e-9 {
				t.Errorf("claimed %v, above the sum of the parties' budgets ρ = %v", r.Claimed, tc.sumParties)
			}
		})
	}
}

// synthesize --dataset adult under the default --method auto runs the
// engine the precise-budget rule chooses and its summary says which and
// why: at ρ = 0.5 the adaptive one (its 3-way TVD measured 2 % better
// there), at ρ = 2 the paper's (measured better on 2-way and 3-way TVD
// and 14× cheaper). The adaptive run takes about 7 CPU-seconds: not in
// -short.
func TestSynthesizeAdultAutoEngine(t *testing.T) {
	for _, c := range []struct {
		rho, report, engine, ran string
		slow                     bool
	}{
		{"0.5", "adaptive marginal synthesis", "adaptive", "rounds after", true},
		{"2", "pdp-mvds marginal synthesis", "paper", "attribute pairs selected", false},
	} {
		t.Run("rho "+c.rho, func(t *testing.T) {
			if c.slow && testing.Short() {
				t.Skip("the adaptive method on Adult takes about 7 CPU-seconds")
			}
			out := filepath.Join(t.TempDir(), "synth.csv")
			stdout, _ := mustRun(t, "synthesize", "--dataset", "adult", "--rho", c.rho, "--seed", "1", "--out", out)
			for _, want := range []string{
				"Privacy report: " + c.report,
				"engine: the method (" + c.engine + ") was chosen by method auto from public facts only: 15 attributes of at most 41 values",
				c.ran,
			} {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
		})
	}
}
