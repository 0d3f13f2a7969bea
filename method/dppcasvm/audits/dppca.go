package audits

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/method/dppcasvm/dppca"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// DPPCAOptions configure the audit of the DPPCA noisy second-moment matrix.
type DPPCAOptions struct {
	// Method is dppca-svm (Laplace, default), ag-svm or mod-sulq-svm
	// (Gaussian).
	Method      dppca.Method
	Calibration dppca.Calibration // "" means sound
	// D is the number of columns; 0 means 10.
	D       int
	Epsilon float64
	Delta   float64 // Gaussian methods only
}

// DPPCA audits the release of method/dppcasvm/dppca: A = XᵀX/n (SecondMoment) plus
// the plan's symmetric noise (PlanMatrixNoise, Perturb), read off as the
// upper triangle. Rows lie in the unit L2 ball; the pair has n = 2 rows, a
// fixed one, c·1 with c = 1/(3√d), and the replaced one (u = 1 − 2^-10/3,
// as ScalarPair):
//
//   - Laplace: 0 becomes (u/√d)·1, which moves every upper-triangle entry
//     by u²/(nd), (d+1)u²/(2n) in L1: half the bound (d+1)/n the sound
//     scale uses (that bound adds two rows' worth and is not attained), a
//     quarter of the paper's 2d/n. Both calibrations should PASS with room.
//   - Gaussian: u·e₁ becomes u·e₂, which moves A's upper triangle by
//     u²·√2/n in L2: 0.9993 of the bound √2/n.
//
// The fixed row puts 1/(18d) in every entry of A, so every entry on
// either side and every move is off every power-of-two grid, and the
// audit states the exact A (Truth): noise added to the unrounded A fails
// the grey-box audit (the old pairs, 0 and e₁ against a row with entries
// 1/√d or e₂ beside ½·e_d, left A's entries 0, ⅛ and ½ on the grid).
// The statistic is the log-likelihood ratio over the d(d+1)/2 entries.
func DPPCA(o DPPCAOptions) (audit.Mechanism, error) {
	o.Method = cmp.Or(o.Method, dppca.DPPCASVM)
	o.Calibration = cmp.Or(o.Calibration, dppca.Sound)
	d := cmp.Or(o.D, 10)
	if d < 2 {
		return audit.Mechanism{}, fmt.Errorf("audit: dppca needs d ≥ 2 columns, got %d", d)
	}
	const n = 2
	plan, err := dppca.PlanMatrixNoise(dppca.PlanOptions{Method: o.Method, Calibration: o.Calibration, N: n, D: d, Epsilon: o.Epsilon, Delta: o.Delta})
	if err != nil {
		return audit.Mechanism{}, fmt.Errorf("audit: %w", err)
	}
	x, xp := make([]float64, d), make([]float64, d)
	pair := fmt.Sprintf("n = 2 rows in the unit L2 ball, one fixed at 1/(3√%d)·1; the row 0 becomes (u/√%d)·1, u = 1 − 2^-10/3, moving every entry of A by u²/(nd); every entry and move off every grid", d, d)
	if plan.Mechanism == "gaussian" {
		x[0], xp[1] = audit.OffGridMove, audit.OffGridMove
		pair = fmt.Sprintf("n = 2 rows in the unit L2 ball, one fixed at 1/(3√%d)·1; the row u·e₁ becomes u·e₂, u = 1 − 2^-10/3, moving A's upper triangle by u²·√2/n in L2; every entry and move off every grid", d)
	} else {
		for j := range xp {
			xp[j] = audit.OffGridMove / math.Sqrt(float64(d))
		}
	}
	fixed := make([]float64, d)
	for j := range fixed {
		fixed[j] = 1 / (3 * math.Sqrt(float64(d)))
	}
	data := [2]*mat.Dense{audit.D: mat.NewDense(n, d, append(x, fixed...)), audit.DPrime: mat.NewDense(n, d, append(xp, fixed...))}
	for _, X := range data {
		if err := dppca.CheckRows(X); err != nil {
			return audit.Mechanism{}, fmt.Errorf("audit: %w", err)
		}
	}
	centre := [2][]float64{upper(dppca.SecondMoment(data[audit.D])), upper(dppca.SecondMoment(data[audit.DPrime]))}
	scale := audit.Fill(len(centre[audit.D]), plan.Scale)
	stat := audit.LaplaceLLR(centre[audit.D], centre[audit.DPrime], scale)
	if plan.Mechanism == "gaussian" {
		stat = audit.GaussianLLR(centre[audit.D], centre[audit.DPrime], scale)
	}
	return audit.Mechanism{
		Name:  fmt.Sprintf("dppca noisy second moment (%s, %s calibration, d=%d, ε=%g)", o.Method, o.Calibration, d, o.Epsilon),
		Claim: plan.Charge.Spec.Guarantee,
		Pair:  pair,
		Dim:   len(centre[audit.D]),
		Release: func(side audit.Side, src *randx.Source, out []float64) error {
			a := dppca.SecondMoment(data[side])
			plan.Perturb(a, src)
			copy(out, upper(a))
			return nil
		},
		Statistic: stat,
		Truth:     func(side audit.Side) []float64 { return slices.Clone(centre[side]) },
	}, nil
}

// upper is the upper triangle of s row by row, diagonal included.
func upper(s *mat.SymDense) []float64 {
	p := s.SymmetricDim()
	out := make([]float64, 0, p*(p+1)/2)
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			out = append(out, s.At(i, j))
		}
	}
	return out
}
