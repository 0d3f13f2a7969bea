package lda

import (
	"cmp"
	"fmt"
	"math"
	"sync/atomic"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/privacy"
)

// Calibration selects how the noise is scaled (dp's shared vocabulary).
type Calibration = dp.Calibration

const (
	// Sound: one analytic Gaussian mechanism (Balle & Wang 2018) over the
	// class sums, class counts and Σxxᵀ, on their true L2 sensitivities
	// (2, √2 and √2), paying for the publisher's whole view (ViewFactor).
	Sound = dp.CalibrationSound
	// Paper: the paper's σ1 (Theorem 5) on the class sums and σ2
	// (Theorem 6) on the scatter, with ε1 = ε2 = ε/2 and δ1 = δ2 = δ/2, and
	// the class counts released exactly, as in Algorithms 1 and 2.
	Paper = dp.CalibrationPaper
)

// Sensitivities of the released blocks when one record (features and label)
// is replaced, rows in the unit L2 ball.
const (
	// SumsL2 bounds the stacked class sums: ‖x − x'‖ ≤ 2 when the label
	// stays, √(‖x‖² + ‖x'‖²) ≤ √2 when it changes.
	SumsL2 = 2.0
	// CountsL2 bounds the class counts: (−1, +1) when the label changes.
	CountsL2 = math.Sqrt2
	// SecondL2 bounds the upper triangle of Σxxᵀ: it is at most the
	// Frobenius norm of xxᵀ − x'x'ᵀ, whose square is
	// ‖x‖⁴ + ‖x'‖⁴ − 2(x·x')² ≤ 2.
	SecondL2 = math.Sqrt2
)

// PlanOptions configure the noise of one Mul-LDA-DP release (LDA-DP is
// Owners = 1). Epsilon and Delta are each owner's whole budget.
type PlanOptions struct {
	Calibration Calibration
	Epsilon     float64
	Delta       float64
	P           int // encoded dimension
	Classes     int
	Owners      int
	Noise       NoiseMode // default Correlated
	// PublicCounts releases the class counts exactly (sound calibration
	// only; the paper's always does). The guarantee then holds only for
	// replacements that keep the class counts, and the report says so.
	PublicCounts bool
	// SumsShare is the fraction of the sound mechanism's privacy
	// (1/σ_eff² in block-scaled units) given to the class sums; the rest
	// goes to Σxxᵀ. Default 1/2, the paper's even split.
	SumsShare float64
}

// Plan is the calibrated noise: the σ that each owner's message carries on
// each block (own noise plus share), and the charges each owner pays.
type Plan struct {
	Options PlanOptions
	// SumSigma, CountSigma and SecondSigma are per-message noise levels.
	// CountSigma is 0 when the counts are released exactly.
	SumSigma, CountSigma, SecondSigma float64
	// ViewFactor is σ_eff/σ of the publisher's view (1 unless correlated).
	ViewFactor float64
	// SumsCharges are paid before the class sums (and counts) leave an
	// owner, SecondCharges before Σxxᵀ does.
	SumsCharges, SecondCharges []privacy.Charge
}

func (o *PlanOptions) defaults() {
	o.Noise = cmp.Or(o.Noise, Correlated)
	o.SumsShare = cmp.Or(o.SumsShare, 0.5)
	o.Owners = cmp.Or(o.Owners, 1)
}

// Validate checks the options (after defaults).
func (o PlanOptions) Validate() error {
	o.defaults()
	switch {
	case o.Calibration != Sound && o.Calibration != Paper:
		_, err := dp.ParseCalibration(string(o.Calibration))
		return fmt.Errorf("lda: %w", err)
	case o.Noise != Correlated && o.Noise != Independent:
		return fmt.Errorf("lda: unknown noise mode %q (want correlated or independent)", o.Noise)
	case !(o.Epsilon > 0) || math.IsInf(o.Epsilon, 0):
		return fmt.Errorf("lda: epsilon must be positive and finite, got %v", o.Epsilon)
	case !(o.Delta > 0 && o.Delta < 1):
		return fmt.Errorf("lda: delta must be in (0, 1), got %v", o.Delta)
	case o.P < 1:
		return fmt.Errorf("lda: dimension p = %d, need at least 1", o.P)
	case o.Classes < 2:
		return fmt.Errorf("lda: %d classes, need at least 2", o.Classes)
	case o.Owners < 1:
		return fmt.Errorf("lda: %d owners, need at least 1", o.Owners)
	case !(o.SumsShare > 0 && o.SumsShare < 1):
		return fmt.Errorf("lda: sums share %v outside (0, 1)", o.SumsShare)
	}
	if o.Calibration == Paper && o.Delta/2 >= math.Sqrt(2/math.Pi) {
		return fmt.Errorf("lda: the paper's σ needs δ/2 < √(2/π), got δ = %v", o.Delta)
	}
	return nil
}

// plansBuilt counts the plans NewPlan calibrated in this process.
var plansBuilt atomic.Int64

// PlansBuilt is how many plans NewPlan has calibrated in this process: a
// run calibrates its plan once and carries it to every role and its
// report (method/method_test.go counts them).
func PlansBuilt() int64 { return plansBuilt.Load() }

// NewPlan validates o and calibrates the noise.
func NewPlan(o PlanOptions) (*Plan, error) {
	plansBuilt.Add(1)
	o.defaults()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	r := 1.0
	if o.Noise == Correlated {
		r = ViewFactor(o.Owners)
	}
	if o.Calibration == Paper {
		return paperPlan(o, r)
	}
	return soundPlan(o, r)
}

// soundPlan: with unit-σ Gaussian s = AnalyticGaussianSigma(1, ε, δ), the
// publisher's view is (ε, δ)-DP when 4/σ_s,eff² + 2/σ_B,eff² ≤ 1/s² (block
// sensitivities SumsL2 and SecondL2; the counts at σ_s add 2/σ_s² only when
// the label changes, and then the sums add only 2/σ_s²). Giving the sums a
// share f: σ_s,eff = 2s/√f, σ_B,eff = √2·s/√(1−f); each message then
// carries σ_eff/r.
func soundPlan(o PlanOptions, r float64) (*Plan, error) {
	s, err := dp.AnalyticGaussianSigma(1, o.Epsilon, o.Delta)
	if err != nil {
		return nil, fmt.Errorf("lda: %w", err)
	}
	f := o.SumsShare
	effSum, effSecond := SumsL2*s/math.Sqrt(f), SecondL2*s/math.Sqrt(1-f)
	pl := &Plan{Options: o, SumSigma: effSum / r, SecondSigma: effSecond / r, ViewFactor: r}
	if !o.PublicCounts {
		pl.CountSigma = pl.SumSigma
	}
	what := "class sums, class counts and the upper triangle of Σxxᵀ"
	if o.PublicCounts {
		what = "class sums and the upper triangle of Σxxᵀ (class counts public)"
	}
	note := fmt.Sprintf("one Gaussian mechanism over %s: per-message σ = %.4g on the sums%s, %.4g on Σxxᵀ; block L2 sensitivities 2 (sums), √2 (counts), √2 (Σxxᵀ)",
		what, pl.SumSigma, countsNote(pl), pl.SecondSigma)
	if o.Noise == Correlated && o.Owners > 1 {
		note += fmt.Sprintf("; correlated noise: the publisher's view of one owner carries only %.3f·σ (ViewFactor for M = %d), which this σ pays for", r, o.Owners)
	}
	pl.SumsCharges = []privacy.Charge{{
		Purpose:     what + " (LDA-DP statistics)",
		Spec:        dp.Spec{Mechanism: "gaussian-analytic", Norm: "L2 (block-scaled by σ)", Sensitivity: 1, Scale: s, Guarantee: dp.Approx(o.Epsilon, o.Delta)},
		Calibration: string(Sound), Note: note,
	}}
	return pl, nil
}

func countsNote(pl *Plan) string {
	if pl.CountSigma == 0 {
		return ""
	}
	return " and counts"
}

// paperPlan is Algorithm 1 lines 2 and 6 (Algorithm 2 lines 2 and 9): σ1 on
// the class sums at (ε/2, δ/2), σ2 on the scatter at (ε/2, δ/2), counts
// exact. Each charge states, as Actual, the true guarantee of the
// publisher's view at the charged ε on the true sensitivities with the
// counts public.
func paperPlan(o PlanOptions, r float64) (*Plan, error) {
	o.PublicCounts = true // Algorithms 1 and 2 use N^(k) and N_m^(k) exactly
	e, d := o.Epsilon/2, o.Delta/2
	s1, err := PaperSumSigma(o.P, e, d)
	if err != nil {
		return nil, err
	}
	s2, err := PaperScatterSigma(o.P, e, d)
	if err != nil {
		return nil, err
	}
	pl := &Plan{Options: o, SumSigma: s1, SecondSigma: s2, ViewFactor: r}
	charge := func(purpose string, sigma, l2 float64, thm string) privacy.Charge {
		actual := dp.Approx(e, dp.GaussianDelta(r*sigma, l2, e))
		sound, _ := dp.AnalyticGaussianSigma(l2, e, d)
		return privacy.Charge{Purpose: purpose,
			Spec:        dp.Spec{Mechanism: "gaussian (paper " + thm + ")", Norm: "L2", Sensitivity: l2, Scale: sigma, Guarantee: dp.Approx(e, d)},
			Calibration: string(Paper), Actual: &actual,
			Note: fmt.Sprintf("the paper's σ = %.4g is %.3gx the analytic σ = %.4g for the same (ε, δ) and true L2 sensitivity %.3g; the publisher's view carries %.3f·σ; true δ at ε = %.4g: %.3g (class counts public)",
				sigma, sigma/sound, sound, l2, r, e, actual.Delta)}
	}
	pl.SumsCharges = []privacy.Charge{charge("class sums (DP class means)", s1, SumsL2, "Thm 5, σ1")}
	pl.SecondCharges = []privacy.Charge{charge("upper triangle of Σxxᵀ (pooled within-class scatter)", s2, SecondL2, "Thm 6, σ2")}
	return pl, nil
}

// PaperSumSigma is the paper's σ1 (Theorem 5, Eq. 15):
//
//	σ1 = (p^{3/2}·√ln(2/(πδ1²)) + √(p³·ln(2/(πδ1²)) + 2ε1)) / ε1,  0 < δ1 < √(2/π).
func PaperSumSigma(p int, eps1, delta1 float64) (float64, error) {
	l, err := paperLog(p, eps1, delta1)
	if err != nil {
		return 0, err
	}
	a := math.Pow(float64(p), 1.5) * math.Sqrt(l)
	return (a + math.Sqrt(a*a+2*eps1)) / eps1, nil
}

// PaperScatterSigma is the paper's σ2 (Theorem 6, Eq. 19):
//
//	σ2 = ((p+1)·√ln(2/(πδ2²)) + √((p+1)²·ln(2/(πδ2²)) + 4ε2)) / (2ε2).
func PaperScatterSigma(p int, eps2, delta2 float64) (float64, error) {
	l, err := paperLog(p, eps2, delta2)
	if err != nil {
		return 0, err
	}
	b := float64(p+1) * math.Sqrt(l)
	return (b + math.Sqrt(b*b+4*eps2)) / (2 * eps2), nil
}

func paperLog(p int, eps, delta float64) (float64, error) {
	if p < 1 || !(eps > 0) || math.IsInf(eps, 0) || !(delta > 0 && delta < math.Sqrt(2/math.Pi)) {
		return 0, fmt.Errorf("lda: paper σ needs p ≥ 1, ε > 0 and 0 < δ < √(2/π), got p=%d ε=%v δ=%v", p, eps, delta)
	}
	return math.Log(2 / (math.Pi * delta * delta)), nil
}

// AggregateSigma is the noise the publisher's aggregate carries on a block
// whose per-message σ is sigma: σ for correlated noise, √M·σ for
// independent noise.
func (pl *Plan) AggregateSigma(sigma float64) float64 {
	if pl.Options.Noise == Correlated {
		return sigma
	}
	return sigma * math.Sqrt(float64(pl.Options.Owners))
}

// Charges is every charge of the plan, in the order they are paid.
func (pl *Plan) Charges() []privacy.Charge {
	return append(append([]privacy.Charge(nil), pl.SumsCharges...), pl.SecondCharges...)
}

// Claimed is the total charged per owner.
func (pl *Plan) Claimed() dp.Guarantee { return pl.total(false) }

// Actual is the true guarantee per owner against the publisher's view (it
// differs from Claimed only for the paper calibration).
func (pl *Plan) Actual() dp.Guarantee { return pl.total(true) }

func (pl *Plan) total(actual bool) dp.Guarantee {
	g := dp.Zero(dp.ApproxDP)
	for _, c := range pl.Charges() {
		x := c.Spec.Guarantee
		if actual && c.Actual != nil {
			x = *c.Actual
		}
		g, _ = dp.Compose(g, x)
	}
	return g
}

// CollusionEpsilon is the ε at the plan's δ that one owner keeps against
// the publisher colluding with the dealer or with the other M−1 owners
// (CollusionFactor): the per-block σ shrink by that factor.
func (pl *Plan) CollusionEpsilon() float64 {
	o := pl.Options
	f := CollusionFactor(o.Noise, o.Owners)
	// Block-scaled sensitivity of the whole release at the shrunken σ.
	mu2 := SumsL2 * SumsL2 / (f * f * pl.SumSigma * pl.SumSigma)
	mu2 += SecondL2 * SecondL2 / (f * f * pl.SecondSigma * pl.SecondSigma)
	return GaussianEpsilon(1/math.Sqrt(mu2), o.Delta)
}

// GaussianEpsilon is the smallest ε at which Gaussian noise of standard
// deviation s per unit of L2 sensitivity is (ε, δ)-DP (Balle & Wang 2018,
// Thm. 8, inverted by bisection to 1e-9 relative).
func GaussianEpsilon(s, delta float64) float64 {
	if !(s > 0) || !(delta > 0 && delta < 1) {
		panic(fmt.Sprintf("lda: GaussianEpsilon(s=%v, δ=%v)", s, delta))
	}
	if dp.GaussianDelta(s, 1, 0) <= delta {
		return 0
	}
	lo, hi := 0.0, 1.0
	for dp.GaussianDelta(s, 1, hi) > delta {
		lo, hi = hi, 2*hi
	}
	for hi-lo > 1e-9*hi {
		mid := (lo + hi) / 2
		if dp.GaussianDelta(s, 1, mid) > delta {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}
