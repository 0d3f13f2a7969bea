package gate

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/dppub/dppub/quality"
)

// MinMembers and MinHoldout are the fewest owner's rows and held-out rows
// a check accepts: a command that sets rows aside for the gate checks
// them before any budget is spent, so that the gate cannot fail for want
// of rows after the release was charged.
const (
	MinMembers = 10
	MinHoldout = 20
)

// Caveat is the sentence every shown gate result carries.
const Caveat = "A pass is not a privacy guarantee (the privacy report is): it says only that these attacks found no membership signal on these rows. A refusal means the table gives its members away to a simple attack, whatever its privacy report says."

// Notice heads the owner's gate file.
const Notice = "FOR THE DATA OWNER ONLY. The release gate reads the private rows; its result is never part of the published privacy report and must not be published."

// Release is the gate's outcome for one synthetic table, as the owner's
// gate file (OUT.gate.json) holds it: one Result per owner whose rows
// were attacked (a run in one process holds every owner's rows and
// checks each owner's on its own, since each owner's rows are the members
// a fellow owner's attack would target).
type Release struct {
	Notice string `json:"notice"`
	Caveat string `json:"caveat"`
	// Holdout says where the non-members came from.
	Holdout string `json:"holdout"`
	// Pooled, when set, says why one check covers several owners' rows
	// (its one OwnerResult names them all): owners of columns hold no
	// whole record each, and the attacks need whole records.
	Pooled string `json:"pooled,omitempty"`
	// SyntheticRows, when set, is how many rows the synthetic table has,
	// and SyntheticChecked how many of them the attacks used: all of
	// them, or a uniform sample when the table was larger than the gate
	// checks whole.
	SyntheticRows    int `json:"synthetic_rows,omitempty"`
	SyntheticChecked int `json:"synthetic_rows_checked,omitempty"`
	// Refused is set when any owner's check refused.
	Refused bool          `json:"refused"`
	Owners  []OwnerResult `json:"owners"`
}

// Sampled says, in a sentence for the owner, that the attacks used a
// sample of the synthetic rows and how large; "" when they used every
// row (or the counts were not recorded).
func (r *Release) Sampled() string {
	if r.SyntheticChecked == 0 || r.SyntheticChecked >= r.SyntheticRows {
		return ""
	}
	return fmt.Sprintf("the attacks used a uniform random sample of %d of the %d synthetic rows", r.SyntheticChecked, r.SyntheticRows)
}

// OwnerResult is one owner's check.
type OwnerResult struct {
	Owner string `json:"owner"`
	Result
}

// NewRelease gathers the owners' results, in the order given.
func NewRelease(holdout string, owners []OwnerResult) *Release {
	r := &Release{Notice: Notice, Caveat: Caveat, Holdout: holdout, Owners: owners}
	for _, o := range owners {
		r.Refused = r.Refused || o.Refused
	}
	return r
}

// Largest returns the owner and the attack with the largest advantage.
func (r *Release) Largest() (owner string, a Attack) {
	a.Advantage = math.Inf(-1)
	for _, o := range r.Owners {
		for _, at := range o.Attacks {
			if at.Advantage > a.Advantage {
				owner, a = o.Owner, at
			}
		}
	}
	return owner, a
}

// JSON is the gate file's content.
func (r *Release) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("gate: %w", err)
	}
	return append(b, '\n'), nil
}

// ParseRelease reads a gate file, refusing one that holds no owner's
// result (a file that is not a gate file at all decodes to nothing).
func ParseRelease(b []byte) (*Release, error) {
	var r Release
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("gate: reading a gate result: %w", err)
	}
	if len(r.Owners) == 0 {
		return nil, fmt.Errorf("gate: not a gate result: it holds no owner's check")
	}
	return &r, nil
}

// Quality is the release's section of the owner's quality report.
func (r *Release) Quality() *quality.Gate {
	q := &quality.Gate{Holdout: r.Holdout, Refused: r.Refused, Caveat: Caveat}
	if r.Pooled != "" {
		q.Holdout += "; " + r.Pooled
	}
	for _, o := range r.Owners {
		g := quality.GateOwner{Owner: o.Owner, Members: o.Members, NonMembers: o.NonMembers,
			MaxAdvantage: o.MaxAdvantage, Confidence: o.Confidence, Refused: o.Refused, Reasons: o.Reasons, Warnings: o.Warnings}
		for _, a := range o.Attacks {
			g.Attacks = append(g.Attacks, quality.GateAttack{Name: a.Name, Advantage: a.Advantage, Lower: a.Lower, Upper: a.Upper, Detail: a.Detail})
		}
		q.Owners = append(q.Owners, g)
	}
	q.Verdict = r.Verdict()
	return q
}

// Verdict says in one line what the gate decided, naming the attack
// with the largest advantage and its interval.
func (r *Release) Verdict() string {
	owner, a := r.Largest()
	who := ""
	if len(r.Owners) > 1 {
		who = owner + ", "
	}
	o := r.Owners[0]
	at := fmt.Sprintf("advantage %.3f (%s%s, %g%% interval %.3f to %.3f)", a.Advantage, who, a.Name, 100*o.Confidence, a.Lower, a.Upper)
	var v string
	if r.Refused {
		var refused []string
		for _, o := range r.Owners {
			if o.Refused {
				refused = append(refused, o.Owner)
			}
		}
		v = fmt.Sprintf("REFUSED for %s: largest %s, above the %.3g accepted", strings.Join(refused, ", "), at, o.MaxAdvantage)
	} else {
		v = fmt.Sprintf("PASS: largest %s, not shown above the %.3g accepted", at, o.MaxAdvantage)
	}
	if s := r.Sampled(); s != "" {
		v += " (" + s + ")"
	}
	return v
}
