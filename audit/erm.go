package audit

import (
	"fmt"

	"github.com/dppub/dppub/learn"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// DPERM audits learn.TrainDPLinear (the learner of MP-CRDP's DP SVM and of
// DPPCA-SVM's sound pipeline) on one feature without bias, so the released
// model is a single weight. variant is "objective" (logistic loss, the
// default), "objective-huber", "output" (huber-hinge loss) or
// "output-logistic". The pair:
// ten records at x = 1, five of each class; D' replaces a positive record
// by a negative one. With the huber-hinge loss every margin stays in the
// loss's linear part (|w| < 1 − h), so the data term's gradient moves by
// exactly 2/n and the minimiser of J by exactly the bound 2/(nλ) of
// Theorem 6: output perturbation is audited at its tightest. With the
// logistic loss the gradient moves by less (|ℓ′| < 1 at the minimiser),
// so output-logistic stays below ε. The
// statistic is the weight; the claim is pure ε-DP (Theorems 6 and 9).
func DPERM(variant string, eps float64) (Mechanism, error) {
	o := learn.DefaultDPERMOptions(eps)
	o.Bias, o.Lambda = false, 1
	switch variant {
	case "", "objective":
	case "objective-huber":
		o.Loss = learn.HuberHinge
	case "output":
		o.Method, o.Loss = learn.OutputPerturbation, learn.HuberHinge
	case "output-logistic":
		o.Method = learn.OutputPerturbation
	default:
		return Mechanism{}, fmt.Errorf("audit: dp-erm variant must be objective, objective-huber, output or output-logistic, got %q", variant)
	}
	if err := o.Validate(); err != nil {
		return Mechanism{}, fmt.Errorf("audit: %w", err)
	}
	const n = 10
	X := mat.NewDense(n, 1, nil)
	y := [2][]int{make([]int, n), make([]int, n)}
	for i := range n {
		X.Set(i, 0, 1)
		if i < n/2 {
			y[D][i], y[DPrime][i] = 1, 1
		}
	}
	y[DPrime][0] = 0
	return Mechanism{
		Name:  fmt.Sprintf("dp-erm %s, %s loss (ε=%g, λ=%g, n=%d)", o.Method, o.Loss, eps, o.Lambda, n),
		Claim: o.Guarantee(),
		Pair:  "10 records at x = 1, five per class; D' turns a positive record negative",
		Dim:   1,
		Release: func(side Side, src *randx.Source, out []float64) error {
			m, err := learn.TrainDPLinear(X, y[side], o, src)
			if err != nil {
				return err
			}
			out[0] = m.W[0]
			return nil
		},
	}, nil
}
