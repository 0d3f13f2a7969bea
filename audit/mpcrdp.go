package audit

import (
	"fmt"

	"github.com/dppub/dppub/algo/mpcrdp"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// The audits of this file run MP-CRDP's release and selection code
// (algo/mpcrdp) under the standard notion (sensitivity factor 1), the one
// the sound report covers; the correlated notions' data-dependent factors
// are not standard DP and are reported as such.

func init() {
	register(Method{Name: "mp-crdp-queries", Summary: "MP-CRDP count queries (4 queries, ε = 1): sound Laplace(Q/ε) on each answer, or the paper's Laplace(1/ε)",
		Calibrations: []string{string(mpcrdp.Sound), string(mpcrdp.Paper)}, FastRuns: 20_000, LongRuns: 500_000,
		build: func(o MethodOptions) (Mechanism, error) {
			return MPCRDPQueries(mpcrdp.Calibration(o.Calibration), or(o.Epsilon, 1))
		}},
		Case{Method: "mp-crdp-queries", Options: MethodOptions{Calibration: string(mpcrdp.Sound)}, Expect: Pass},
		Case{Method: "mp-crdp-queries", Options: MethodOptions{Calibration: string(mpcrdp.Paper)}, Expect: Violation})
	register(Method{Name: "mp-crdp-fm", Summary: "MP-CRDP's logistic regression by the functional mechanism (one feature, ε = 1)",
		Calibrations: []string{string(mpcrdp.Sound)}, FastRuns: 20_000, LongRuns: 300_000,
		build: func(o MethodOptions) (Mechanism, error) { return MPCRDPFM(or(o.Epsilon, 1)) }},
		Case{Method: "mp-crdp-fm", Expect: Pass})
	register(Method{Name: "mp-crdp-svm", Summary: "MP-CRDP's DP SVM (objective perturbation, Huber hinge, bias; ε = 1)",
		Calibrations: []string{string(mpcrdp.Sound)}, FastRuns: 10_000, LongRuns: 300_000,
		build: func(o MethodOptions) (Mechanism, error) { return MPCRDPSVM(or(o.Epsilon, 1)) }},
		Case{Method: "mp-crdp-svm", Expect: Pass})
	register(Method{Name: "mp-crdp-pearson", Summary: "MP-FS sound redundancy statistics: sums and cross-products of 2 features in [0,1] + Laplace(5/ε) (ε = 1)",
		Calibrations: []string{string(mpcrdp.Sound)}, FastRuns: 20_000, LongRuns: 500_000,
		build: func(o MethodOptions) (Mechanism, error) { return MPCRDPPearson(or(o.Epsilon, 1)) }},
		Case{Method: "mp-crdp-pearson", Expect: Pass})
	register(Method{Name: "mp-crdp-u1", Summary: "MP-OP selection by the exponential mechanism over information-gain utilities (u1, sound Δu = b·3·(log₂n + log₂e)/n; b = 1, ε = 1)",
		Calibrations: []string{string(mpcrdp.Sound)}, FastRuns: 20_000, LongRuns: 500_000,
		build: func(o MethodOptions) (Mechanism, error) { return MPCRDPU1(or(o.Epsilon, 1)) }},
		Case{Method: "mp-crdp-u1", Expect: Pass})
	register(Method{Name: "mp-crdp-entropy", Summary: "MP-FS noisy entropy for the NMI of categorical pairs: Laplace((log₂n + log₂e)/(nε)) (n = 8, ε = 1)",
		Calibrations: []string{string(mpcrdp.Sound)}, FastRuns: 20_000, LongRuns: 500_000,
		build: func(o MethodOptions) (Mechanism, error) { return MPCRDPEntropy(or(o.Epsilon, 1)) }},
		Case{Method: "mp-crdp-entropy", Expect: Pass})
	register(Method{Name: "mp-crdp-stability", Summary: "MP-FS DP stability selection: L1-logistic selection counts over disjoint blocks + Laplace(M/ε) (2 features, 4 runs, ε = 1)",
		Calibrations: []string{string(mpcrdp.Sound)}, FastRuns: 5_000, LongRuns: 100_000,
		build: func(o MethodOptions) (Mechanism, error) { return MPCRDPStability(or(o.Epsilon, 1)) }},
		Case{Method: "mp-crdp-stability", Expect: Pass})
}

// MPCRDPQueries audits MP-CRDP's count queries (mpcrdp.CountQueries with
// the noise scale mpcrdp.QueryScale). Replacing one record changes every
// count by at most 1, so Q answers move by Q in L1: the sound scale Q/ε
// makes them ε-DP (Dwork et al. 2006). The paper's 1/ε per query (Eq. 22)
// covers one query: Q answers compose to Q·ε. The pair makes it tight:
// the four queries {f0 = 0}, {f1 = 0}, {f0 = 0, f1 = 0}, {f0 = 0, f1 = 0,
// f2 = 0} all count record 0 = (0,0,0) on D and none counts its
// replacement (1,1,1) on D'. The statistic is the Laplace LLR. Expect the
// paper's calibration to show about 4ε.
func MPCRDPQueries(c mpcrdp.Calibration, eps float64) (Mechanism, error) {
	if c == "" {
		c = mpcrdp.Sound
	}
	if c != mpcrdp.Sound && c != mpcrdp.Paper {
		return Mechanism{}, fmt.Errorf("audit: mp-crdp-queries calibration must be sound or paper, got %q", c)
	}
	levels := []int{2, 2, 2}
	qs := []mpcrdp.Query{{{Feature: 0}}, {{Feature: 1}}, {{Feature: 0}, {Feature: 1}}, {{Feature: 0}, {Feature: 1}, {Feature: 2}}}
	rows := [2][][]uint32{}
	for side := range 2 {
		rows[side] = [][]uint32{{0, 0, 0}, {0, 1, 1}, {1, 0, 1}, {1, 1, 0}, {0, 0, 1}, {1, 1, 1}}
	}
	rows[DPrime][0] = []uint32{1, 1, 1}
	var exact [2][]float64
	for side := range 2 {
		a, err := mpcrdp.CountQueries(rows[side], levels, qs)
		if err != nil {
			return Mechanism{}, fmt.Errorf("audit: %w", err)
		}
		exact[side] = a
	}
	scale := mpcrdp.QueryScale(c, len(qs), 1, eps)
	scales := make([]float64, len(qs))
	for i := range scales {
		scales[i] = scale
	}
	return Mechanism{
		Name:      fmt.Sprintf("mp-crdp count queries (%s calibration, Q=%d, ε=%g)", c, len(qs), eps),
		Claim:     dp.Pure(eps),
		Pair:      "6 records over three binary features; D' replaces (0,0,0), counted by all four queries, by (1,1,1), counted by none",
		Dim:       len(qs),
		Statistic: LaplaceLLR(exact[D], exact[DPrime], scales),
		Release: func(side Side, src *randx.Source, out []float64) error {
			a, err := mpcrdp.CountQueries(rows[side], levels, qs)
			if err != nil {
				return err
			}
			dp.NewNoiser(src).AddLaplace(a, scale)
			copy(out, a)
			return nil
		},
	}, nil
}

// oneFeature is ten records with one feature in [0, 1] and labels 0/1,
// and D' with record 0 (x = 1, y = 1) replaced by (x = 1, y = 0).
func oneFeature() (*mat.Dense, [2][]int) {
	X := mat.NewDense(10, 1, []float64{1, 0.9, 0.8, 0.7, 0.6, 0.4, 0.3, 0.2, 0.1, 0})
	y := [2][]int{{1, 1, 1, 1, 1, 0, 0, 0, 0, 0}, {0, 1, 1, 1, 1, 0, 0, 0, 0, 0}}
	return X, y
}

// MPCRDPFM audits mpcrdp.FitFM, the functional mechanism (Zhang et al.
// 2012): Laplace noise of scale (s + s²/4)/ε on the degree-2 Taylor
// coefficients (s = ‖x‖₁ bound + 1 for the bias), then convexification and
// minimisation, post-processing. The statistic is the released weight;
// the pair flips the label of the record with the largest feature.
func MPCRDPFM(eps float64) (Mechanism, error) {
	X, y := oneFeature()
	o := mpcrdp.FMOptions{Epsilon: eps, Factor: 1, RowL1: 1, Ridge: 1e-3}
	return Mechanism{
		Name:  fmt.Sprintf("mp-crdp FM logistic regression (one feature, ε=%g)", eps),
		Claim: o.Spec().Guarantee,
		Pair:  "10 records, x from 0 to 1; D' flips the label of the record at x = 1",
		Dim:   1,
		Release: func(side Side, src *randx.Source, out []float64) error {
			m, err := mpcrdp.FitFM(X, y[side], o, src)
			if err != nil {
				return err
			}
			out[0] = m.W[0]
			return nil
		},
	}, nil
}

// MPCRDPSVM audits mpcrdp.TrainSVM at the standard notion's factor 1:
// learn.TrainDPLinear's objective perturbation with the Huber hinge and a
// bias (Chaudhuri et al. 2011, Theorem 9). The statistic is the weight.
func MPCRDPSVM(eps float64) (Mechanism, error) {
	X, y := oneFeature()
	o := mpcrdp.SVMOptions{Epsilon: eps, Factor: 1, Lambda: 0.1, Huber: 0.5}
	return Mechanism{
		Name:  fmt.Sprintf("mp-crdp DP SVM (one feature, ε=%g)", eps),
		Claim: dp.Pure(eps),
		Pair:  "10 records, x from 0 to 1; D' flips the label of the record at x = 1",
		Dim:   1,
		Release: func(side Side, src *randx.Source, out []float64) error {
			m, err := mpcrdp.TrainSVM(X, y[side], o, src)
			if err != nil {
				return err
			}
			out[0] = m.W[0]
			return nil
		},
	}, nil
}

// MPCRDPStability audits MP-FS's DP stability selection: the selection
// counts of mpcrdp.StabilityCounts over disjoint blocks (one record is in
// one run, so each of the M features' counts moves by at most 1) plus
// Laplace(M/ε), the scale the pipeline adds (subsample and aggregate,
// Nissim et al. 2007). 16 records in 4 runs, two features: the first
// predicts the label, the second is noise; D' replaces a predictive record
// by one that contradicts it. The statistic is the Laplace LLR.
func MPCRDPStability(eps float64) (Mechanism, error) {
	X := mat.NewDense(16, 2, nil)
	y := [2][]int{make([]int, 16), make([]int, 16)}
	for i := range 16 {
		lab := i % 2
		X.Set(i, 0, float64(lab))
		X.Set(i, 1, float64((i/2)%2))
		y[D][i], y[DPrime][i] = lab, lab
	}
	y[DPrime][0] = 1 // record 0 has x0 = 0: now it contradicts feature 0
	in := [2]mpcrdp.StabilityInput{}
	for side := range 2 {
		in[side] = mpcrdp.StabilityInput{X: mpcrdp.NewSparse(X, nil, []int{0, 1}), Groups: [][]int{{0}, {1}}, Y: y[side]}
	}
	const runs, feats = 4, 2
	scale := float64(feats) / eps
	// The counts without noise are random (the blocks), so no exact LLR:
	// the statistic is count₀ − count₁, which the pair pushes down.
	return Mechanism{
		Name:      fmt.Sprintf("mp-crdp stability selection (disjoint blocks, %d runs, %d features, ε=%g)", runs, feats, eps),
		Claim:     dp.Pure(eps),
		Pair:      "16 records, feature 0 equal to the label, feature 1 not; D' flips the label of record 0",
		Dim:       feats,
		Statistic: func(out []float64) float64 { return out[0] - out[1] },
		Release: func(side Side, src *randx.Source, out []float64) error {
			c, err := mpcrdp.StabilityCounts(in[side], runs, true, 0.1, src)
			if err != nil {
				return err
			}
			for f, v := range c {
				out[f] = float64(v)
			}
			dp.NewNoiser(src).AddLaplace(out, scale)
			return nil
		},
	}, nil
}

// MPCRDPPearson audits MP-FS's sound redundancy statistics
// (mpcrdp.NoisyMoments): the sums and cross-products of two features in
// [0, 1], Laplace of scale (M + M(M+1)/2)/ε = 5/ε. D' replaces the record
// (0, 0) by (1, 1), which moves all five entries by 1: the full L1
// sensitivity, so the bound should come close to ε. The statistic is the
// Laplace LLR.
func MPCRDPPearson(eps float64) (Mechanism, error) {
	cols := [2][][]float64{
		{{0, 0.2, 0.5, 0.9, 1}, {0, 0.4, 0.5, 0.7, 0.1}},
		{{1, 0.2, 0.5, 0.9, 1}, {1, 0.4, 0.5, 0.7, 0.1}},
	}
	fD, fD2 := mpcrdp.PearsonMoments(cols[D]), mpcrdp.PearsonMoments(cols[DPrime])
	scale := make([]float64, len(fD))
	for i := range scale {
		scale[i] = float64(len(fD)) / eps
	}
	return Mechanism{
		Name:      fmt.Sprintf("mp-crdp Pearson sufficient statistics (2 features, ε=%g)", eps),
		Claim:     dp.Pure(eps),
		Pair:      "5 records, two features in [0, 1]; D' replaces (0, 0) by (1, 1)",
		Dim:       len(fD),
		Statistic: LaplaceLLR(fD, fD2, scale),
		Release: func(side Side, src *randx.Source, out []float64) error {
			copy(out, mpcrdp.NoisyMoments(cols[side], eps, dp.NewNoiser(src)))
			return nil
		},
	}, nil
}

// MPCRDPU1 audits MP-OP's candidate selection with the u1 utility: each of
// three candidate features (b = 1) scores its information gain with the
// label (mpcrdp.InfoGain), and dp.Exponential picks one with the sound
// sensitivity mpcrdp.UtilitySensitivity(U1, Sound, …) (McSherry & Talwar
// 2007). On 8 records D' replaces a record that agrees with feature 0 by
// one that contradicts it, lowering candidate 0's utility and raising the
// others'. The release is the chosen index.
func MPCRDPU1(eps float64) (Mechanism, error) {
	x := [][]uint32{{0, 0, 0, 0, 1, 1, 1, 1}, {0, 1, 0, 1, 0, 1, 0, 1}, {0, 0, 1, 1, 0, 0, 1, 1}}
	y := [2][]int{{0, 0, 0, 0, 1, 1, 1, 1}, {1, 0, 0, 0, 1, 1, 1, 1}}
	n := len(y[D])
	sens := mpcrdp.UtilitySensitivity(mpcrdp.U1, mpcrdp.Sound, 1, n, 2, 0)
	var utilities [2][]float64
	for side := range 2 {
		for _, col := range x {
			utilities[side] = append(utilities[side], mpcrdp.InfoGain(y[side], 2, col, 2))
		}
	}
	return Mechanism{
		Name:  fmt.Sprintf("mp-crdp u1 selection (information gain, Δu=%.3g, ε=%g)", sens, eps),
		Claim: dp.Pure(eps),
		Pair:  fmt.Sprintf("8 records, three binary features, the first equal to the label; D' flips record 0's label (utilities %.3g → %.3g)", utilities[D], utilities[DPrime]),
		Dim:   1,
		Release: func(side Side, src *randx.Source, out []float64) error {
			i, err := dp.Exponential(src, utilities[side], sens, eps)
			out[0] = float64(i)
			return err
		},
	}, nil
}

// MPCRDPEntropy audits the bound behind MP-FS's noisy entropies,
// mpcrdp.EntropySensitivity(n) = (log₂n + log₂e)/n for the empirical
// entropy (mpcrdp.Entropy) under replace-one, with Laplace noise of that
// scale over ε. The pair maximises the move for n = 8 records of a
// 2-level feature: all 0 on D (entropy 0), one record 1 on D' (entropy
// 0.544, against the bound 0.555). The statistic is the release.
func MPCRDPEntropy(eps float64) (Mechanism, error) {
	codes := [2][]uint32{make([]uint32, 8), make([]uint32, 8)}
	codes[DPrime][0] = 1
	n := len(codes[D])
	scale := mpcrdp.EntropySensitivity(n) / eps
	return Mechanism{
		Name:  fmt.Sprintf("mp-crdp noisy entropy (n=%d, Δ=%.3g, ε=%g)", n, mpcrdp.EntropySensitivity(n), eps),
		Claim: dp.Pure(eps),
		Pair:  fmt.Sprintf("8 records of a binary feature: all 0 on D (entropy 0), one 1 on D' (entropy %.3g)", mpcrdp.Entropy(codes[DPrime], 2)),
		Dim:   1,
		Release: func(side Side, src *randx.Source, out []float64) error {
			out[0] = mpcrdp.Entropy(codes[side], 2) + dp.NewNoiser(src).Laplace(scale)
			return nil
		},
	}, nil
}
