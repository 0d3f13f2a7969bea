package audit

import (
	"math"
)

// The Rényi test of a zCDP claim.
//
// A ρ-zCDP mechanism promises D_α(M(D) ‖ M(D')) ≤ αρ for every order α > 1
// and both orders of the pair (Bun & Steinke 2016, Def. 1.1). Reducing a
// release to the indicator of an event S is post-processing, so the
// Bernoulli laws of that indicator obey the same bounds:
//
//	D_α(Bern(p) ‖ Bern(q)) ≤ αρ,   p = P[M(D) ∈ S],  q = P[M(D') ∈ S].
//
// For p > q the left side grows with p and falls with q (its exponential,
// p^α q^{1−α} + (1−p)^α (1−q)^{1−α}, is convex in p with its minimum at
// p = q; its derivative in q is (1−α)·[(p/q)^α − ((1−p)/(1−q))^α], negative
// for q < p; D_α(q ‖ p) moves the same way), so over the Clopper–Pearson box [p_lo, 1] × [0, p_hi]
// it is smallest at the corner (p_lo, p_hi). Hence, whenever the box
// holds,
//
//	ρ ≥ ρ_lower = sup_{α>1} max(D_α(p_lo ‖ p_hi), D_α(p_hi ‖ p_lo)) / α.
//
// Why a second test: the (ε, δ) bound of Run needs a rare event (δ is
// subtracted from p_lo, and ε is the log of a ratio), so a Gaussian leak of
// a few times the claimed ρ — halved noise, one party dealing the whole
// noise — hides in the tails that affordable runs never reach. The Rényi
// bound is largest for events near the middle of the statistic's law,
// where counts are plentiful: for a Gaussian log-likelihood statistic and
// the median event, halved noise (true ρ four times the claim) shows
// ρ_lower ≈ 2.5× the claim in expectation, so about 1,000 runs per dataset
// catch it (RenyiPower states the exact figure for each audit).

// bernoulliRenyi is D_α(Bern(p) ‖ Bern(q)) for α > 1, +Inf when p > 0 = q
// or p < 1 = q.
func bernoulliRenyi(p, q, alpha float64) float64 {
	if p == q {
		return 0
	}
	term := func(a, b float64) float64 { // a^α b^{1−α}, in logs
		if a == 0 {
			return math.Inf(-1)
		}
		if b == 0 {
			return math.Inf(1)
		}
		return alpha*math.Log(a) + (1-alpha)*math.Log(b)
	}
	t1, t2 := term(p, q), term(1-p, 1-q)
	hi := math.Max(t1, t2)
	if math.IsInf(hi, 1) {
		return math.Inf(1)
	}
	return (hi + math.Log(math.Exp(t1-hi)+math.Exp(t2-hi))) / (alpha - 1)
}

// renyiOrders are the orders α at which RhoLower evaluates the bound: log-
// spaced from 1 + 10⁻⁴ (where D_α/α tends to the KL divergence, the best
// order for near-equal laws) to 10⁴ (far tails). The supremum over this
// grid is itself a valid bound; the grid only costs a little tightness.
var renyiOrders = func() []float64 {
	var a []float64
	for i := range 161 {
		a = append(a, 1+math.Pow(10, -4+float64(i)*8/160))
	}
	return a
}()

// RhoLower is the lower bound on the ρ of a zCDP mechanism implied by one
// event seen kNum times in nNum runs on one dataset and kDen times in nDen
// on the other, with one-sided Clopper–Pearson bounds at level alpha each
// (valid with probability at least 1 − 2·alpha). It is 0 when the event is
// not likelier on the numerator's side beyond the bounds.
func RhoLower(kNum, nNum, kDen, nDen int, alpha float64) float64 {
	return rhoLowerBox(ClopperPearsonLower(kNum, nNum, alpha), ClopperPearsonUpper(kDen, nDen, alpha))
}

// rhoLowerBox is sup_α max(D_α(p ‖ q), D_α(q ‖ p))/α for p = p_lo > q = p_hi.
func rhoLowerBox(pLo, pHi float64) float64 {
	if pLo <= pHi {
		return 0
	}
	best := 0.0
	for _, a := range renyiOrders {
		d := math.Max(bernoulliRenyi(pLo, pHi, a), bernoulliRenyi(pHi, pLo, a))
		best = math.Max(best, d/a)
	}
	return best
}

// bestRenyiEvent searches the threshold events of the numerator's sample
// (a, c: sortedSides) for the largest ρ_lower on the search batch. The
// Rényi bound favours the bulk of the law, so candidates are evenly
// spaced order statistics (grid of them) plus the geometric tail grid of
// bestEvent, which a gross leak (an unnoised statistic) makes best.
func bestRenyiEvent(a, c []float64, num Side, alpha float64, grid int) Event {
	n := len(a)
	ks := geometricCounts(n, grid)
	for i := 1; i <= grid; i++ {
		ks = append(ks, max(1, min(n, i*n/(grid+1))))
	}
	return searchEvent(a, c, Event{Numerator: num, Above: true, Threshold: a[n/2]}, ks,
		func(kNum, kDen int) float64 { return RhoLower(kNum, n, kDen, len(c), alpha) })
}

// measureRenyi counts ev on a fresh batch and bounds ρ.
func measureRenyi(b *samples, ev Event, alpha float64) Direction {
	d := measure(b, ev, 0, alpha)
	d.EpsilonLower = 0 // an event chosen for ρ says nothing tight about ε
	d.RhoLower = rhoLowerBox(d.PNumLower, d.PDenUpper)
	d.Description += " (Rényi test)"
	return d
}

// RenyiPower is the smallest true ρ of a Gaussian leak — a statistic
// distributed N(0, 1) on one dataset and N(√(2ρ), 1) on the other, the law
// of the log-likelihood ratio of a Gaussian mechanism, scaled — that the
// Rényi test of runs releases per dataset detects against a claim of
// claimedRho, in expectation, at the best threshold. A distinguisher that
// sees only part of a mechanism's releases needs a larger true ρ. +Inf when
// even a perfect distinguisher cannot refute the claim at this size.
func RenyiPower(runs int, confidence, claimedRho float64) float64 {
	alpha := (1 - confidence) / 8
	n := float64(runs)
	bound := func(mu float64) float64 {
		best := 0.0
		for i := 0; i <= 200; i++ {
			t := -3 + (mu+6)*float64(i)/200 // thresholds across both laws
			p := 1 - normalCDF(t-mu)        // P[T ≥ t] on the leaky side
			q := 1 - normalCDF(t)
			kNum, kDen := int(math.Round(p*n)), int(math.Round(q*n))
			best = math.Max(best, RhoLower(kNum, runs, kDen, runs, alpha))
		}
		return best
	}
	if RhoLower(runs, runs, 0, runs, alpha) <= claimedRho {
		return math.Inf(1)
	}
	lo, hi := math.Sqrt(2*claimedRho), math.Sqrt(2*claimedRho)+1
	for bound(hi) <= claimedRho {
		lo, hi = hi, 2*hi
		if hi > 100 {
			return math.Inf(1)
		}
	}
	for hi-lo > 1e-3*hi {
		mid := (lo + hi) / 2
		if bound(mid) > claimedRho {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi * hi / 2
}

func normalCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
