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
	return EnumName("Notion", int(n), "", "pure-dp", "approx-dp", "zcdp")
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
		return CheckRho(g.Rho)
	}
	return fmt.Errorf("dp: unknown privacy notion %d", int(g.Notion))
}

func checkEpsilon(eps float64) error { return prefixed(checkPositive("epsilon", eps)) }

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

// ToApprox converts to (ε, δ)-DP at the given δ: for zCDP the smallest ε
// that the conversion of Canonne, Kamath & Steinke (2020, Cor. 13) proves
// (ZCDPEpsilon), never larger than Bun & Steinke's ρ + 2√(ρ ln(1/δ)); pure
// ε becomes (ε, 0) and approximate guarantees are returned unchanged.
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
		return Approx(ZCDPEpsilon(g.Rho, delta), delta), nil
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

// ZCDPEpsilon returns the ε at which ρ-zCDP implies (ε, δ)-DP, by the
// conversion of Canonne, Kamath & Steinke (2020, Corollary 13):
//
//	δ(ε) = inf_{α>1} exp((α−1)(αρ−ε)) / (α−1) · (1 − 1/α)^α,
//
// solved for ε by bisection and rounded up (the returned ε has δ(ε) ≤ δ).
// It is never above Bun & Steinke's ρ + 2√(ρ ln(1/δ)) (Prop. 1.3), which
// bounds the search. ρ > 0 and δ in (0, 1) are the caller's to check.
func ZCDPEpsilon(rho, delta float64) float64 {
	logDelta := math.Log(delta)
	_, hi := bisect(0, rho+2*math.Sqrt(rho*math.Log(1/delta)), 1e-12,
		func(eps float64) bool { return zcdpLogDelta(rho, eps) <= logDelta })
	return hi
}

// bisect narrows [lo, hi] around the point where above, false below it
// and true above it, changes, until hi − lo ≤ tol·hi; the answer lies in
// the returned bracket.
func bisect(lo, hi, tol float64, above func(float64) bool) (float64, float64) {
	for range 200 {
		mid := (lo + hi) / 2
		if above(mid) {
			hi = mid
		} else {
			lo = mid
		}
		if hi-lo <= tol*hi {
			break
		}
	}
	return lo, hi
}

// ZCDPRho returns the largest ρ whose zCDP guarantee implies (ε, δ)-DP
// by the conversion ZCDPEpsilon uses (Canonne, Kamath & Steinke 2020,
// Cor. 13), found by bisection and rounded down, so that
// ZCDPEpsilon(ZCDPRho(ε, δ), δ) ≤ ε: the ρ a zCDP method spends when the
// user gives (ε, δ).
func ZCDPRho(eps, delta float64) (float64, error) {
	if err := checkEpsilon(eps); err != nil {
		return 0, err
	}
	if !(delta > 0 && delta < 1) {
		return 0, fmt.Errorf("dp: delta %v must be in (0, 1)", delta)
	}
	// ρ-zCDP implies (ε, δ) only for ε > ρ, so the answer lies in
	// [0, ε]; ZCDPEpsilon grows with ρ.
	lo, _ := bisect(0, eps, 1e-13, func(rho float64) bool { return ZCDPEpsilon(rho, delta) > eps })
	if !(lo > 0) {
		return 0, fmt.Errorf("dp: no positive rho gives epsilon %v at delta %v", eps, delta)
	}
	return lo, nil
}

// zcdpLogDelta is log δ(ε) of ZCDPEpsilon, minimised over α by golden-
// section search on log(α−1) (the objective is unimodal there).
func zcdpLogDelta(rho, eps float64) float64 {
	f := func(t float64) float64 {
		am1 := math.Exp(t) // α − 1
		a := 1 + am1
		return am1*(a*rho-eps) - math.Log(am1) + a*math.Log1p(-1/a)
	}
	lo, hi := -30.0, 30.0
	const phi = 0.6180339887498949
	x1, x2 := hi-phi*(hi-lo), lo+phi*(hi-lo)
	f1, f2 := f(x1), f(x2)
	for hi-lo > 1e-9 {
		if f1 < f2 {
			hi, x2, f2 = x2, x1, f1
			x1 = hi - phi*(hi-lo)
			f1 = f(x1)
		} else {
			lo, x1, f1 = x1, x2, f2
			x2 = lo + phi*(hi-lo)
			f2 = f(x2)
		}
	}
	return math.Min(f1, f2)
}

// CheckRho reports whether ρ is a usable zCDP budget: positive and finite.
// Every layer that takes a ρ (flags, settings, plans) checks it here.
func CheckRho(rho float64) error { return prefixed(checkPositive("rho", rho)) }
