package privacy

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dppub/dppub/dp"
)

// Composition says how the parties' guarantees combine into one for the
// published artifact.
type Composition string

const (
	// Single is one party holding all the data.
	Single Composition = "single party"
	// ParallelOverOwners is parallel composition over horizontally split
	// owners: every record belongs to exactly one owner, so the artifact's
	// guarantee for any record is that of the owner holding it, and the
	// overall guarantee is the maximum over owners.
	ParallelOverOwners Composition = "parallel composition over disjoint owners (each record is held by exactly one owner; overall = max over owners)"
	// PersonalisedPerParty is vertical partitioning with personalised
	// budgets: each party's attributes are protected at that party's own
	// budget; a release touching several parties is charged to each.
	PersonalisedPerParty Composition = "personalised per party (each party's attributes are protected at its own budget; a release spanning parties is charged to each)"
)

// PartyReport is one party's spending.
type PartyReport struct {
	Party   string        `json:"party"`
	Records int           `json:"records,omitempty"`
	Budget  dp.Guarantee  `json:"budget"`
	Spent   dp.Guarantee  `json:"spent"`
	Within  bool          `json:"within_budget"`
	AsDP    *dp.Guarantee `json:"equivalent_approx_dp,omitempty"`
	Charges []Charge      `json:"charges"`
}

// Report is the privacy report attached to every published artifact.
type Report struct {
	Method       string        `json:"method"`
	Calibration  string        `json:"calibration"`
	Neighbouring string        `json:"neighbouring_relation"`
	Randomness   string        `json:"randomness"`
	Composition  Composition   `json:"composition"`
	Overall      dp.Guarantee  `json:"overall_guarantee"`
	Parties      []PartyReport `json:"parties"`
	Assumptions  []string      `json:"assumptions"`
	Covered      []string      `json:"covered_by_dp"`
	NotCovered   []string      `json:"not_covered_by_dp"`
	Warnings     []string      `json:"warnings,omitempty"`
	ThreatModel  []string      `json:"threat_model,omitempty"`
}

// ReportOptions holds what the method knows about its own release.
type ReportOptions struct {
	Method       string
	Calibration  string
	Neighbouring string // default: replace one record
	Randomness   string
	Composition  Composition
	Accountants  []*Accountant
	Records      map[string]int // per party, if the counts are part of the report
	DeltaForZCDP float64        // δ at which zCDP spends are also stated as (ε, δ)
	Assumptions  []string
	Covered      []string
	NotCovered   []string
	Warnings     []string
	ThreatModel  []string
}

// NewReport builds a report from the parties' accountants.
func NewReport(o ReportOptions) (*Report, error) {
	if len(o.Accountants) == 0 {
		return nil, fmt.Errorf("privacy: report for %q has no accountants", o.Method)
	}
	if o.Neighbouring == "" {
		o.Neighbouring = "replace one record (datasets of equal size differing in one row)"
	}
	r := &Report{
		Method: o.Method, Calibration: o.Calibration, Neighbouring: o.Neighbouring,
		Randomness: o.Randomness, Composition: o.Composition,
		Assumptions: nonNil(o.Assumptions), Covered: nonNil(o.Covered),
		NotCovered: nonNil(o.NotCovered), Warnings: o.Warnings, ThreatModel: o.ThreatModel,
	}
	r.Overall = dp.Zero(o.Accountants[0].Spent().Notion)
	for _, a := range o.Accountants {
		pr := PartyReport{Party: a.Party(), Records: o.Records[a.Party()], Budget: a.Budget(),
			Spent: a.Spent(), Charges: a.Charges()}
		pr.Within = dp.Within(pr.Spent, pr.Budget)
		if pr.Spent.Notion == dp.ZCDP && o.DeltaForZCDP > 0 {
			if g, err := pr.Spent.ToApprox(o.DeltaForZCDP); err == nil {
				pr.AsDP = &g
			}
		}
		r.Parties = append(r.Parties, pr)
		r.Overall = maxGuarantee(r.Overall, pr.Spent, o.Composition)
	}
	return r, nil
}

// maxGuarantee folds a party's spend into the overall guarantee: the maximum
// under parallel composition and personalised budgets (each record's or
// attribute's protection is its own party's), the sum otherwise.
func maxGuarantee(acc, g dp.Guarantee, c Composition) dp.Guarantee {
	if c == Single {
		if s, err := dp.Compose(acc, g); err == nil {
			return s
		}
		return acc
	}
	if g.Epsilon > acc.Epsilon {
		acc.Epsilon = g.Epsilon
	}
	if g.Delta > acc.Delta {
		acc.Delta = g.Delta
	}
	if g.Rho > acc.Rho {
		acc.Rho = g.Rho
	}
	acc.Notion = g.Notion
	return acc
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// WithinBudget reports whether every party stayed within its budget.
func (r *Report) WithinBudget() bool {
	for _, p := range r.Parties {
		if !p.Within {
			return false
		}
	}
	return true
}

// JSON returns the report as indented JSON.
func (r *Report) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("privacy: report: %w", err)
	}
	return append(b, '\n'), nil
}

// Text renders the report for a terminal.
func (r *Report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Privacy report: %s (calibration: %s)\n", r.Method, r.Calibration)
	fmt.Fprintf(&b, "  guarantee:     %v per record\n", r.Overall)
	fmt.Fprintf(&b, "  composition:   %s\n", r.Composition)
	fmt.Fprintf(&b, "  neighbouring:  %s\n", r.Neighbouring)
	fmt.Fprintf(&b, "  randomness:    %s\n", r.Randomness)
	for _, p := range r.Parties {
		status := "within budget"
		if !p.Within {
			status = "OVER BUDGET"
		}
		fmt.Fprintf(&b, "  party %s", p.Party)
		if p.Records > 0 {
			fmt.Fprintf(&b, " (%d records)", p.Records)
		}
		fmt.Fprintf(&b, ": spent %v of %v, %s", p.Spent, p.Budget, status)
		if p.AsDP != nil {
			fmt.Fprintf(&b, "; as (ε, δ)-DP: %v", *p.AsDP)
		}
		b.WriteString("\n")
		for _, c := range p.Charges {
			fmt.Fprintf(&b, "    - %s: %v", c.Purpose, c.Spec)
			if c.Actual != nil {
				fmt.Fprintf(&b, " [actually only %v]", *c.Actual)
			}
			b.WriteString("\n")
		}
	}
	section(&b, "Covered by DP", r.Covered)
	section(&b, "NOT covered by DP", r.NotCovered)
	section(&b, "Assumptions", r.Assumptions)
	section(&b, "Threat model", r.ThreatModel)
	section(&b, "WARNINGS", r.Warnings)
	return b.String()
}

func section(b *strings.Builder, title string, items []string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(b, "  %s:\n", title)
	for _, s := range items {
		fmt.Fprintf(b, "    * %s\n", s)
	}
}
