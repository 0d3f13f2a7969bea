// Package dp holds dppub's differential-privacy vocabulary and mechanisms.
//
// Privacy notions (Guarantee): pure ε-DP, approximate (ε, δ)-DP and ρ-zCDP
// (Bun & Steinke 2016), with the standard conversions:
//
//	ε-DP      ⇒ (ε²/2)-zCDP                          (Bun & Steinke, Prop. 1.4)
//	ρ-zCDP    ⇒ (ρ + 2√(ρ ln(1/δ)), δ)-DP for any δ  (Bun & Steinke, Prop. 1.3)
//
// Mechanisms state their sensitivity and the guarantee they give:
//
//   - Laplace: scale b = Δ₁/ε gives ε-DP for L1 sensitivity Δ₁ (Dwork et al. 2006).
//   - Gaussian, classic: σ = Δ₂·√(2 ln(1.25/δ))/ε gives (ε, δ)-DP for ε < 1
//     (Dwork & Roth 2014, Thm. A.1).
//   - Gaussian, analytic: the smallest σ with Φ(Δ/2σ − εσ/Δ) − e^ε Φ(−Δ/2σ − εσ/Δ) ≤ δ
//     gives (ε, δ)-DP for every ε > 0 (Balle & Wang 2018, Thm. 8).
//   - Gaussian, zCDP: σ = Δ₂/√(2ρ) gives ρ-zCDP (Bun & Steinke, Prop. 1.6).
//   - Exponential: picks i with probability ∝ exp(ε·u_i/(2Δu)), ε-DP
//     (McSherry & Talwar 2007).
//
// Noise is drawn by a Noiser. With a secure randx.Source it uses the samplers
// of Google's differential-privacy library (github.com/google/differential-privacy/go/v3/noise),
// which are built to resist the floating-point attacks on naive Laplace and
// Gaussian samplers (Mironov 2012); with a seeded source (tests,
// reproducible experiments) it uses plain inverse-CDF and Box–Muller-style
// draws from that source.
package dp
