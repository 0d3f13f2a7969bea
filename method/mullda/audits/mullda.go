package audits

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/method/mullda/lda"
	mullda "github.com/dppub/dppub/method/mullda/roles"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// MulLDAOptions configure the audit of the Mul-LDA-DP protocol.
type MulLDAOptions struct {
	// Owners is M; 0 means 3. One owner is LDA-DP.
	Owners      int
	Epsilon     float64
	Delta       float64
	Calibration lda.Calibration // "" means sound
	Noise       lda.NoiseMode   // "" means correlated
}

// mulLDAShape is the audit's small fixed geometry: p = 2, two classes.
const (
	mulLDAP       = 2
	mulLDAClasses = 2
)

// MulLDA audits the publisher's view of a Mul-LDA-DP session run by the
// real roles of method/mullda/roles: the dealer's share ḡ₀ (correlated noise),
// every owner's Sums message (class sums, and counts unless public) and
// every owner's Second message (upper triangle of Σxxᵀ). That is all the
// statistics the publisher ever receives; everything it publishes is
// computed from them. The claim is the plan's total charge per owner.
//
// Pair (owner 1's record, rows in the unit L2 ball, p = 2, u = 1 −
// 2^-10/3): with noised counts (sound), u·e₁ in class 0 becomes u·e₂ in
// class 1, which moves the class sums by √2·u, the counts by √2 and
// Σxxᵀ's upper triangle by √2·u², within 0.07 % of the worst case of the
// sound plan's block-scaled sensitivity. With public counts (paper),
// whose guarantee covers only replacements that keep the label, u·e₁
// becomes u·e₂ in class 0. Owner 1's other records, (0.6, 0.2) in class 1
// and (0.1, 0.2) in class 0, and the others' (0.3, 0.4) put every class
// sum and entry of Σxxᵀ off every power-of-two grid on both sides (the
// counts are integers), and the audit states the exact view (Truth; 0 for
// the dealer's share), so a message whose noise is added to the unrounded
// statistics fails the grey-box audit. The statistic is the exact
// Gaussian log-likelihood ratio of the view, with the correlation of the
// shares (zeroSumCov).
func MulLDA(o MulLDAOptions) (audit.Mechanism, error) {
	o.Owners = cmp.Or(o.Owners, 3)
	o.Calibration = cmp.Or(o.Calibration, lda.Sound)
	o.Noise = cmp.Or(o.Noise, lda.Correlated)
	s, err := newMulLDASession(o)
	if err != nil {
		return audit.Mechanism{}, err
	}
	if err := audit.CheckRelease(s.release, s.dim()); err != nil {
		return audit.Mechanism{}, err
	}
	return audit.Mechanism{
		Name:      fmt.Sprintf("mul-lda-dp publisher's view (%s calibration, %s noise, M=%d, p=%d, ε=%g, δ=%g)", o.Calibration, o.Noise, o.Owners, mulLDAP, o.Epsilon, o.Delta),
		Claim:     s.plan.Claimed(),
		Pair:      s.pairText,
		Dim:       s.dim(),
		Release:   s.release,
		Statistic: s.llr(),
		Truth:     func(side audit.Side) []float64 { return slices.Concat(s.exact[side]...) },
	}, nil
}

type mulLDASession struct {
	params   mullda.Params
	plan     *lda.Plan
	data     [2][]*mat.Dense // by side, by owner
	labels   [2][][]int
	exact    [2][][]float64 // by side, by party: the noise-free view entries
	sigma    []float64      // noise σ of each view entry (per message)
	pairText string
}

func newMulLDASession(o MulLDAOptions) (*mulLDASession, error) {
	owners := make([]string, o.Owners)
	for i := range owners {
		owners[i] = fmt.Sprintf("owner-%d", i+1)
	}
	params := mullda.Params{Session: "audit", Owners: owners, Publisher: "publisher",
		Plan: lda.PlanOptions{Calibration: o.Calibration, Epsilon: o.Epsilon, Delta: o.Delta, P: mulLDAP, Classes: mulLDAClasses, Owners: o.Owners, Noise: o.Noise}}
	if params.NeedsDealer() {
		params.Dealer = "dealer"
	}
	if err := params.Validate(); err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	plan, err := lda.NewPlan(params.Plan)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	s := &mulLDASession{params: params, plan: plan}
	newLabel := 1
	s.pairText = "owner 1's record u·e₁ in class 0 becomes u·e₂ in class 1, u = 1 − 2^-10/3 (class sums move by √2·u, counts by √2, Σxxᵀ by √2·u²); every sum and Σxxᵀ entry off every grid"
	if plan.CountSigma == 0 {
		newLabel = 0
		s.pairText = "owner 1's record u·e₁ becomes u·e₂, u = 1 − 2^-10/3, both in class 0 (counts are public, so only label-keeping replacements are covered); every sum and Σxxᵀ entry off every grid"
	}
	for _, side := range []audit.Side{audit.D, audit.DPrime} {
		for m := range owners {
			X, y := mat.NewDense(1, mulLDAP, []float64{0.3, 0.4}), []int{m % mulLDAClasses}
			if m == 0 {
				X, y = mat.NewDense(3, mulLDAP, []float64{audit.OffGridMove, 0, 0.6, 0.2, 0.1, 0.2}), []int{0, 1, 0}
				if side == audit.DPrime {
					X.SetRow(0, []float64{0, audit.OffGridMove})
					y[0] = newLabel
				}
			}
			st, err := lda.ComputeStats(X, y, mulLDAClasses)
			if err != nil {
				return nil, fmt.Errorf("audit: %w", err)
			}
			s.data[side], s.labels[side] = append(s.data[side], X), append(s.labels[side], y)
			s.exact[side] = append(s.exact[side], s.entries(st.SumsVector(), st.Counts, st.SecondUpper()))
		}
		if params.NeedsDealer() {
			s.exact[side] = append(s.exact[side], make([]float64, len(s.exact[side][0])))
		}
	}
	s.sigma = s.entries(audit.Fill(mulLDAClasses*mulLDAP, plan.SumSigma), audit.Fill(mulLDAClasses, plan.CountSigma), audit.Fill(lda.UpperLen(mulLDAP), plan.SecondSigma))
	return s, nil
}

// entries lays out one party's part of the view: class sums, counts (only
// when noised) and the upper triangle of Σxxᵀ.
func (s *mulLDASession) entries(sums, counts, upper []float64) []float64 {
	out := append([]float64(nil), sums...)
	if s.plan.CountSigma > 0 {
		out = append(out, counts...)
	}
	return append(out, upper...)
}

// shareValues is the publisher's own zero-sum share ḡ₀ in value units:
// each block's grid steps times its grid.
func (s *mulLDASession) shareValues(g0 mullda.Shares) ([]float64, error) {
	blocks := []func() (lda.BlockNoise, error){s.plan.SumsNoise, s.plan.CountsNoise, s.plan.SecondNoise}
	steps := [][]int64{g0.Sums, g0.Counts, g0.Upper}
	values := make([][]float64, len(steps))
	for b, block := range blocks {
		bn, err := block()
		if err != nil {
			return nil, err
		}
		values[b] = make([]float64, len(steps[b]))
		for i, k := range steps[b] {
			values[b][i] = float64(k) * bn.Plan.Grid
		}
	}
	return s.entries(values[0], values[1], values[2]), nil
}

func (s *mulLDASession) parties() int {
	if s.params.NeedsDealer() {
		return len(s.params.Owners) + 1
	}
	return len(s.params.Owners)
}

func (s *mulLDASession) dim() int { return s.parties() * len(s.sigma) }

// release runs the dealer and every owner up to their last statistics
// message and writes the publisher's view: owner by owner, then ḡ₀.
func (s *mulLDASession) release(side audit.Side, src *randx.Source, out []float64) error {
	e := len(s.sigma)
	var shares []protocol.Envelope
	if s.params.NeedsDealer() {
		dealer, err := mullda.NewNoiseDealer(mullda.DealerOptions{Params: s.params, Source: src})
		if err != nil {
			return err
		}
		if shares, err = dealer.Start(); err != nil {
			return err
		}
		var g0 mullda.Shares
		if err := g0.UnmarshalBinary(shares[0].Payload); err != nil {
			return err
		}
		values, err := s.shareValues(g0)
		if err != nil {
			return err
		}
		copy(out[len(s.params.Owners)*e:], values)
	}
	means, err := protocol.Seal(s.params.Session, s.params.Publisher, "", mullda.Means{Classes: mulLDAClasses, P: mulLDAP,
		Means: make([]float64, mulLDAClasses*mulLDAP), Counts: make([]float64, mulLDAClasses)})
	if err != nil {
		return err
	}
	for m, id := range s.params.Owners {
		part, err := s.runOwner(m, id, side, src, shares, means)
		if err != nil {
			return err
		}
		copy(out[m*e:(m+1)*e], part)
	}
	return nil
}

// runOwner drives one owner through rounds 1–4 and returns its part of the
// view.
func (s *mulLDASession) runOwner(m int, id string, side audit.Side, src *randx.Source, shares []protocol.Envelope, means protocol.Envelope) ([]float64, error) {
	acct, err := privacy.NewAccountant(privacy.AccountantOptions{Party: id, Budget: s.plan.Claimed()})
	if err != nil {
		return nil, err
	}
	w, err := mullda.NewOwner(mullda.OwnerOptions{ID: id, Params: s.params, Data: s.data[side][m], Labels: s.labels[side][m], Accountant: acct, Source: src})
	if err != nil {
		return nil, err
	}
	var first []protocol.Envelope
	if shares != nil {
		first, err = w.Handle(shares[m+1])
	} else {
		first, err = w.Start()
	}
	if err != nil {
		return nil, err
	}
	means.To = id
	second, err := w.Handle(means)
	if err != nil {
		return nil, err
	}
	if len(first) != 1 || len(second) != 1 {
		return nil, fmt.Errorf("audit: owner %s sent %d and %d messages, want one Sums and one Second", id, len(first), len(second))
	}
	var sums mullda.Sums
	var sec mullda.Second
	if err := sums.UnmarshalBinary(first[0].Payload); err != nil {
		return nil, err
	}
	if err := sec.UnmarshalBinary(second[0].Payload); err != nil {
		return nil, err
	}
	return s.entries(sums.Sums, sums.Counts, sec.Upper), nil
}

// llr is the exact log-likelihood ratio of the view. Entries are
// independent; across parties entry k has covariance σ_k²·C with C the
// zero-sum covariance (correlated noise with a dealer) or I. Only owner 1's
// values differ, by Δ_k, so LLR = Σ_k (Δ_k/σ_k²) Σ_j (C⁻¹)_{0j} (v_jk − mid_jk).
func (s *mulLDASession) llr() func([]float64) float64 {
	np := s.parties()
	w := make([]float64, np)
	w[0] = 1
	owners := make([]int, np)
	for j := range owners {
		owners[j] = j
	}
	if s.params.NeedsDealer() {
		cov, err := zeroSumCov(len(s.params.Owners), ViewPublisher)
		if err != nil {
			panic(err)
		}
		if w, err = firstInverseColumn(cov); err != nil {
			panic(err)
		}
	}
	return s.linearLLR(w, owners)
}

// firstInverseColumn is C⁻¹e₀, the weights of the parts of a view whose
// noise has covariance C (up to each entry's σ²) when only part 0 moves.
func firstInverseColumn(cov mat.Symmetric) ([]float64, error) {
	var chol mat.Cholesky
	if !chol.Factorize(cov) {
		return nil, fmt.Errorf("audit: the view's noise covariance is not positive definite")
	}
	unit := mat.NewVecDense(cov.SymmetricDim(), nil)
	unit.SetVec(0, 1)
	var x mat.VecDense
	if err := chol.SolveVecTo(&x, unit); err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	return x.RawVector().Data, nil
}

// linearLLR is LLR = Σ_k (Δ_k/σ_k²) Σ_j w_j (v_jk − mid_jk) over a view
// of len(w) parts whose part j < len(owners) holds owner owners[j]'s
// entries (owner 1, which alone moves by Δ, first) with mid the midpoint
// of the exact values on D and D′; later parts (shares, a sum) have mid 0.
func (s *mulLDASession) linearLLR(w []float64, owners []int) func([]float64) float64 {
	e := len(s.sigma)
	coef := make([]float64, e)
	mid := make([]float64, len(w)*e)
	for k := range coef {
		coef[k] = (s.exact[audit.D][0][k] - s.exact[audit.DPrime][0][k]) / (s.sigma[k] * s.sigma[k])
		for j, owner := range owners {
			mid[j*e+k] = (s.exact[audit.D][owner][k] + s.exact[audit.DPrime][owner][k]) / 2
		}
	}
	return func(v []float64) float64 {
		t := 0.0
		for k, c := range coef {
			if c == 0 {
				continue
			}
			inner := 0.0
			for j, wj := range w {
				inner += wj * (v[j*e+k] - mid[j*e+k])
			}
			t += c * inner
		}
		return t
	}
}
