package privacy

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/internal/version"
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
	Party   string       `json:"party"`
	Records int          `json:"records,omitempty"`
	Budget  dp.Guarantee `json:"budget"`
	Spent   dp.Guarantee `json:"spent"`
	// Actual is what the party's releases really cost when some charge's
	// actual guarantee differs from the charged one (a paper
	// calibration); nil when every charge is what it claims.
	Actual *dp.Guarantee `json:"actual_spent,omitempty"`
	// Within compares the actual spend (Actual when set, else Spent) with
	// the budget, so that a release charged below its true cost is not
	// reported within budget.
	Within  bool          `json:"within_budget"`
	AsDP    *dp.Guarantee `json:"equivalent_approx_dp,omitempty"`
	Charges []Charge      `json:"charges"`
}

// Report is the privacy report attached to every published artifact.
type Report struct {
	Method string `json:"method"`
	// Status is the verdict on the guarantee; StatusReasons say why, for
	// every condition that applies (most severe first), including those
	// outranked by Status.
	Status        Status   `json:"guarantee_status"`
	StatusReasons []string `json:"guarantee_status_reasons,omitempty"`
	// Claimed is the nominal guarantee for the privacy unit: what the
	// accountants were charged, composed as Composition says; when the
	// unit is a record under personalised per-party budgets it is
	// WholeRecord, and PartyLevel holds the largest party's spend.
	Claimed dp.Guarantee `json:"claimed"`
	// PartyLevel is, under personalised per-party budgets with the record
	// as the privacy unit, the largest party's spend: the guarantee for a
	// change confined to one party's columns (smaller than Claimed, and
	// covering less). A report whose unit is party-columns claims that
	// figure itself.
	PartyLevel *dp.Guarantee `json:"party_level,omitempty"`
	// Actual is the guarantee the releases really give, composed alike,
	// when some charge's actual guarantee differs from its claim.
	Actual *dp.Guarantee `json:"actual,omitempty"`
	// WholeRecord is, under personalised per-party budgets, the guarantee
	// for a person whose values change in every party's columns: each
	// distinct release counted once. Claimed equals it; PartyLevel (the
	// largest party spend) covers only one party's columns.
	WholeRecord     *dp.Guarantee `json:"whole_record,omitempty"`
	WholeRecordAsDP *dp.Guarantee `json:"whole_record_equivalent_approx_dp,omitempty"`
	Calibration     string        `json:"calibration"`
	Unit            dp.Unit       `json:"privacy_unit"`
	Neighbouring    string        `json:"neighbouring_relation"`
	Neighbours      dp.Neighbours `json:"neighbours,omitempty"`
	Randomness      string        `json:"randomness"`
	Composition     Composition   `json:"composition"`
	Parties         []PartyReport `json:"parties"`
	Assumptions     []string      `json:"assumptions"`
	Covered         []string      `json:"covered_by_dp"`
	NotCovered      []string      `json:"not_covered_by_dp"`
	Warnings        []string      `json:"warnings,omitempty"`
	ThreatModel     []string      `json:"threat_model,omitempty"`
	// Gate, when set, says that the output was published only because
	// the owner's non-private release gate passed, and the weaker
	// guarantee that then holds (ConditionOnGate).
	Gate *GateCondition `json:"release_gate,omitempty"`
	Run
}

// ReportOptions holds what the method knows about its own release.
type ReportOptions struct {
	Method      string
	Calibration string
	// Unit is the privacy unit (default dp.UnitRecord); Neighbouring
	// states it in words (default: the unit's sentence). Neighbours, set
	// by a method that offers the choice, is the relation its releases
	// are calibrated to: the report's `neighbours` and its headline state
	// it, and for a record unit it gives the default Neighbouring.
	Unit         dp.Unit
	Neighbouring string
	Neighbours   dp.Neighbours
	Randomness   string
	Composition  Composition
	Accountants  []*Accountant
	Records      map[string]int // per party, if the counts are part of the report
	DeltaForZCDP float64        // δ at which zCDP spends are also stated as (ε, δ)
	// Seeded says the randomness was seeded (randx.Source.IsSecure()
	// false): the report then states that no guarantee holds.
	Seeded bool
	// NotStandardDP, when set, says why the release has no standard DP
	// guarantee (a sensitivity computed from the private data).
	NotStandardDP string
	// NotDP, when set, says which part of the output is published without
	// DP.
	NotDP string
	// WholeRecord is the guarantee for a change of a whole record under
	// personalised budgets (see Report.WholeRecord).
	WholeRecord *dp.Guarantee
	Assumptions []string
	Covered     []string
	NotCovered  []string
	Warnings    []string
	ThreatModel []string
}

// SeededWarning is the warning of every report whose randomness was seeded.
const SeededWarning = "randomness is SEEDED and predictable: this output is for tests and experiments only and carries no privacy guarantee"

// NewReport builds a report from the parties' accountants.
func NewReport(o ReportOptions) (*Report, error) {
	if len(o.Accountants) == 0 {
		return nil, fmt.Errorf("privacy: report for %q has no accountants", o.Method)
	}
	o.Unit = cmp.Or(o.Unit, dp.UnitRecord)
	if err := o.Neighbours.Check(); err != nil {
		return nil, fmt.Errorf("privacy: report for %q: %w", o.Method, err)
	}
	if o.Neighbouring == "" && o.Neighbours != "" && o.Unit == dp.UnitRecord {
		o.Neighbouring = o.Neighbours.Neighbouring()
	}
	if o.Neighbouring == "" {
		o.Neighbouring = o.Unit.Neighbouring()
	}
	if o.Seeded {
		o.Warnings = append(o.Warnings, SeededWarning)
	}
	r := &Report{
		Method: o.Method, Calibration: o.Calibration, Unit: o.Unit, Neighbouring: o.Neighbouring, Neighbours: o.Neighbours,
		Randomness: o.Randomness, Composition: o.Composition,
		Assumptions: nonNil(o.Assumptions), Covered: nonNil(o.Covered),
		NotCovered: nonNil(o.NotCovered), Warnings: o.Warnings, ThreatModel: o.ThreatModel,
		Run: Run{Version: version.String()},
	}
	if err := r.addParties(o); err != nil {
		return nil, err
	}
	r.addWholeRecord(o)
	r.warnWeakBudget(o.DeltaForZCDP)
	r.judge(o)
	return r, nil
}

// Budgets beyond which a report warns: an ε above LargeEpsilon protects
// little (e^10 ≈ 22 000 as the bound on a likelihood ratio), and a δ
// above dp.MaxDefaultDelta is larger than any δ a run chooses itself.
const LargeEpsilon = 10

// warnWeakBudget warns, in the report and so on the terminal, when the
// claimed guarantee's ε exceeds LargeEpsilon or its δ (or the δ at which
// a zCDP spend is stated) exceeds dp.MaxDefaultDelta: a legal but weak
// budget is stated, never passed over.
func (r *Report) warnWeakBudget(zcdpDelta float64) {
	eps, delta := r.Claimed.Epsilon, r.Claimed.Delta
	if r.Claimed.Notion == dp.ZCDP {
		delta = zcdpDelta
		if a := asApprox(r.Claimed, zcdpDelta); a != nil {
			eps = a.Epsilon
		}
	}
	if eps > LargeEpsilon {
		r.Warnings = append(r.Warnings, fmt.Sprintf("ε = %.4g is above %d: a guarantee this weak protects little (choose a smaller budget unless this is an experiment)", eps, LargeEpsilon))
	}
	if delta > dp.MaxDefaultDelta {
		r.Warnings = append(r.Warnings, fmt.Sprintf("δ = %.3g is above %g: with probability up to δ a record may be exposed outright (choose a smaller --delta, or leave it out for one chosen from the record count)", delta, dp.MaxDefaultDelta))
	}
}

// addParties reports each party and folds their claimed and actual spends
// into the overall ones.
func (r *Report) addParties(o ReportOptions) error {
	notion := o.Accountants[0].Spent().Notion
	r.Claimed = dp.Zero(notion)
	actual, differs := dp.Zero(notion), false
	for _, a := range o.Accountants {
		pr := PartyReport{Party: a.Party(), Records: o.Records[a.Party()], Budget: a.Budget(),
			Spent: a.Spent(), Charges: a.Charges()}
		act, err := actualSpend(pr.Budget, pr.Charges)
		if err != nil {
			return fmt.Errorf("privacy: party %q: %w", pr.Party, err)
		}
		really := pr.Spent
		if act != nil {
			pr.Actual, really, differs = act, *act, true
		}
		pr.Within = dp.Within(really, pr.Budget)
		pr.AsDP = asApprox(pr.Spent, o.DeltaForZCDP)
		r.Parties = append(r.Parties, pr)
		r.Claimed = maxGuarantee(r.Claimed, pr.Spent, o.Composition)
		actual = maxGuarantee(actual, really, o.Composition)
	}
	if differs {
		r.Actual = &actual
	}
	return nil
}

// actualSpend composes the charges' actual guarantees (the charged one
// where a charge states none) into the budget's notion, as the accountant
// composes the charged ones; nil when no charge states an actual guarantee.
func actualSpend(budget dp.Guarantee, charges []Charge) (*dp.Guarantee, error) {
	g, differs := dp.Zero(budget.Notion), false
	for _, c := range charges {
		x := c.Spec.Guarantee
		if c.Actual != nil {
			x, differs = *c.Actual, true
		}
		var err error
		if g, err = dp.Compose(g, x); err != nil {
			return nil, fmt.Errorf("actual guarantee of %q: %w", c.Purpose, err)
		}
	}
	if !differs {
		return nil, nil
	}
	return &g, nil
}

// asApprox states a zCDP guarantee as (ε, δ)-DP at delta; nil for other
// notions or without a δ.
func asApprox(g dp.Guarantee, delta float64) *dp.Guarantee {
	if g.Notion != dp.ZCDP || !(delta > 0) {
		return nil
	}
	a, err := g.ToApprox(delta)
	if err != nil {
		return nil
	}
	return &a
}

func (r *Report) addWholeRecord(o ReportOptions) {
	if o.WholeRecord == nil {
		return
	}
	w := *o.WholeRecord
	r.WholeRecord = &w
	r.WholeRecordAsDP = asApprox(w, o.DeltaForZCDP)
	if r.Unit != dp.UnitRecord {
		return
	}
	// The unit is a record: the claim is the record-level guarantee,
	// never the (smaller) figure of one party's columns.
	party := r.Claimed
	r.PartyLevel = &party
	r.Claimed = w
}

// judge sets the status to the most severe condition that applies and
// lists the reasons of all of them.
func (r *Report) judge(o ReportOptions) {
	reasons := map[Status]string{}
	if o.Seeded {
		reasons[NoneSeeded] = "the randomness is seeded and predictable (--seed): the output carries no privacy guarantee and is for tests and experiments only"
	}
	if o.NotStandardDP != "" {
		reasons[NotStandardDP] = o.NotStandardDP
	}
	if r.Actual != nil && !dp.Within(*r.Actual, r.Claimed) {
		reasons[ExceedsClaim] = "some releases lose more privacy than they are charged (see each charge's actual guarantee)"
	}
	if o.NotDP != "" {
		reasons[NotDP] = o.NotDP
	}
	r.Status = Holds
	for _, s := range statuses {
		why, ok := reasons[s]
		if !ok {
			continue
		}
		if r.Status == Holds {
			r.Status = s
		}
		r.StatusReasons = append(r.StatusReasons, why)
	}
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

// Text renders the report for a terminal. Its first line after the title
// is the Headline.
func (r *Report) Text() string {
	var b strings.Builder
	r.header(&b)
	for _, p := range r.Parties {
		partyText(&b, p)
	}
	section(&b, "Covered by DP", r.Covered)
	section(&b, "NOT covered by DP", r.NotCovered)
	section(&b, "Assumptions", r.Assumptions)
	section(&b, "Threat model", r.ThreatModel)
	section(&b, "WARNINGS", r.Warnings)
	if r.Version != "" {
		fmt.Fprintf(&b, "  dppub %s\n", r.Version)
	}
	return b.String()
}

// header writes the lines Text and Summary both start with.
func (r *Report) header(b *strings.Builder) {
	fmt.Fprintf(b, "Privacy report: %s (calibration: %s)\n", r.Method, r.Calibration)
	fmt.Fprintf(b, "  guarantee:     %s\n", r.Headline())
	fmt.Fprintf(b, "  composition:   %s\n", r.Composition)
	fmt.Fprintf(b, "  privacy unit:  %s: %s\n", r.Unit, r.Neighbouring)
	fmt.Fprintf(b, "  randomness:    %s\n", r.Randomness)
}

// Summary is the report for a terminal: what Text says but for the
// fine print — the headline, each party's spend against its budget, what
// is NOT covered, the threat model and the warnings in full; the
// releases counted by kind when there are more than summaryReleases
// (listed when fewer, once when every party has the same); the covered
// items and the assumptions only in the report file.
func (r *Report) Summary() string {
	var b strings.Builder
	r.header(&b)
	same := len(r.Parties) > 1
	for _, p := range r.Parties[min(1, len(r.Parties)):] {
		same = same && releaseKinds(p.Charges) == releaseKinds(r.Parties[0].Charges)
	}
	for i, p := range r.Parties {
		var line strings.Builder
		partyText(&line, PartyReport{Party: p.Party, Records: p.Records, Spent: p.Spent, Actual: p.Actual, Budget: p.Budget, Within: p.Within, AsDP: p.AsDP})
		b.WriteString(line.String())
		switch {
		case same && i > 0:
		case len(p.Charges) <= summaryReleases:
			for _, c := range p.Charges {
				fmt.Fprintf(&b, "    - %s: %v\n", c.Purpose, c.Spec)
			}
		default:
			fmt.Fprintf(&b, "    %d releases: %s\n", len(p.Charges), releaseKinds(p.Charges))
		}
		if same && i == 0 && len(r.Parties) > 1 {
			fmt.Fprintf(&b, "    (the same releases for every party)\n")
		}
	}
	section(&b, "NOT covered by DP", r.NotCovered)
	section(&b, "Threat model", r.ThreatModel)
	section(&b, "WARNINGS", r.Warnings)
	b.WriteString("  what is covered, the assumptions and every release with its noise: in the report file\n")
	if r.Version != "" {
		fmt.Fprintf(&b, "  dppub %s\n", r.Version)
	}
	return b.String()
}

// summaryReleases is how many releases Summary lists one by one.
const summaryReleases = 8

// releaseKinds counts the charges by the first word of their purpose
// ("bins", "one-way", "marginal", …), in order of first appearance, and
// flags any whose actual guarantee differs from the charged one.
func releaseKinds(cs []Charge) string {
	var order []string
	count := map[string]int{}
	actual := 0
	for _, c := range cs {
		kind, _, _ := strings.Cut(c.Purpose, " ")
		if count[kind] == 0 {
			order = append(order, kind)
		}
		count[kind]++
		if c.Actual != nil && !dp.Within(*c.Actual, c.Spec.Guarantee) {
			actual++
		}
	}
	parts := make([]string, len(order))
	for i, k := range order {
		parts[i] = fmt.Sprintf("%d %s", count[k], k)
	}
	s := strings.Join(parts, ", ")
	if actual > 0 {
		s += fmt.Sprintf(" (%d charged less than they actually spend)", actual)
	}
	return s
}

// Headline states the guarantee in one line, leading with the status:
// what holds (or does not), the claimed and actual figures, the
// whole-record and per-party figures under personalised budgets, and the
// reasons behind a status other than Holds.
func (r *Report) Headline() string {
	var b strings.Builder
	b.WriteString(r.Status.Phrase())
	b.WriteString(": ")
	switch {
	case r.Status == Holds:
		b.WriteString(r.figures(r.Claimed))
	case r.Status == ExceedsClaim && r.Actual != nil:
		fmt.Fprintf(&b, "actually %s; claimed %s", r.figures(*r.Actual), r.figures(r.Claimed))
	default:
		fmt.Fprintf(&b, "claimed %s", r.figures(r.Claimed))
	}
	if r.Actual != nil && r.Status != ExceedsClaim {
		fmt.Fprintf(&b, " (actually %v)", *r.Actual)
	}
	for _, why := range r.StatusReasons {
		b.WriteString("; ")
		b.WriteString(why)
	}
	return b.String()
}

// figures describes g per record, or, under personalised budgets, the
// whole-record guarantee followed by each party's; then the neighbouring
// relation when the report names one.
func (r *Report) figures(g dp.Guarantee) string {
	s := r.guaranteeFigures(g)
	if r.Neighbours != "" {
		s += " (" + r.Neighbours.Describe() + ")"
	}
	return s
}

func (r *Report) guaranteeFigures(g dp.Guarantee) string {
	if r.WholeRecord == nil {
		return fmt.Sprintf("%v per record", g)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%v per whole record", *r.WholeRecord)
	if r.WholeRecordAsDP != nil {
		fmt.Fprintf(&b, " ≈ %v", *r.WholeRecordAsDP)
	}
	b.WriteString(", per party (its own columns):")
	for i, p := range r.Parties {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " %s %v", p.Party, p.Spent)
	}
	return b.String()
}

// partyText is one party's line and its charges.
func partyText(b *strings.Builder, p PartyReport) {
	status := "within budget"
	if !p.Within {
		status = "OVER BUDGET"
	}
	fmt.Fprintf(b, "  party %s", p.Party)
	if p.Records > 0 {
		fmt.Fprintf(b, " (%d records)", p.Records)
	}
	if p.Actual != nil {
		fmt.Fprintf(b, ": charged %v, actually spent %v of %v, %s", p.Spent, *p.Actual, p.Budget, status)
	} else {
		fmt.Fprintf(b, ": spent %v of %v, %s", p.Spent, p.Budget, status)
	}
	if p.AsDP != nil {
		fmt.Fprintf(b, "; as (ε, δ)-DP: %v", *p.AsDP)
	}
	b.WriteString("\n")
	for _, c := range p.Charges {
		fmt.Fprintf(b, "    - %s: %v", c.Purpose, c.Spec)
		switch {
		case c.Actual == nil:
		case dp.Within(*c.Actual, c.Spec.Guarantee):
			// A charge above its true cost (the paper's PPCA mean on
			// one-hot rows): the guarantee is stronger than charged.
			fmt.Fprintf(b, " [actually %v]", *c.Actual)
		default:
			fmt.Fprintf(b, " [actually only %v]", *c.Actual)
		}
		b.WriteString("\n")
	}
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
