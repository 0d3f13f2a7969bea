package roles

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/dp"
	mpcrdp "github.com/dppub/dppub/method/mpcrdp/crdp"
	"github.com/dppub/dppub/privacy"
)

// chargedStep is a step of the pipeline that may ask the parties to pay,
// with the budget the public configuration gives it.
type chargedStep struct {
	name    string
	epsilon float64
}

// chargedSteps lists, in pipeline order, the steps that may carry charges
// and what each costs, from the session's public configuration alone
// (mpcrdp.Config.Split over the parties): a party computes them itself
// instead of spending whatever a server's request says. A step may be
// skipped (nothing to release, e.g. fewer than two candidates), never
// reordered or repeated. The names are method/mpcrdp/crdp's stage names.
func chargedSteps(p Params) ([]chargedStep, error) {
	c := p.Config
	if err := c.Validate(); err != nil {
		return nil, err
	}
	b := c.Split(len(p.Parties))
	var out []chargedStep
	if c.Calibration == mpcrdp.Sound {
		for _, name := range p.Parties {
			out = append(out, chargedStep{"stability selection of " + name, b.StabilityPerParty})
		}
	}
	out = append(out, chargedStep{"redundancy", b.Pairs}, chargedStep{"candidate selection", b.Selection})
	if c.Release != mpcrdp.NoRelease {
		out = append(out, chargedStep{"release", b.Release})
	}
	return out, nil
}

// checkRequest matches a server's charge request to the next of the
// party's own steps from position next on: the step must be one of them,
// later than every step already paid, and its charges pure ε-DP summing
// to exactly the step's budget (up to rounding). It returns the position
// of the step. A request that does not match is refused before anything
// is spent: without this a server could name any step, repeat one, or
// charge 10⁻⁹ for a release it runs at the full ε, and the party's ledger
// would record what the server said rather than what the release costs.
func checkRequest(steps []chargedStep, next int, m ChargeRequest) (int, error) {
	at := -1
	for j := next; j < len(steps); j++ {
		if steps[j].name == m.Name {
			at = j
			break
		}
	}
	if at < 0 {
		return 0, fmt.Errorf("charge request for step %q, which is not a step of this session still to come", trim(m.Name))
	}
	if len(m.Charges) == 0 {
		return 0, fmt.Errorf("charge request for step %q carries no charge", m.Name)
	}
	total := 0.0
	for _, c := range m.Charges {
		if err := checkCharge(c); err != nil {
			return 0, fmt.Errorf("step %q: %w", m.Name, err)
		}
		total += c.Spec.Guarantee.Epsilon
	}
	if want := steps[at].epsilon; math.Abs(total-want) > 1e-9*want {
		return 0, fmt.Errorf("step %q charges ε = %v in all, but the session's budget split gives it ε = %v", m.Name, total, want)
	}
	return at, nil
}

func checkCharge(c privacy.Charge) error {
	g := c.Spec.Guarantee
	if g.Notion != dp.PureDP {
		return fmt.Errorf("charge %q is %v, not pure ε-DP", trim(c.Purpose), g)
	}
	if c.Actual != nil && (c.Actual.Notion != dp.PureDP || !(c.Actual.Epsilon >= g.Epsilon)) {
		return fmt.Errorf("charge %q states an actual guarantee %v below its charge %v", trim(c.Purpose), *c.Actual, g)
	}
	return nil
}

// trim cuts a long name from a peer for an error message.
func trim(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
