// Package dp holds dppub's differential-privacy vocabulary and mechanisms.
//
// Privacy notions (Guarantee): pure ε-DP, approximate (ε, δ)-DP and ρ-zCDP
// (Bun & Steinke 2016), with the standard conversions:
//
//	ε-DP      ⇒ (ε²/2)-zCDP                          (Bun & Steinke, Prop. 1.4)
//	ρ-zCDP    ⇒ (ε, δ)-DP with δ = inf_{α>1} e^{(α−1)(αρ−ε)}(1−1/α)^α/(α−1)
//	            (Canonne, Kamath & Steinke 2020, Cor. 13; tighter than
//	            Bun & Steinke's ε = ρ + 2√(ρ ln(1/δ)), Prop. 1.3)
//
// Mechanisms state their sensitivity and the guarantee they give:
//
//   - Laplace: scale b = Δ₁/ε gives ε-DP for L1 sensitivity Δ₁ (Dwork et al. 2006).
//   - Gaussian, classic: σ = Δ₂·√(2 ln(1.25/δ))/ε gives (ε, δ)-DP for ε < 1
//     (Dwork & Roth 2014, Thm. A.1).
//   - Gaussian, analytic: the smallest σ with Φ(Δ/2σ − εσ/Δ) − e^ε Φ(−Δ/2σ − εσ/Δ) ≤ δ
//     gives (ε, δ)-DP for every ε > 0 (Balle & Wang 2018, Thm. 8).
//   - Gaussian, zCDP: σ = Δ₂/√(2ρ) gives ρ-zCDP (Bun & Steinke, Prop. 1.6).
//   - Selection: permute-and-flip (McKenna & Sheldon 2020) stops at
//     candidate i with probability exp(ε(u_i − u*)/(2Δu)), ε-DP
//     (ε²/2-zCDP); the exponential mechanism (McSherry & Talwar 2007)
//     picks i with probability ∝ exp(ε(u_i − u*)/(2Δu)), ε-DP and
//     ε-bounded-range, hence ε²/8-zCDP (Durfee & Rogers 2019; Cesar &
//     Rogers 2021).
//
// Every noisy value is released on a public power-of-two grid g chosen from
// public parameters: the output is g·(round(x/g) + K) with K an integer
// drawn exactly from discrete Laplace or discrete Gaussian noise (Canonne,
// Kamath & Steinke 2020) using only uniform random integers. The output is
// a function of that integer alone, so the floating-point attack on naive
// samplers (Mironov 2012), which reads the true value's low-order bits from
// the output, has nothing to read. The rounding moves a release by at most
// one grid step per coordinate; the plans add that to the sensitivity, so
// it costs a 2^-20 relative increase in noise and nothing in privacy.
// Protocols whose parties add noise shares to fixed-point statistics get
// integer shares on the same grid (Noiser.Shares). docs/privacy-design.md
// lists every mechanism of dppub with its sampler, grid and sensitivity.
package dp
