package privacy

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/dp"
)

// GateCondition says that the output was published only because a test
// that is not differentially private passed: the owner's release gate,
// which reads the real rows, held-out rows and the synthetic table. A
// mechanism M that is (ε, δ)-DP, published only when such a test passes,
// is (ε, δ + e^ε·p)-DP where p bounds the probability that the test
// refuses on any dataset: for an event E of published outputs,
// P[M'(D) ∈ E] ≤ P[M(D) ∈ E] ≤ e^ε·P[M(D') ∈ E] + δ ≤
// e^ε·(P[M'(D') ∈ E] + P[refuse | D']) + δ, and P[refuse | D] ≤ p covers
// the event "nothing published". The gate's refusal probability is not
// proven, only measured (RefusalSource says where); the report carries
// the weakened guarantee with that figure.
type GateCondition struct {
	// Test names the test in words.
	Test string `json:"test"`
	// Private is always false: the test's decision has no noise.
	Private bool `json:"private"`
	// Settings are the gate's settings (flag name → value).
	Settings map[string]string `json:"settings"`
	// RefusalBound is the upper bound p on the probability that the gate
	// refuses, used in the bound; 1 when none is known at these settings.
	RefusalBound float64 `json:"refusal_probability_bound"`
	// RefusalSource says where RefusalBound comes from.
	RefusalSource string `json:"refusal_probability_bound_source"`
	// Accounting states the bound in words, with its figures.
	Accounting string `json:"accounting"`
	// WithGate is the (ε, δ + e^ε·p) guarantee that holds for the
	// published output; nil when the report's guarantee has no (ε, δ)
	// statement to weaken.
	WithGate *dp.Guarantee `json:"guarantee_with_gate,omitempty"`
	// Vacuous is set when δ + e^ε·p ≥ 1: the bound guarantees nothing.
	Vacuous bool `json:"vacuous"`
}

// ConditionOnGate records that the output was published only because a
// non-private test passed (g's Test, Settings, RefusalBound and
// RefusalSource), computes the weakened guarantee from the report's (ε, δ)
// statement, and puts it in the headline; a bound that guarantees nothing
// (or none computable) turns a holding status into NotDP.
func (r *Report) ConditionOnGate(g GateCondition) {
	g.Private = false
	g.RefusalBound = math.Min(math.Max(g.RefusalBound, 0), 1)
	base, ok := r.approxGuarantee()
	switch {
	case !ok:
		g.Vacuous = true
		g.Accounting = fmt.Sprintf("publication was conditioned on %s, which is not differentially private; the report's guarantee %v has no (ε, δ) statement to weaken by e^ε·P[refuse], so no guarantee is stated for the published output", g.Test, r.Claimed)
	default:
		w := dp.Approx(base.Epsilon, base.Delta+math.Exp(base.Epsilon)*g.RefusalBound)
		g.Vacuous = !(w.Delta < 1)
		g.WithGate = &w
		g.Accounting = fmt.Sprintf("publication was conditioned on %s, which is not differentially private: by the bound (ε, δ + e^ε·P[refuse]) with P[refuse] ≤ %.3g (%s), the published output is only %v-DP instead of %v",
			g.Test, g.RefusalBound, g.RefusalSource, w, base)
		if g.Vacuous {
			g.Accounting += " (δ ≥ 1: no guarantee)"
		}
	}
	r.Gate = &g
	if g.Vacuous && r.Status == Holds {
		r.Status = NotDP
	}
	r.StatusReasons = append(r.StatusReasons, g.Accounting)
	r.Warnings = append(r.Warnings, "the release gate decided from the real rows, without noise, whether this output was published: "+g.Accounting)
}

// approxGuarantee is the report's record-level guarantee as (ε, δ): the
// actual one when it exceeds the claim, the whole-record one under
// personalised budgets, else the claim, converted at the report's δ for
// zCDP (the parties' stated conversions).
func (r *Report) approxGuarantee() (dp.Guarantee, bool) {
	g := r.Claimed
	if r.Actual != nil && !dp.Within(*r.Actual, r.Claimed) {
		g = *r.Actual
	}
	switch {
	case r.WholeRecord != nil && g == *r.WholeRecord:
		if r.WholeRecordAsDP == nil {
			return dp.Guarantee{}, false
		}
		return *r.WholeRecordAsDP, true
	case g.Notion != dp.ZCDP:
		return g, true
	}
	// zCDP: the largest of the parties' (ε, δ) statements, which compose
	// as the claim does over disjoint owners (one party: its own).
	if len(r.Parties) > 1 && r.Composition != ParallelOverOwners {
		return dp.Guarantee{}, false
	}
	var out dp.Guarantee
	for i, p := range r.Parties {
		if p.AsDP == nil {
			return dp.Guarantee{}, false
		}
		if i == 0 || p.AsDP.Epsilon > out.Epsilon {
			out.Epsilon = p.AsDP.Epsilon
		}
		out.Delta = math.Max(out.Delta, p.AsDP.Delta)
		out.Notion = p.AsDP.Notion
	}
	return out, len(r.Parties) > 0
}
