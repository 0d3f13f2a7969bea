package audits

import (
	"cmp"
	"fmt"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/learn"
	"github.com/dppub/dppub/method/mpcrdp/correlation"
	mpcrdp "github.com/dppub/dppub/method/mpcrdp/crdp"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// The audits of this file and release.go run MP-CRDP's release and
// selection code (method/mpcrdp/crdp) under the standard notion
// (sensitivity factor 1), the one the sound report covers. The correlated notions' data-dependent factors
// are not standard DP, as the report says; mp-crdp-release shows it (a
// VIOLATION of standard DP at the claimed ε).

// addMechanisms adds MP-CRDP's mechanisms and its whole release.
func addMechanisms(fam *audit.Family) {
	fam.AddCalibrated("mp-crdp-queries", "MP-CRDP count queries (4 queries, ε = 1): sound Laplace(Q/ε) on each answer, or the paper's Laplace(1/ε)", 20_000, 500_000, 1,
		func(cal string, eps float64) (audit.Mechanism, error) {
			return MPCRDPQueries(mpcrdp.Calibration(cal), eps)
		},
		audit.CalibrationVerdict{Calibration: string(mpcrdp.Sound), Expect: audit.Pass},
		audit.CalibrationVerdict{Calibration: string(mpcrdp.Paper), Expect: audit.Violation})
	for _, a := range []struct {
		name, summary      string
		fastRuns, longRuns int
		build              func(eps float64) (audit.Mechanism, error)
	}{
		{"mp-crdp-fm", "MP-CRDP's logistic regression by the functional mechanism (one feature, ε = 1)", 20_000, 300_000, MPCRDPFM},
		{"mp-crdp-svm", "MP-CRDP's DP SVM (objective perturbation, Huber hinge, bias; ε = 1)", 10_000, 300_000, MPCRDPSVM},
		{"mp-crdp-pearson", "MP-FS sound redundancy statistics: sums and cross-products of 2 features in [0,1] + Laplace(5/ε) (ε = 1)", 20_000, 500_000, MPCRDPPearson},
		{"mp-crdp-u1", "MP-OP selection by the exponential mechanism over information-gain utilities (u1, sound Δu = b·3·(log₂n + log₂e)/n; b = 1, ε = 1)", 20_000, 500_000, MPCRDPU1},
		{"mp-crdp-entropy", "MP-FS noisy entropy for the NMI of categorical pairs: Laplace((log₂n + log₂e)/(nε)) (n = 8, ε = 1)", 20_000, 500_000, MPCRDPEntropy},
		{"mp-crdp-stability", "MP-FS DP stability selection: L1-logistic selection counts over disjoint blocks + Laplace(M/ε) (2 features, 4 runs, ε = 1)", 5_000, 100_000, MPCRDPStability},
	} {
		fam.AddSound(a.name, a.summary, a.fastRuns, a.longRuns, 1, a.build)
	}
	fam.AddCalibrated("mp-crdp-u2", "MP-OP selection by the exponential mechanism over u2 = MCD/ΔCS_p utilities (4 candidates, ε = 1): sound Δu2 = 1, or the paper's 1/K (VIOLATION)", 20_000, 500_000, 1,
		func(cal string, eps float64) (audit.Mechanism, error) { return MPCRDPU2(mpcrdp.Calibration(cal), eps) },
		audit.CalibrationVerdict{Calibration: string(mpcrdp.Sound), Expect: audit.Pass},
		audit.CalibrationVerdict{Calibration: string(mpcrdp.Paper), Expect: audit.Violation})
	fam.Add(audit.Method{Name: "mp-crdp-release", Summary: "the real MP-CRDP pipeline's release (64 records, 6 binary features, ε2/2 = 1); --mechanism RELEASE[/NOTION]: queries (default), logreg, svm; notion standard (default), group, correlated, mp-crdp (data-dependent: VIOLATION)",
		Calibrations: []string{string(mpcrdp.Sound), string(mpcrdp.Paper)}, FastRuns: 20_000, LongRuns: 300_000,
		Build: func(o audit.MethodOptions) (audit.Mechanism, error) {
			kind, notion, err := ParseReleaseVariant(o.Mechanism)
			if err != nil {
				return audit.Mechanism{}, err
			}
			return MPCRDPRelease(MPCRDPReleaseOptions{Calibration: mpcrdp.Calibration(o.Calibration), Release: kind, Notion: notion, Epsilon: cmp.Or(o.Epsilon, 1)})
		}},
		audit.Case{Method: "mp-crdp-release", Expect: audit.Pass},
		audit.Case{Method: "mp-crdp-release", Options: audit.MethodOptions{Calibration: string(mpcrdp.Paper)}, Expect: audit.Violation},
		audit.Case{Method: "mp-crdp-release", Options: audit.MethodOptions{Mechanism: "queries/mp-crdp"}, Expect: audit.Violation},
		audit.Case{Method: "mp-crdp-release", Options: audit.MethodOptions{Mechanism: "logreg/mp-crdp"}, Expect: audit.Violation},
		audit.Case{Method: "mp-crdp-release", Options: audit.MethodOptions{Mechanism: "queries/correlated"}, Expect: audit.Violation, Long: true},
		audit.Case{Method: "mp-crdp-release", Options: audit.MethodOptions{Mechanism: "queries/group"}, Expect: audit.Violation, Long: true})
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
func MPCRDPQueries(c mpcrdp.Calibration, eps float64) (audit.Mechanism, error) {
	if c == "" {
		c = mpcrdp.Sound
	}
	if c != mpcrdp.Sound && c != mpcrdp.Paper {
		return audit.Mechanism{}, fmt.Errorf("audit: mp-crdp-queries calibration must be sound or paper, got %q", c)
	}
	levels := []int{2, 2, 2}
	qs := []mpcrdp.Query{{{Feature: 0}}, {{Feature: 1}}, {{Feature: 0}, {Feature: 1}}, {{Feature: 0}, {Feature: 1}, {Feature: 2}}}
	rows := [2][][]uint32{}
	for side := range 2 {
		rows[side] = [][]uint32{{0, 0, 0}, {0, 1, 1}, {1, 0, 1}, {1, 1, 0}, {0, 0, 1}, {1, 1, 1}}
	}
	rows[audit.DPrime][0] = []uint32{1, 1, 1}
	var exact [2][]float64
	for side := range 2 {
		a, err := mpcrdp.CountQueries(rows[side], levels, qs)
		if err != nil {
			return audit.Mechanism{}, fmt.Errorf("audit: %w", err)
		}
		exact[side] = a
	}
	l1 := mpcrdp.QuerySensitivity(c, len(qs), len(qs), 1) // four distinct feature sets
	scale := l1 / eps
	scales := make([]float64, len(qs))
	for i := range scales {
		scales[i] = scale
	}
	return audit.Mechanism{
		Name:      fmt.Sprintf("mp-crdp count queries (%s calibration, Q=%d, ε=%g)", c, len(qs), eps),
		Claim:     dp.Pure(eps),
		Pair:      "6 records over three binary features; D' replaces (0,0,0), counted by all four queries, by (1,1,1), counted by none",
		Dim:       len(qs),
		Statistic: audit.LaplaceLLR(exact[audit.D], exact[audit.DPrime], scales),
		Truth:     audit.SideTruth(exact[audit.D], exact[audit.DPrime]), // counts: integers, on the grid by nature
		Release: func(side audit.Side, src *randx.Source, out []float64) error {
			a, err := mpcrdp.CountQueries(rows[side], levels, qs)
			if err != nil {
				return err
			}
			copy(out, mpcrdp.ReleaseAnswers(qs, a, l1, eps, dp.NewNoiser(src)))
			return nil
		},
	}, nil
}

// oneFeatureLearner is the audit named name of a learner trained by
// train on ten records with one feature in [0, 1] and labels 0/1, D' with
// record 0 (x = 1, y = 1) replaced by (x = 1, y = 0): the label of the
// record with the largest feature flips. The statistic is the learnt
// weight.
func oneFeatureLearner(name string, claim dp.Guarantee, train func(X *mat.Dense, y []int, src *randx.Source) (*learn.LinearModel, error)) audit.Mechanism {
	X := mat.NewDense(10, 1, []float64{1, 0.9, 0.8, 0.7, 0.6, 0.4, 0.3, 0.2, 0.1, 0})
	y := [2][]int{{1, 1, 1, 1, 1, 0, 0, 0, 0, 0}, {0, 1, 1, 1, 1, 0, 0, 0, 0, 0}}
	return audit.Mechanism{
		Name:  name,
		Claim: claim,
		Pair:  "10 records, x from 0 to 1; D' flips the label of the record at x = 1",
		Dim:   1,
		Release: func(side audit.Side, src *randx.Source, out []float64) error {
			m, err := train(X, y[side], src)
			if err != nil {
				return err
			}
			out[0] = m.W[0]
			return nil
		},
	}
}

// MPCRDPFM audits mpcrdp.FitFM, the functional mechanism (Zhang et al.
// 2012): Laplace noise of scale (s + s²/4)/ε on the degree-2 Taylor
// coefficients (s = ‖x‖₁ bound + 1 for the bias), then convexification and
// minimisation, post-processing (oneFeatureLearner).
func MPCRDPFM(eps float64) (audit.Mechanism, error) {
	o := mpcrdp.FMOptions{Epsilon: eps, Factor: 1, RowL1: 1, Ridge: 1e-3}
	return oneFeatureLearner(fmt.Sprintf("mp-crdp FM logistic regression (one feature, ε=%g)", eps), o.Spec().Guarantee,
		func(X *mat.Dense, y []int, src *randx.Source) (*learn.LinearModel, error) {
			return mpcrdp.FitFM(X, y, o, src)
		}), nil
}

// MPCRDPSVM audits mpcrdp.TrainSVM at the standard notion's factor 1:
// learn.TrainDPLinear's objective perturbation with the Huber hinge and a
// bias (Chaudhuri et al. 2011, Theorem 9), on oneFeatureLearner's pair.
func MPCRDPSVM(eps float64) (audit.Mechanism, error) {
	o := mpcrdp.SVMOptions{Epsilon: eps, Factor: 1, Lambda: 0.1, Huber: 0.5}
	return oneFeatureLearner(fmt.Sprintf("mp-crdp DP SVM (one feature, ε=%g)", eps), dp.Pure(eps),
		func(X *mat.Dense, y []int, src *randx.Source) (*learn.LinearModel, error) {
			return mpcrdp.TrainSVM(X, y, o, src)
		}), nil
}

// MPCRDPStability audits MP-FS's DP stability selection: the selection
// counts of mpcrdp.StabilityCounts over disjoint blocks (one record is in
// one run, so each of the M features' counts moves by at most 1) plus
// Laplace(M/ε), the scale the pipeline adds (subsample and aggregate,
// Nissim et al. 2007). 16 records in 4 runs, two features: the first
// predicts the label, the second is noise; D' replaces a predictive record
// by one that contradicts it. The statistic is the Laplace LLR.
func MPCRDPStability(eps float64) (audit.Mechanism, error) {
	X := mat.NewDense(16, 2, nil)
	y := [2][]int{make([]int, 16), make([]int, 16)}
	for i := range 16 {
		lab := i % 2
		X.Set(i, 0, float64(lab))
		X.Set(i, 1, float64((i/2)%2))
		y[audit.D][i], y[audit.DPrime][i] = lab, lab
	}
	y[audit.DPrime][0] = 1 // record 0 has x0 = 0: now it contradicts feature 0
	in := [2]mpcrdp.StabilityInput{}
	for side := range 2 {
		in[side] = mpcrdp.StabilityInput{X: mpcrdp.NewSparse(X, nil, []int{0, 1}), Groups: [][]int{{0}, {1}}, Y: y[side]}
	}
	const runs, feats = 4, 2
	// The counts without noise are random (the blocks), so no exact LLR:
	// the statistic is count₀ − count₁, which the pair pushes down.
	return audit.Mechanism{
		Name:      fmt.Sprintf("mp-crdp stability selection (disjoint blocks, %d runs, %d features, ε=%g)", runs, feats, eps),
		Claim:     dp.Pure(eps),
		Pair:      "16 records, feature 0 equal to the label, feature 1 not; D' flips the label of record 0",
		Dim:       feats,
		Statistic: func(out []float64) float64 { return out[0] - out[1] },
		Release: func(side audit.Side, src *randx.Source, out []float64) error {
			c, err := mpcrdp.StabilityCounts(in[side], runs, true, 0.1, src)
			if err != nil {
				return err
			}
			for f, v := range c {
				out[f] = float64(v)
			}
			dp.NewNoiser(src).ReleaseLaplace(feats, eps, out)
			return nil
		},
	}, nil
}

// MPCRDPPearson audits MP-FS's sound redundancy statistics
// (mpcrdp.NoisyMoments): the sums and cross-products of two features in
// [0, 1], Laplace of scale (M + M(M+1)/2)/ε = 5/ε. D' replaces the record
// (0, 0) by (u, u), u = 1 − 2^-10/3, which moves the sums by u and the
// products by u² (0.9995 of the L1 sensitivity), so the bound should come
// close to ε. Every statistic (sums such as 2.6 and products of tenths)
// and every move is off every power-of-two grid, and the audit states
// them (Truth), so noise added to the unrounded moments fails the
// grey-box audit (the old (1, 1) moved every entry by exactly 1). The
// statistic is the Laplace LLR.
func MPCRDPPearson(eps float64) (audit.Mechanism, error) {
	cols := [2][][]float64{
		{{0, 0.2, 0.5, 0.9, 1}, {0, 0.4, 0.5, 0.7, 0.1}},
		{{audit.OffGridMove, 0.2, 0.5, 0.9, 1}, {audit.OffGridMove, 0.4, 0.5, 0.7, 0.1}},
	}
	fD, fD2 := mpcrdp.PearsonMoments(cols[audit.D]), mpcrdp.PearsonMoments(cols[audit.DPrime])
	scale := make([]float64, len(fD))
	for i := range scale {
		scale[i] = float64(len(fD)) / eps
	}
	return audit.Mechanism{
		Name:      fmt.Sprintf("mp-crdp Pearson sufficient statistics (2 features, ε=%g)", eps),
		Claim:     dp.Pure(eps),
		Pair:      "5 records, two features in [0, 1]; D' replaces (0, 0) by (u, u), u = 1 − 2^-10/3: sums move by u, products by u², every moment off every grid",
		Dim:       len(fD),
		Statistic: audit.LaplaceLLR(fD, fD2, scale),
		Truth:     audit.SideTruth(fD, fD2),
		Release: func(side audit.Side, src *randx.Source, out []float64) error {
			copy(out, mpcrdp.NoisyMoments(cols[side], eps, dp.NewNoiser(src)))
			return nil
		},
	}, nil
}

// MPCRDPU1 audits MP-OP's candidate selection with the u1 utility: each of
// three candidate features (b = 1) scores its information gain with the
// label (mpcrdp.InfoGain), and dp.PermuteAndFlip picks one with the sound
// sensitivity mpcrdp.UtilitySensitivity(U1, Sound, …) (McSherry & Talwar
// 2007). On 8 records D' replaces a record that agrees with feature 0 by
// one that contradicts it, lowering candidate 0's utility and raising the
// others'. The release is the chosen index.
func MPCRDPU1(eps float64) (audit.Mechanism, error) {
	x := [][]uint32{{0, 0, 0, 0, 1, 1, 1, 1}, {0, 1, 0, 1, 0, 1, 0, 1}, {0, 0, 1, 1, 0, 0, 1, 1}}
	y := [2][]int{{0, 0, 0, 0, 1, 1, 1, 1}, {1, 0, 0, 0, 1, 1, 1, 1}}
	n := len(y[audit.D])
	sens := mpcrdp.UtilitySensitivity(mpcrdp.U1, mpcrdp.Sound, 1, n, 2, 0)
	var utilities [2][]float64
	for side := range 2 {
		for _, col := range x {
			utilities[side] = append(utilities[side], mpcrdp.InfoGain(y[side], 2, col, 2))
		}
	}
	return audit.Mechanism{
		Name:  fmt.Sprintf("mp-crdp u1 selection (information gain, Δu=%.3g, ε=%g)", sens, eps),
		Claim: dp.Pure(eps),
		Pair:  fmt.Sprintf("8 records, three binary features, the first equal to the label; D' flips record 0's label (utilities %.3g → %.3g)", utilities[audit.D], utilities[audit.DPrime]),
		Dim:   1,
		Release: func(side audit.Side, src *randx.Source, out []float64) error {
			i, err := dp.PermuteAndFlip(src, utilities[side], sens, eps)
			out[0] = float64(i)
			return err
		},
	}, nil
}

// MPCRDPEntropy audits the bound behind MP-FS's noisy entropies,
// mpcrdp.EntropySensitivity(n) = (log₂n + log₂e)/n for the empirical
// entropy (mpcrdp.Entropy) under replace-one, with Laplace noise of that
// scale over ε. The pair, n = 8 records of a 3-level feature, 7 at 0 and
// one at 2 on D (entropy 0.544) and record 0 moved to 1 on D' (1.061),
// moves the entropy by 0.518, 0.93 of the bound 0.555 (the largest move,
// from entropy 0, is 0.544, but 0 lies on every grid). Both entropies and
// the move are off every power-of-two grid and stated (Truth), so noise
// added to the unrounded entropy fails the grey-box audit. The statistic
// is the release.
func MPCRDPEntropy(eps float64) (audit.Mechanism, error) {
	const levels = 3
	codes := [2][]uint32{make([]uint32, 8), make([]uint32, 8)}
	codes[audit.D][7], codes[audit.DPrime][7] = 2, 2
	codes[audit.DPrime][0] = 1
	n := len(codes[audit.D])
	h := [2]float64{mpcrdp.Entropy(codes[audit.D], levels), mpcrdp.Entropy(codes[audit.DPrime], levels)}
	plan, err := dp.PlanLaplace(mpcrdp.EntropySensitivity(n), eps, 1)
	if err != nil {
		return audit.Mechanism{}, fmt.Errorf("audit: %w", err)
	}
	return audit.WithGridTruth(audit.Mechanism{
		Name:  fmt.Sprintf("mp-crdp noisy entropy (n=%d, Δ=%.3g, ε=%g)", n, mpcrdp.EntropySensitivity(n), eps),
		Claim: dp.Pure(eps),
		Pair:  fmt.Sprintf("8 records of a 3-level feature: 7 at 0 and one at 2 on D (entropy %.4g), record 0 moved to 1 on D' (entropy %.4g), both off every grid", h[audit.D], h[audit.DPrime]),
		Dim:   1,
		Release: func(side audit.Side, src *randx.Source, out []float64) error {
			out[0] = mpcrdp.Entropy(codes[side], levels)
			dp.NewNoiser(src).ReleaseLaplace(mpcrdp.EntropySensitivity(n), eps, out[:1])
			return nil
		},
	}, h, plan.Grid), nil
}

// MPCRDPU2 audits MP-OP's candidate selection with the u2 utility (paper
// Eq. 18): candidate c scores u2 = MCD/ΔCS_p of β ∪ c at w0 = MCD, and
// dp.PermuteAndFlip picks one with mpcrdp.UtilitySensitivity(U2, c, …): the
// sound Δu2 = 1 (u2 lies in (0, 1]) or the paper's 1/K, K the number of
// records correlated with β's most correlated record. The utilities are
// computed as Pipeline's candidate step computes them, with the real
// correlation analysis (correlation.Analyze, correlation.MCD over the
// parties' analyses at w0 = 0.9).
//
// Pair: ten records; β is one feature g on which all ten agree (so K =
// 10 and the paper's Δu2 = 0.1); the four candidates are single features
// a, b, c, d, each with a distinct value per record, held with g by two
// parties ({g, a} and {b, c, d}). Then ΔCS_p = 1 and u2 = MCD = 1 for
// every candidate on D. D' gives record 0 record 1's value of a, so
// records 0 and 1 agree on β ∪ {a}: ΔCS_p = 2 and u2(a) = 0.5 (MCD stays
// 1). The release is the chosen index. With 4 candidates P_D(a) = 1/4;
// on D' permute-and-flip stops at a only when a comes first and its coin
// (probability e^{−ε·0.5/(2Δu2)}) succeeds, since every other candidate
// has the top utility: P_D'(a) = e^{−ε/(4Δu2)}/4. So the sound selection
// is 0.25-tight here at ε = 1 and the paper's is 2.5-DP (e^{2.5}), the
// under-noising the pipeline's report states ("actually ε·K").
func MPCRDPU2(c mpcrdp.Calibration, eps float64) (audit.Mechanism, error) {
	if c == "" {
		c = mpcrdp.Sound
	}
	if c != mpcrdp.Sound && c != mpcrdp.Paper {
		return audit.Mechanism{}, fmt.Errorf("audit: mp-crdp-u2 calibration must be sound or paper, got %q", c)
	}
	const n = 10
	features := []string{"g", "a", "b", "c", "d"}
	parties := [][]string{{"g", "a"}, {"b", "c", "d"}}
	candidates := features[1:]
	var utilities [2][]float64
	var sens [2]float64
	for _, side := range []audit.Side{audit.D, audit.DPrime} {
		rows := make([][]uint32, n)
		for i := range rows {
			v := uint32(i)
			rows[i] = []uint32{0, v, v, v, v}
		}
		if side == audit.DPrime {
			rows[0][1] = rows[1][1]
		}
		codes, err := correlation.NewCodes(features, []int{1, n, n, n, n}, rows)
		if err != nil {
			return audit.Mechanism{}, fmt.Errorf("audit: %w", err)
		}
		u, s, err := u2Utilities(codes, parties, candidates, c)
		if err != nil {
			return audit.Mechanism{}, fmt.Errorf("audit: mp-crdp-u2, dataset %v: %w", side, err)
		}
		utilities[side], sens[side] = u, s
	}
	if sens[audit.D] != sens[audit.DPrime] {
		return audit.Mechanism{}, fmt.Errorf("audit: mp-crdp-u2: Δu2 is %g on D but %g on D'; the pair must keep it", sens[audit.D], sens[audit.DPrime])
	}
	return audit.Mechanism{
		Name:  fmt.Sprintf("mp-crdp u2 selection (%s calibration, Δu2=%g, ε=%g, %d candidates)", c, sens[audit.D], eps, len(candidates)),
		Claim: dp.Pure(eps),
		Pair: fmt.Sprintf("10 records all equal on β = {g}, candidates a–d distinct per record; D' copies record 1's a into record 0 (utilities %.3g → %.3g)",
			utilities[audit.D], utilities[audit.DPrime]),
		Dim: 1,
		Release: func(side audit.Side, src *randx.Source, out []float64) error {
			i, err := dp.PermuteAndFlip(src, utilities[side], sens[side], eps)
			out[0] = float64(i)
			return err
		},
	}, nil
}

// u2Utilities scores each single-feature candidate with u2 = MCD/ΔCS_p of
// β ∪ candidate at w0 = MCD (β = the first feature), and returns Δu2 for
// the calibration, as the pipeline's candidate step does.
func u2Utilities(codes *correlation.Codes, parties [][]string, candidates []string, c mpcrdp.Calibration) ([]float64, float64, error) {
	analyse := func(w0 float64, feats ...string) (*correlation.Result, error) {
		sel, err := codes.Select(feats...)
		if err != nil {
			return nil, err
		}
		return correlation.Analyze(sel, correlation.Options{Threshold: w0, Workers: 1})
	}
	var local []*correlation.Result
	for _, feats := range parties {
		r, err := analyse(mpcrdp.DefaultInitialThreshold, feats...)
		if err != nil {
			return nil, 0, err
		}
		local = append(local, r)
	}
	mcd, err := correlation.MCD(local)
	if err != nil {
		return nil, 0, err
	}
	beta := codes.Features()[0]
	u := make([]float64, len(candidates))
	for k, f := range candidates {
		r, err := analyse(mcd, beta, f)
		if err != nil {
			return nil, 0, err
		}
		u[k] = mcd / r.Sensitivity
	}
	r, err := analyse(mcd, beta)
	if err != nil {
		return nil, 0, err
	}
	return u, mpcrdp.UtilitySensitivity(mpcrdp.U2, c, 1, codes.Len(), 2, r.K), nil
}
