package dp

import (
	"encoding/json"
	"fmt"
	"math"
)

// Notion is a privacy definition.
type Notion int

const (
	// PureDP is ε-differential privacy.
	PureDP Notion = iota + 1
	// ApproxDP is (ε, δ)-differential privacy.
	ApproxDP
	// ZCDP is ρ-zero-concentrated differential privacy (Bun & Steinke 2016).
	ZCDP
)

func (n Notion) String() string {
	switch n {
	case PureDP:
		return "pure-dp"
	case ApproxDP:
		return "approx-dp"
	case ZCDP:
		return "zcdp"
	}
	return fmt.Sprintf("Notion(%d)", int(n))
}

// Guarantee is an amount of privacy loss under one notion.
type Guarantee struct {
	Notion  Notion  `json:"-"`
	Epsilon float64 `json:"epsilon,omitempty"`
	Delta   float64 `json:"delta,omitempty"`
	Rho     float64 `json:"rho,omitempty"`
}

// Pure returns an ε-DP guarantee.
func Pure(eps float64) Guarantee { return Guarantee{Notion: PureDP, Epsilon: eps} }

// Approx returns an (ε, δ)-DP guarantee.
func Approx(eps, delta float64) Guarantee {
	return Guarantee{Notion: ApproxDP, Epsilon: eps, Delta: delta}
}

// Concentrated returns a ρ-zCDP guarantee.
func Concentrated(rho float64) Guarantee { return Guarantee{Notion: ZCDP, Rho: rho} }

// Validate checks that the parameters are finite and in range.
func (g Guarantee) Validate() error {
	switch g.Notion {
	case PureDP:
		return checkEpsilon(g.Epsilon)
	case ApproxDP:
		if err := checkEpsilon(g.Epsilon); err != nil {
			return err
		}
		return checkDelta(g.Delta)
	case ZCDP:
		if !(g.Rho > 0) || math.IsInf(g.Rho, 0) {
			return fmt.Errorf("dp: rho must be positive and finite, got %v", g.Rho)
		}
		return nil
	}
	return fmt.Errorf("dp: unknown privacy notion %d", int(g.Notion))
}

func checkEpsilon(eps float64) error {
	if !(eps > 0) || math.IsInf(eps, 0) {
		return fmt.Errorf("dp: epsilon must be positive and finite, got %v", eps)
	}
	return nil
}

func checkDelta(delta float64) error {
	if !(delta >= 0 && delta < 1) {
		return fmt.Errorf("dp: delta must be in [0, 1), got %v", delta)
	}
	return nil
}

// ToZCDP converts to ρ-zCDP: ε-DP gives ε²/2-zCDP. An (ε, δ) guarantee with
// δ > 0 has no zCDP equivalent and is an error.
func (g Guarantee) ToZCDP() (Guarantee, error) {
	switch {
	case g.Notion == ZCDP:
		return g, nil
	case g.Notion == PureDP || (g.Notion == ApproxDP && g.Delta == 0):
		return Concentrated(g.Epsilon * g.Epsilon / 2), nil
	}
	return Guarantee{}, fmt.Errorf("dp: (ε=%v, δ=%v)-DP cannot be expressed as zCDP", g.Epsilon, g.Delta)
}

// ToApprox converts to (ε, δ)-DP at the given δ for zCDP
// (ε = ρ + 2√(ρ ln(1/δ))); pure ε becomes (ε, 0) and approximate guarantees
// are returned unchanged.
func (g Guarantee) ToApprox(delta float64) (Guarantee, error) {
	switch g.Notion {
	case PureDP:
		return Approx(g.Epsilon, 0), nil
	case ApproxDP:
		return g, nil
	case ZCDP:
		if !(delta > 0 && delta < 1) {
			return Guarantee{}, fmt.Errorf("dp: converting zCDP needs delta in (0, 1), got %v", delta)
		}
		return Approx(g.Rho+2*math.Sqrt(g.Rho*math.Log(1/delta)), delta), nil
	}
	return Guarantee{}, fmt.Errorf("dp: unknown privacy notion %d", int(g.Notion))
}

// IsZero reports whether the guarantee spends nothing.
func (g Guarantee) IsZero() bool { return g.Epsilon == 0 && g.Delta == 0 && g.Rho == 0 }

func (g Guarantee) String() string {
	switch g.Notion {
	case PureDP:
		return fmt.Sprintf("ε=%.4g", g.Epsilon)
	case ApproxDP:
		return fmt.Sprintf("(ε=%.4g, δ=%.3g)", g.Epsilon, g.Delta)
	case ZCDP:
		return fmt.Sprintf("ρ=%.4g (zCDP)", g.Rho)
	}
	return "no guarantee"
}

// MarshalJSON writes the notion by name.
func (g Guarantee) MarshalJSON() ([]byte, error) {
	type plain Guarantee
	return json.Marshal(struct {
		Notion string `json:"notion"`
		plain
	}{g.Notion.String(), plain(g)})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (g *Guarantee) UnmarshalJSON(b []byte) error {
	type plain Guarantee
	var v struct {
		Notion string `json:"notion"`
		plain
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("dp: guarantee: %w", err)
	}
	*g = Guarantee(v.plain)
	switch v.Notion {
	case "pure-dp":
		g.Notion = PureDP
	case "approx-dp":
		g.Notion = ApproxDP
	case "zcdp":
		g.Notion = ZCDP
	default:
		return fmt.Errorf("dp: unknown privacy notion %q", v.Notion)
	}
	return nil
}

// Compose adds two guarantees by basic sequential composition, in the
// notion of a. A pure charge composes into an approximate or zCDP budget
// (converted); an approximate charge with δ > 0 cannot join a zCDP budget.
func Compose(a, b Guarantee) (Guarantee, error) {
	switch a.Notion {
	case PureDP:
		if b.Notion != PureDP {
			return Guarantee{}, fmt.Errorf("dp: cannot compose %v into a pure-DP budget", b)
		}
		return Pure(a.Epsilon + b.Epsilon), nil
	case ApproxDP:
		if b.Notion == ZCDP {
			return Guarantee{}, fmt.Errorf("dp: cannot compose %v into an (ε, δ) budget; convert it first", b)
		}
		return Approx(a.Epsilon+b.Epsilon, a.Delta+b.Delta), nil
	case ZCDP:
		z, err := b.ToZCDP()
		if err != nil {
			return Guarantee{}, err
		}
		return Concentrated(a.Rho + z.Rho), nil
	}
	return Guarantee{}, fmt.Errorf("dp: unknown privacy notion %d", int(a.Notion))
}

// Within reports whether g spends no more than budget (same notion after
// Compose's conversions), with a relative tolerance for rounding.
func Within(g, budget Guarantee) bool {
	const tol = 1e-9
	le := func(x, y float64) bool { return x <= y*(1+tol)+1e-15 }
	switch budget.Notion {
	case ZCDP:
		z, err := g.ToZCDP()
		return err == nil && le(z.Rho, budget.Rho)
	case ApproxDP:
		return g.Notion != ZCDP && le(g.Epsilon, budget.Epsilon) && le(g.Delta, budget.Delta)
	case PureDP:
		return g.Notion == PureDP && le(g.Epsilon, budget.Epsilon)
	}
	return false
}

// Zero returns the empty guarantee in notion n.
func Zero(n Notion) Guarantee { return Guarantee{Notion: n} }
