package privacy

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/internal/testenv"
)

// accountant returns a party's accountant with the charges spent.
func accountant(t *testing.T, party string, budget dp.Guarantee, charges ...Charge) *Accountant {
	t.Helper()
	a, err := NewAccountant(AccountantOptions{Party: party, Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range charges {
		if err := a.Spend(c); err != nil {
			t.Fatal(err)
		}
	}
	return a
}

// reportJSON builds the report and reads its JSON back as a generic map.
func reportJSON(t *testing.T, o ReportOptions) (*Report, map[string]any) {
	t.Helper()
	r, err := NewReport(o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("report does not read back: %v", err)
	}
	if back.Status != r.Status {
		t.Fatalf("status %q read back as %q", r.Status, back.Status)
	}
	return r, m
}

func TestReportStatus(t *testing.T) {
	paper := func() Charge {
		c := charge("second moment", dp.Pure(0.5))
		actual := dp.Pure(13.125)
		c.Calibration, c.Actual = "paper", &actual
		return c
	}
	cheaper := func() Charge { // an actual guarantee better than the claim
		c := charge("sums", dp.Approx(0.5, 1e-6))
		actual := dp.Approx(0.5, 1e-9)
		c.Actual = &actual
		return c
	}
	for _, tc := range []struct {
		name       string
		opts       func(t *testing.T) ReportOptions
		status     Status
		within     bool
		actual     float64 // actual overall ε, 0: no actual field
		headline   []string
		notHeading []string
	}{
		{"holds", func(t *testing.T) ReportOptions {
			return ReportOptions{Method: "m", Composition: Single,
				Accountants: []*Accountant{accountant(t, "owner", dp.Pure(1), charge("mean", dp.Pure(1)))}}
		}, Holds, true, 0, []string{"holds: ε=1 per record"}, []string{"claimed"}},
		{"seeded", func(t *testing.T) ReportOptions {
			return ReportOptions{Method: "m", Composition: Single, Seeded: true,
				Accountants: []*Accountant{accountant(t, "owner", dp.Pure(1), charge("mean", dp.Pure(1)))}}
		}, NoneSeeded, true, 0, []string{"NONE (seeded): claimed ε=1 per record", "seeded and predictable"}, []string{"holds"}},
		{"paper calibration exceeds the claim", func(t *testing.T) ReportOptions {
			return ReportOptions{Method: "m", Composition: ParallelOverOwners, Accountants: []*Accountant{
				accountant(t, "owner-1", dp.Pure(1), charge("mean", dp.Pure(0.5)), paper()),
				accountant(t, "owner-2", dp.Pure(1), charge("mean", dp.Pure(0.5)), paper()),
			}}
		}, ExceedsClaim, false, 13.625, []string{"EXCEEDS THE CLAIM: actually ε=13.62 per record; claimed ε=1 per record"}, []string{"holds"}},
		{"paper calibration and seeded", func(t *testing.T) ReportOptions {
			return ReportOptions{Method: "m", Composition: Single, Seeded: true,
				Accountants: []*Accountant{accountant(t, "owner", dp.Pure(1), charge("mean", dp.Pure(0.5)), paper())}}
		}, NoneSeeded, false, 13.625, []string{"NONE (seeded): claimed ε=1 per record (actually ε=13.62)", "lose more privacy than they are charged"}, nil},
		{"actual better than the claim", func(t *testing.T) ReportOptions {
			return ReportOptions{Method: "m", Composition: Single,
				Accountants: []*Accountant{accountant(t, "owner", dp.Approx(1, 1e-5), cheaper())}}
		}, Holds, true, 0.5, []string{"holds: (ε=0.5, δ=1e-06) per record (actually (ε=0.5, δ=1e-09))"}, nil},
		{"data-dependent notion", func(t *testing.T) ReportOptions {
			return ReportOptions{Method: "m", Composition: Single, NotStandardDP: "noise scaled to a sensitivity computed from the data",
				Accountants: []*Accountant{accountant(t, "owner", dp.Pure(2), charge("release", dp.Pure(2)))}}
		}, NotStandardDP, true, 0, []string{"NOT STANDARD DP: claimed ε=2 per record; noise scaled to a sensitivity computed from the data"}, nil},
		{"output partly without noise", func(t *testing.T) ReportOptions {
			return ReportOptions{Method: "m", Composition: Single, NotDP: "the components are exact",
				Accountants: []*Accountant{accountant(t, "owner", dp.Pure(2), charge("weights", dp.Pure(2)))}}
		}, NotDP, true, 0, []string{"NOT DP (part of the output): claimed ε=2 per record; the components are exact"}, nil},
		{"whole record under personalised budgets", func(t *testing.T) ReportOptions {
			whole := dp.Concentrated(1.05)
			return ReportOptions{Method: "m", Composition: PersonalisedPerParty, WholeRecord: &whole, DeltaForZCDP: 1e-6,
				Accountants: []*Accountant{
					accountant(t, "bank", dp.Concentrated(1), charge("joint", dp.Concentrated(0.05)), charge("own", dp.Concentrated(0.95))),
					accountant(t, "clinic", dp.Concentrated(0.1), charge("joint", dp.Concentrated(0.05)), charge("own", dp.Concentrated(0.05))),
				}}
		}, Holds, true, 0, []string{"holds: ρ=1.05 (zCDP) per whole record ≈ (ε=", "per party (its own columns): bank ρ=1 (zCDP), clinic ρ=0.1 (zCDP)"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, m := reportJSON(t, tc.opts(t))
			if r.Status != tc.status || m["guarantee_status"] != string(tc.status) {
				t.Errorf("status %q, JSON %v; want %q", r.Status, m["guarantee_status"], tc.status)
			}
			if r.WithinBudget() != tc.within {
				t.Errorf("within budget %v, want %v", r.WithinBudget(), tc.within)
			}
			if _, ok := m["claimed"].(map[string]any); !ok {
				t.Errorf("JSON has no claimed guarantee: %v", m["claimed"])
			}
			actual, ok := m["actual"].(map[string]any)
			if ok != (tc.actual > 0) || ok && actual["epsilon"] != tc.actual {
				t.Errorf("JSON actual %v, want ε=%v", m["actual"], tc.actual)
			}
			if r.Status != Holds && len(r.StatusReasons) == 0 {
				t.Error("a status other than holds gives no reason")
			}
			h := r.Headline()
			says(t, "headline", h, tc.headline, tc.notHeading)
			if !strings.Contains(r.Text(), "  guarantee:     "+h+"\n") {
				t.Errorf("text does not lead with the headline:\n%s", r.Text())
			}
		})
	}
}

func TestReportWholeRecordJSON(t *testing.T) {
	whole := dp.Concentrated(1.05)
	_, m := reportJSON(t, ReportOptions{Method: "m", Composition: PersonalisedPerParty, WholeRecord: &whole, DeltaForZCDP: 1e-6,
		Accountants: []*Accountant{accountant(t, "bank", dp.Concentrated(1), charge("own", dp.Concentrated(1)))}})
	w, ok := m["whole_record"].(map[string]any)
	if !ok || w["rho"] != 1.05 || w["notion"] != "zcdp" {
		t.Fatalf("whole_record %v", m["whole_record"])
	}
	if _, ok := m["whole_record_equivalent_approx_dp"].(map[string]any); !ok {
		t.Fatalf("no (ε, δ) equivalent of the whole-record guarantee: %v", m)
	}
}

func TestReportSeededWarnsOnce(t *testing.T) {
	r, err := NewReport(ReportOptions{Method: "m", Composition: Single, Seeded: true,
		Accountants: []*Accountant{accountant(t, "owner", dp.Pure(1))}})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(strings.Join(r.Warnings, "\n"), "SEEDED"); n != 1 {
		t.Fatalf("%d seeded warnings: %v", n, r.Warnings)
	}
}

func TestParseStatus(t *testing.T) {
	testenv.CheckWords(t, ParseStatus, statuses, "fine")
	for _, s := range statuses {
		if s.Phrase() == "" {
			t.Errorf("status %q has no phrase", s)
		}
	}
	t.Run("unknown", func(t *testing.T) {
		var r Report
		if err := json.Unmarshal([]byte(`{"guarantee_status": "fine"}`), &r); err == nil {
			t.Fatal("a report with an unknown status read back")
		}
	})
}

func TestReportRun(t *testing.T) {
	r, err := NewReport(ReportOptions{Method: "m", Composition: Single,
		Accountants: []*Accountant{accountant(t, "owner", dp.Pure(1))}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Version == "" {
		t.Fatal("the report does not record the dppub version")
	}
	params := map[string]string{"epsilon": "1"}
	r.Stamp(time.Date(2025, 3, 4, 5, 6, 7, 0, time.FixedZone("CET", 3600)), params)
	params["epsilon"] = "2"
	r.RecordOutput("/tmp/out/synth.csv", []byte("abc"))
	_, m := roundTrip(t, r)
	for _, tc := range []struct {
		field string
		want  any
	}{
		{"created", "2025-03-04T04:06:07Z"},
		{"dppub_version", r.Version},
		{"parameters", map[string]any{"epsilon": "1"}},
		{"output_sha256", map[string]any{"synth.csv": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"}},
	} {
		t.Run(tc.field, func(t *testing.T) {
			if got, _ := json.Marshal(m[tc.field]); string(got) != string(must(json.Marshal(tc.want))) {
				t.Errorf("%s = %s, want %v", tc.field, got, tc.want)
			}
		})
	}
}

func roundTrip(t *testing.T, r *Report) (*Report, map[string]any) {
	t.Helper()
	b, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	var back Report
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return &back, m
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// The terminal summary keeps the headline, every party's spend, what is
// not covered and the warnings; it lists few releases one by one and
// counts many by kind, once when every party has the same; the fine
// print stays in the file.
func TestSummary(t *testing.T) {
	many := func() []Charge {
		var cs []Charge
		for i := range 12 {
			cs = append(cs, charge(fmt.Sprintf("marginal a%d", i), dp.Pure(0.01)))
		}
		return append(cs, charge("bins of x", dp.Pure(0.01)))
	}
	for _, c := range []struct {
		name      string
		charges   func() []Charge
		want, not []string
	}{
		{"few releases listed", func() []Charge { return []Charge{charge("mean", dp.Pure(0.5))} },
			[]string{"- mean:", "NOT covered by DP", "Threat model", "semi-honest", "WARNINGS", "careful"}, []string{"Assumptions", "releases:"}},
		{"many releases counted", many,
			[]string{"13 releases: 12 marginal, 1 bins", "(the same releases for every party)", "party owner-2"}, []string{"- marginal a3", "Assumptions"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := NewReport(ReportOptions{Method: "m", Composition: ParallelOverOwners,
				Accountants: []*Accountant{accountant(t, "owner-1", dp.Pure(1), c.charges()...), accountant(t, "owner-2", dp.Pure(1), c.charges()...)},
				NotCovered:  []string{"record counts"}, Assumptions: []string{"bounds are public"}, ThreatModel: []string{"semi-honest"},
				Warnings: []string{"careful"}})
			if err != nil {
				t.Fatal(err)
			}
			s := r.Summary()
			says(t, "summary", s, c.want, c.not)
			if !strings.Contains(s, r.Headline()) {
				t.Errorf("summary lacks the headline %q", r.Headline())
			}
		})
	}
}

// says fails t unless text (the report's what) contains every phrase of
// want and none of not.
func says(t *testing.T, what, text string, want, not []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
	for _, w := range not {
		if strings.Contains(text, w) {
			t.Errorf("%s says %q:\n%s", what, w, text)
		}
	}
}
