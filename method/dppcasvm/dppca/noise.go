package dppca

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// Method names one of the four algorithms.
type Method string

const (
	// DPPCASVM is the paper's Algorithm 1: Laplace noise on A.
	DPPCASVM Method = "dppca-svm"
	// PCADPSVM is the paper's Algorithm 2: exact PCA, noise on w.
	PCADPSVM Method = "pca-dpsvm"
	// AGSVM is Analyze Gauss (Gaussian noise on A) followed by an SVM.
	AGSVM Method = "ag-svm"
	// ModSuLQSVM is MOD-SuLQ (Gaussian noise on A) followed by an SVM.
	ModSuLQSVM Method = "mod-sulq-svm"
)

// Methods lists the four methods in the paper's order.
var Methods = []Method{DPPCASVM, PCADPSVM, AGSVM, ModSuLQSVM}

// ParseMethod checks a method name.
func ParseMethod(s string) (Method, error) {
	return dp.NewWords("method", Methods...).In("dppca").Parse(s)
}

// Gaussian reports whether the method's budget is (ε, δ).
func (m Method) Gaussian() bool { return m == AGSVM || m == ModSuLQSVM }

// Calibration selects how noise is scaled (dp's shared vocabulary).
type Calibration = dp.Calibration

const (
	// Sound uses the true replace-one sensitivities and a DP SVM, so the
	// published model is DP end to end (except pca-dpsvm, whose exact PCA
	// cannot be; see Train).
	Sound = dp.CalibrationSound
	// Paper reproduces the paper's noise scales and its non-private SVM.
	Paper = dp.CalibrationPaper
)

// ParseCalibration checks a calibration name.
func ParseCalibration(s string) (Calibration, error) {
	return dp.NewWords("calibration", Sound, Paper).In("dppca").Parse(s)
}

// UpperTriangleL1 is the L1 sensitivity of the upper triangle (diagonal
// included) of A = XᵀX/n when one row with ‖x‖₂ ≤ 1 is replaced:
//
//	Σ_{i≤j} |x_i x_j − x'_i x'_j| ≤ Σ_{i≤j}|x_i x_j| + Σ_{i≤j}|x'_i x'_j|,
//	Σ_{i≤j}|x_i x_j| = (‖x‖₁² + ‖x‖₂²)/2 ≤ (d‖x‖₂² + ‖x‖₂²)/2 ≤ (d+1)/2,
//
// so (d+1)/n (docs/errata.md#dppca-lemma1-norm). The paper's Lemma 1 states
// 2d/n, using a max-column-sum matrix norm; its value is larger, so its
// scale is valid.
func UpperTriangleL1(n, d int) float64 { return float64(d+1) / float64(n) }

// UpperTriangleL2 is the L2 sensitivity of the upper triangle of A under
// replacement: with D = xxᵀ − x'x'ᵀ, Σ_{i≤j} D_ij² = (‖D‖_F² + Σ D_ii²)/2,
// ‖D‖_F² = ‖x‖⁴ + ‖x'‖⁴ − 2(x·x')² ≤ 2 and Σ D_ii² = Σ (x_i² − x'_i²)² ≤
// ‖x‖⁴ + ‖x'‖⁴ ≤ 2, so √2/n (attained by x = e₁, x' = e₂). Dwork et al.'s
// 1/n is the add/remove-one sensitivity.
func UpperTriangleL2(n int) float64 { return math.Sqrt2 / float64(n) }

// PaperLaplaceScale is Algorithm 1 step 2: Lap(2d/(nε)).
func PaperLaplaceScale(n, d int, eps float64) float64 {
	return 2 * float64(d) / (float64(n) * eps)
}

// PaperAGSigma is the paper's §3.4 Γ = Δf·√(2 ln(1.25/δ))/ε with Dwork et
// al.'s Δf = 1/n for A = XᵀX/n.
func PaperAGSigma(n int, eps, delta float64) float64 {
	return math.Sqrt(2*math.Log(1.25/delta)) / (float64(n) * eps)
}

// ModSuLQBeta is the noise standard deviation of MOD-SuLQ (Chaudhuri,
// Sarwate & Sinha 2013, Algorithm 1):
//
//	β = (d+1)/(nε) · √(2 ln((d²+d)/(2√(2π) δ))) + 1/(n√ε).
func ModSuLQBeta(n, d int, eps, delta float64) float64 {
	nf, df := float64(n), float64(d)
	return (df+1)/(nf*eps)*math.Sqrt(2*math.Log((df*df+df)/(2*math.Sqrt(2*math.Pi)*delta))) + 1/(nf*math.Sqrt(eps))
}

// PaperWeightScale is Algorithm 2 step 5: Lap(2Cnd/ε) on every weight.
// Lemma 2's bound ‖w₁ − w₂‖₁ ≤ 2Cnd needs the dual variables in [0, C]
// (hinge loss) and ‖x‖₁ ≤ d.
func PaperWeightScale(n, d int, c, eps float64) float64 {
	return 2 * c * float64(n) * float64(d) / eps
}

// NoisePlan is the calibrated noise on the upper triangle of A.
type NoisePlan struct {
	// Mechanism is "laplace" or "gaussian".
	Mechanism string
	// Scale is the Laplace b or Gaussian σ of every upper-triangle entry.
	Scale float64
	// Charge is what the release costs.
	Charge privacy.Charge
}

// PlanOptions configure the noise on A for one method.
type PlanOptions struct {
	Method      Method
	Calibration Calibration
	N, D        int
	// Epsilon and Delta are the budget of this release alone.
	Epsilon, Delta float64
}

// PlanMatrixNoise calibrates the noise on A. pca-dpsvm has none (its
// components are exact) and is an error here.
//
//   - dppca-svm sound: Lap((d+1)/(nε)) per upper-triangle entry, ε-DP by
//     the Laplace mechanism with UpperTriangleL1.
//   - dppca-svm paper: Lap(2d/(nε)), charged ε as Theorem 1 claims; it is
//     in fact ε(d+1)/(2d)-DP, a stronger guarantee.
//   - ag-svm sound: Gaussian with σ from the analytic calibration (Balle &
//     Wang 2018) for UpperTriangleL2 at (ε, δ).
//   - ag-svm paper: PaperAGSigma, charged (ε, δ); under replacement its
//     true δ at ε is GaussianDelta(σ, √2/n, ε), reported as Actual.
//   - mod-sulq-svm (both): ModSuLQBeta; the charge (ε, δ) is checked
//     against the analytic bound with UpperTriangleL2. A sound plan whose
//     check fails is an error; a paper plan reports the true δ.
func PlanMatrixNoise(o PlanOptions) (*NoisePlan, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	switch o.Method {
	case DPPCASVM:
		return laplacePlan(o)
	case AGSVM:
		return agPlan(o)
	case ModSuLQSVM:
		return modSuLQPlan(o)
	}
	return nil, fmt.Errorf("dppca: method %q adds no noise to the second-moment matrix", o.Method)
}

func (o PlanOptions) validate() error {
	if _, err := ParseMethod(string(o.Method)); err != nil {
		return err
	}
	if _, err := ParseCalibration(string(o.Calibration)); err != nil {
		return err
	}
	if o.N < 1 || o.D < 1 {
		return fmt.Errorf("dppca: need n ≥ 1 records and d ≥ 1 columns, got n=%d d=%d", o.N, o.D)
	}
	if !(o.Epsilon > 0) || math.IsInf(o.Epsilon, 0) {
		return fmt.Errorf("dppca: epsilon must be positive and finite, got %v", o.Epsilon)
	}
	if o.Method.Gaussian() && !(o.Delta > 0 && o.Delta < 1) {
		return fmt.Errorf("dppca: %s needs delta in (0, 1), got %v", o.Method, o.Delta)
	}
	return nil
}

const matrixPurpose = "noisy second-moment matrix A = XᵀX/n (upper triangle) → principal components"

func laplacePlan(o PlanOptions) (*NoisePlan, error) {
	l1 := UpperTriangleL1(o.N, o.D)
	note := ""
	if o.Calibration == Paper {
		l1 = 2 * float64(o.D) / float64(o.N)
		note = fmt.Sprintf("paper scale 2d/(nε) (Lemma 1's sensitivity 2d/n); the true upper-triangle L1 sensitivity is (d+1)/n, so this release is in fact ε=%.4g-DP",
			o.Epsilon*float64(o.D+1)/(2*float64(o.D)))
	}
	lap, err := dp.NewLaplace(dp.LaplaceOptions{L1Sensitivity: l1, Epsilon: o.Epsilon})
	if err != nil {
		return nil, fmt.Errorf("dppca: %w", err)
	}
	return &NoisePlan{Mechanism: "laplace", Scale: lap.Scale(), Charge: privacy.Charge{
		Purpose: matrixPurpose, Spec: lap.Spec(), Calibration: string(o.Calibration), Note: note}}, nil
}

func agPlan(o PlanOptions) (*NoisePlan, error) {
	l2 := UpperTriangleL2(o.N)
	if o.Calibration == Sound {
		g, err := dp.NewGaussian(dp.GaussianOptions{L2Sensitivity: l2, Epsilon: o.Epsilon, Delta: o.Delta, Calibration: dp.Analytic})
		if err != nil {
			return nil, fmt.Errorf("dppca: %w", err)
		}
		return &NoisePlan{Mechanism: "gaussian", Scale: g.Sigma(), Charge: privacy.Charge{
			Purpose: matrixPurpose, Spec: g.Spec(), Calibration: string(Sound)}}, nil
	}
	sigma := PaperAGSigma(o.N, o.Epsilon, o.Delta)
	c := privacy.Charge{Purpose: matrixPurpose, Calibration: string(Paper),
		Spec: dp.Spec{Mechanism: "gaussian-classic", Norm: "L2", Sensitivity: 1 / float64(o.N), Scale: sigma,
			Guarantee: dp.Approx(o.Epsilon, o.Delta)},
		Note: "paper calibration σ = (1/n)·√(2 ln(1.25/δ))/ε: Dwork et al.'s add/remove sensitivity 1/n; under replacement it is √2/n"}
	if o.Epsilon >= 1 {
		c.Note += ", and the classic formula needs ε < 1"
	}
	markActual(&c, sigma, l2, o)
	return &NoisePlan{Mechanism: "gaussian", Scale: sigma, Charge: c}, nil
}

func modSuLQPlan(o PlanOptions) (*NoisePlan, error) {
	beta := ModSuLQBeta(o.N, o.D, o.Epsilon, o.Delta)
	l2 := UpperTriangleL2(o.N)
	c := privacy.Charge{Purpose: matrixPurpose, Calibration: string(o.Calibration),
		Spec: dp.Spec{Mechanism: "gaussian-mod-sulq", Norm: "L2", Sensitivity: l2, Scale: beta,
			Guarantee: dp.Approx(o.Epsilon, o.Delta)}}
	trueDelta := dp.GaussianDelta(beta, l2, o.Epsilon)
	if trueDelta > o.Delta {
		if o.Calibration == Sound {
			return nil, fmt.Errorf("dppca: MOD-SuLQ noise β=%.4g is only (%v, %.3g)-DP for sensitivity √2/n, above δ=%v", beta, o.Epsilon, trueDelta, o.Delta)
		}
		markActual(&c, beta, l2, o)
	} else {
		c.Note = fmt.Sprintf("MOD-SuLQ's β (Chaudhuri, Sarwate & Sinha 2013); checked by the analytic Gaussian bound with sensitivity √2/n: δ at ε is %.3g ≤ %v", trueDelta, o.Delta)
	}
	return &NoisePlan{Mechanism: "gaussian", Scale: beta, Charge: c}, nil
}

// markActual records the true guarantee of Gaussian noise σ on sensitivity
// l2 when it is weaker than the charged one.
func markActual(c *privacy.Charge, sigma, l2 float64, o PlanOptions) {
	trueDelta := dp.GaussianDelta(sigma, l2, o.Epsilon)
	if trueDelta <= o.Delta {
		return
	}
	actual := dp.Approx(o.Epsilon, math.Min(trueDelta, 1-1e-12))
	c.Actual = &actual
}

// Perturb releases A's upper triangle in place on a public grid, mirrored:
// Laplace of scale Scale for the charge's L1 sensitivity (ε = Δ₁/Scale),
// or Gaussian of σ = Scale for its L2 sensitivity.
func (p *NoisePlan) Perturb(a *mat.SymDense, src *randx.Source) {
	nz := dp.NewNoiser(src)
	sens := p.Charge.Spec.Sensitivity
	if p.Mechanism == "laplace" {
		nz.ReleaseLaplaceSym(a, sens, sens/p.Scale)
		return
	}
	nz.ReleaseGaussianSym(a, sens, p.Scale)
}
