package dppca

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/learn"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// Defaults of Options.
const (
	DefaultContribution   = 0.85
	DefaultComponentShare = 0.5
	// DefaultHuber is the smoothing h of the DP SVM's Huber hinge loss.
	DefaultHuber = 0.5
)

// Options configure Train.
type Options struct {
	Method      Method
	Calibration Calibration
	// Epsilon (and Delta, for ag-svm and mod-sulq-svm) is the budget of
	// the whole release.
	Epsilon, Delta float64
	// Select chooses k; the zero value means α = DefaultContribution.
	Select SelectOptions
	// ComponentShare is the fraction of ε that the sound calibration of
	// dppca-svm, ag-svm and mod-sulq-svm spends on the components; the
	// rest trains the DP SVM. δ goes to the components. 0 means
	// DefaultComponentShare.
	ComponentShare float64
	// SVM configures the non-private SVM of the paper calibration; nil
	// means learn.DefaultSVMOptions(). Paper pca-dpsvm uses the hinge
	// loss whatever is set here: Lemma 2 needs dual variables in [0, C].
	SVM *learn.SVMOptions
	// DPSVM configures the DP SVM of the sound calibration; Train sets its
	// Epsilon, and its Lambda when 0 (see DefaultLambda). nil means Huber
	// hinge (h = DefaultHuber), a bias, and objective perturbation (output
	// perturbation for pca-dpsvm, which is what makes it pca-dpsvm).
	DPSVM *learn.DPERMOptions
	// Accountant is charged before every noisy value is computed.
	Accountant *privacy.Accountant
	// Source is the randomness; nil means randx.NewSecure().
	Source *randx.Source
}

// Result is a trained pipeline: project onto Components, then classify.
type Result struct {
	Components *Components
	Classifier *learn.Classifier
	// MatrixNoise is the noise on A (nil for pca-dpsvm).
	MatrixNoise *NoisePlan
	// WeightScale is the Laplace scale added to w by paper pca-dpsvm.
	WeightScale float64
	// ComponentEpsilon and SVMEpsilon are the budget split (SVMEpsilon is
	// 0 when the SVM is not DP).
	ComponentEpsilon, SVMEpsilon float64
	// BinaryModels is the number of binary SVMs (1, or one per class).
	BinaryModels int
	Timing       Timing
}

// Timing is the wall time of each stage.
type Timing struct {
	Moment, Eigen, Project, SVM time.Duration
}

// DefaultLambda is the regulariser λ of the DP SVM's objective
// (1/n)Σℓ + (λ/2)‖w‖² when none is set. n is public here.
//
//   - objective perturbation: 0, which learn resolves from n and each
//     model's ε (learn.DPERMOptions.ResolvedLambda) so that Chaudhuri et
//     al.'s extra-regulariser branch, which halves ε, is not taken (λ =
//     1/n took it for every ε ≤ 1.39 with the Huber hinge).
//   - output perturbation: 1/√n. Its noise norm grows like 1/(nλε), so
//     λ = 1/n would swamp w; 1/√n keeps the noise O(1/(√n ε)).
func DefaultLambda(n int, p learn.Perturbation) float64 {
	if p == learn.OutputPerturbation {
		return 1 / math.Sqrt(float64(n))
	}
	return 0
}

func (o *Options) defaults(n int) {
	if o.Select.K == 0 && o.Select.Contribution == 0 {
		o.Select.Contribution = DefaultContribution
	}
	o.ComponentShare = cmp.Or(o.ComponentShare, DefaultComponentShare)
	if o.Source == nil {
		o.Source = randx.NewSecure()
	}
	if o.SVM == nil {
		s := learn.DefaultSVMOptions()
		o.SVM = &s
	}
	if o.DPSVM == nil {
		s := learn.DefaultDPERMOptions(1)
		s.Loss, s.Huber, s.Lambda = learn.HuberHinge, DefaultHuber, 0
		if o.Method == PCADPSVM {
			s.Method = learn.OutputPerturbation
		}
		o.DPSVM = &s
	}
	if o.DPSVM.Lambda == 0 && n > 0 {
		s := *o.DPSVM
		s.Lambda = DefaultLambda(n, s.Method)
		o.DPSVM = &s
	}
}

func (o *Options) validate(X *mat.Dense, y []int, classes int) error {
	if _, err := ParseMethod(string(o.Method)); err != nil {
		return err
	}
	if _, err := ParseCalibration(string(o.Calibration)); err != nil {
		return err
	}
	if !(o.Epsilon > 0) || math.IsInf(o.Epsilon, 0) {
		return fmt.Errorf("dppca: epsilon must be positive and finite, got %v", o.Epsilon)
	}
	if !(o.ComponentShare > 0 && o.ComponentShare < 1) {
		return fmt.Errorf("dppca: component share %v outside (0, 1)", o.ComponentShare)
	}
	if o.Accountant == nil {
		return fmt.Errorf("dppca: an accountant is required")
	}
	if err := o.SVM.Validate(); err != nil {
		return fmt.Errorf("dppca: %w", err)
	}
	if err := o.DPSVM.Validate(); err != nil {
		return fmt.Errorf("dppca: %w", err)
	}
	n, d := X.Dims()
	if n < 2 || d < 1 {
		return fmt.Errorf("dppca: need at least 2 rows and 1 column, got %d×%d", n, d)
	}
	if len(y) != n {
		return fmt.Errorf("dppca: %d labels for %d rows", len(y), n)
	}
	if classes < 2 {
		return fmt.Errorf("dppca: need at least 2 classes, got %d", classes)
	}
	for i, c := range y {
		if c < 0 || c >= classes {
			return fmt.Errorf("dppca: label %d of row %d outside 0..%d", c, i, classes-1)
		}
	}
	if err := o.Select.validate(d); err != nil {
		return err
	}
	return CheckRows(X)
}

// Train runs one of the four methods on rows X (‖x‖₂ ≤ 1, see ClipRows)
// with labels y in 0..classes−1, charging o.Accountant before each noisy
// step. What is DP:
//
//   - sound dppca-svm, ag-svm, mod-sulq-svm: the components (noisy A, a
//     share of ε and all of δ) and the classifier (objective perturbation
//     on the projected rows with the rest of ε, split evenly over the
//     binary one-vs-rest models by sequential composition): DP end to end,
//     by adaptive sequential composition, since projecting with the
//     released V_k is a per-row map that keeps ‖y‖₂ ≤ 1.
//   - paper dppca-svm, ag-svm, mod-sulq-svm: the components only (the
//     whole budget); the SVM is trained without privacy.
//   - pca-dpsvm: the components are exact, so nothing is DP end to end.
//     Paper: hinge-loss SVM, then Lap(2Cnd/ε) on every w (Algorithm 2),
//     the intercept unnoised as in the paper. Sound: output perturbation
//     (Chaudhuri et al. 2011, Algorithm 1), whose guarantee would hold for
//     components fixed independently of the data.
func Train(X *mat.Dense, y []int, classes int, o Options) (*Result, error) {
	if X == nil {
		return nil, fmt.Errorf("dppca: no data")
	}
	rows, _ := X.Dims()
	o.defaults(rows)
	if err := o.validate(X, y, classes); err != nil {
		return nil, err
	}
	if err := checkBudget(&o); err != nil {
		return nil, err
	}
	n, d := X.Dims()
	res := &Result{BinaryModels: binaryModels(classes)}
	switch {
	case o.Method == PCADPSVM:
		res.SVMEpsilon = o.Epsilon
	case o.Calibration == Paper:
		res.ComponentEpsilon = o.Epsilon
	default:
		res.ComponentEpsilon = o.ComponentShare * o.Epsilon
		res.SVMEpsilon = o.Epsilon - res.ComponentEpsilon
	}

	start := time.Now()
	a := SecondMoment(X)
	res.Timing.Moment = time.Since(start)
	if o.Method != PCADPSVM {
		plan, err := PlanMatrixNoise(PlanOptions{Method: o.Method, Calibration: o.Calibration, N: n, D: d,
			Epsilon: res.ComponentEpsilon, Delta: o.Delta})
		if err != nil {
			return nil, err
		}
		if err := o.Accountant.Spend(plan.Charge); err != nil {
			return nil, fmt.Errorf("dppca: %w", err)
		}
		plan.Perturb(a, o.Source)
		res.MatrixNoise = plan
	}

	start = time.Now()
	comps, err := TopK(a, o.Select)
	if err != nil {
		return nil, err
	}
	res.Components = comps
	res.Timing.Eigen = time.Since(start)

	start = time.Now()
	Y := comps.Project(X)
	res.Timing.Project = time.Since(start)

	start = time.Now()
	if err := trainClassifier(Y, y, classes, d, &o, res); err != nil {
		return nil, err
	}
	res.Timing.SVM = time.Since(start)
	return res, nil
}

// checkBudget refuses a release that the accountant could not cover in
// full, before anything is charged or computed.
func checkBudget(o *Options) error {
	planned := dp.Pure(o.Epsilon)
	if o.Method.Gaussian() {
		planned = dp.Approx(o.Epsilon, o.Delta)
	}
	total, err := dp.Compose(o.Accountant.Spent(), planned)
	if err != nil || !dp.Within(total, o.Accountant.Budget()) {
		return fmt.Errorf("dppca: the release needs %v but party %q has only %v left", planned, o.Accountant.Party(), o.Accountant.Remaining())
	}
	return nil
}

func binaryModels(classes int) int {
	if classes == 2 {
		return 1
	}
	return classes
}

func trainClassifier(Y *mat.Dense, y []int, classes, d int, o *Options, res *Result) error {
	switch {
	case o.Method == PCADPSVM && o.Calibration == Paper:
		return paperWeightNoise(Y, y, classes, d, o, res)
	case o.Calibration == Paper:
		c, err := NonPrivateSVM(Y, y, classes, *o.SVM, o.Source)
		res.Classifier = c
		return err
	}
	c, err := dpSVM(Y, y, classes, o, res.SVMEpsilon)
	res.Classifier = c
	return err
}

// constantModel handles a binary problem with a single class, which the
// SVM solver refuses: score every row +1 or −1.
func constantModel(pos []int, Y *mat.Dense) (*learn.LinearModel, bool) {
	ones := 0
	for _, v := range pos {
		ones += v
	}
	if ones != 0 && ones != len(pos) {
		return nil, false
	}
	_, k := Y.Dims()
	m := &learn.LinearModel{W: make([]float64, k), B: -1}
	if ones > 0 {
		m.B = 1
	}
	return m, true
}

// dpSVM charges one DP-ERM release per binary model (eps split evenly),
// then trains them.
func dpSVM(Y *mat.Dense, y []int, classes int, o *Options, eps float64) (*learn.Classifier, error) {
	n, k := Y.Dims()
	models := binaryModels(classes)
	so := *o.DPSVM
	so.Epsilon = eps / float64(models)
	for _, label := range binaryLabels(classes) {
		charge, err := dpSVMCharge(so, n, k, label, o.Method)
		if err != nil {
			return nil, fmt.Errorf("dppca: %w", err)
		}
		if err := o.Accountant.Spend(charge); err != nil {
			return nil, fmt.Errorf("dppca: %w", err)
		}
	}
	return oneVsRest(y, classes, o.Source, func(pos []int, src *randx.Source) (*learn.LinearModel, error) {
		return learn.TrainDPLinear(Y, pos, so, src)
	})
}

func binaryLabels(classes int) []string {
	if classes == 2 {
		return []string{"class 1 vs class 0"}
	}
	out := make([]string, classes)
	for c := range out {
		out[c] = fmt.Sprintf("class %d vs rest", c)
	}
	return out
}

// dpSVMCharge describes one DP-ERM model (Chaudhuri et al. 2011) as
// learn calibrates it (learn.DPERMOptions.Plan): the released weights are
// g·(⌊w/g⌉ + ⌊v/g⌉) with v ∝ exp(−‖v‖/scale) covering the stated L2
// sensitivity; objective perturbation also spends ε₁ on its linear term.
func dpSVMCharge(so learn.DPERMOptions, n, k int, label string, m Method) (privacy.Charge, error) {
	plan, err := so.Plan(n, k)
	if err != nil {
		return privacy.Charge{}, err
	}
	spec := dp.Spec{Norm: "L2", Guarantee: dp.Pure(so.Epsilon), Sensitivity: plan.Sensitivity, Scale: plan.Scale}
	note := fmt.Sprintf("%s loss, λ=%.3g, on the %d projected coordinates; optimiser certified to ‖∇J‖ ≤ %g (the residual is in the sensitivity); released on the grid %g", so.Loss, plan.Lambda, k, plan.GradTol, plan.Grid)
	if so.Bias {
		note += "; a bias (rows scaled by 1/√2 to keep ‖x̃‖ ≤ 1)"
	}
	if so.Method == learn.OutputPerturbation {
		spec.Mechanism = "output-perturbation (Chaudhuri et al. 2011, Alg. 1)"
	} else {
		spec.Mechanism = "objective-perturbation (Chaudhuri et al. 2011, Alg. 2) + residual noise (Iyengar et al. 2019)"
		note += fmt.Sprintf("; ε₁=%.3g on the linear term (ε′=%.3g), ε₂=%.3g on the release", plan.EpsObjective, plan.EpsPrime, plan.EpsRelease)
		if plan.Delta > 0 {
			note += fmt.Sprintf("; extra regulariser Δ=%.3g since ε is small for n", plan.Delta)
		}
	}
	if m == PCADPSVM {
		note += "; the guarantee assumes components fixed independently of the records, which exact PCA on the same records is not"
	}
	return privacy.Charge{Purpose: "DP SVM " + label, Spec: spec, Calibration: string(Sound), Note: note}, nil
}

// paperWeightNoise is Algorithm 2 steps 4–5: a hinge-loss SVM, then
// Lap(2Cnd/ε) on every weight of every binary model (not the intercept).
func paperWeightNoise(Y *mat.Dense, y []int, classes, d int, o *Options, res *Result) error {
	n, _ := Y.Dims()
	so := *o.SVM
	so.Loss = learn.Hinge
	scale := PaperWeightScale(n, d, so.C, o.Epsilon)
	lap, err := dp.NewLaplace(dp.LaplaceOptions{L1Sensitivity: 2 * so.C * float64(n) * float64(d), Epsilon: o.Epsilon})
	if err != nil {
		return fmt.Errorf("dppca: %w", err)
	}
	charge := privacy.Charge{Purpose: "SVM weights w + Lap(2Cnd/ε) (paper Algorithm 2)", Spec: lap.Spec(),
		Calibration: string(Paper),
		Note:        "Lemma 2 bounds the change of w for fixed components; the components and the intercept are computed from the same records without noise"}
	if m := res.BinaryModels; m > 1 {
		actual := dp.Pure(float64(m) * o.Epsilon)
		charge.Actual = &actual
		charge.Note += fmt.Sprintf("; each of the %d one-vs-rest models is noised at ε, so the weights together are only %d·ε-DP", m, m)
	}
	if err := o.Accountant.Spend(charge); err != nil {
		return fmt.Errorf("dppca: %w", err)
	}
	c, err := NonPrivateSVM(Y, y, classes, so, o.Source)
	if err != nil {
		return err
	}
	nz := dp.NewNoiser(o.Source)
	for _, m := range c.Models {
		lap.Release(nz, m.W)
	}
	res.Classifier, res.WeightScale = c, scale
	return nil
}

// oneVsRest trains the binary problems of a classes-way task in parallel:
// one problem (positive = class 1) for two classes, else one per class.
// Each problem gets its own child of src, drawn before any goroutine
// starts, so seeded runs are reproducible.
func oneVsRest(y []int, classes int, src *randx.Source, train func(pos []int, src *randx.Source) (*learn.LinearModel, error)) (*learn.Classifier, error) {
	positives := []int{1}
	if classes > 2 {
		positives = make([]int, classes)
		for c := range positives {
			positives[c] = c
		}
	}
	srcs := make([]*randx.Source, len(positives))
	for i := range srcs {
		srcs[i] = src.Child()
	}
	models := make([]*learn.LinearModel, len(positives))
	errs := make([]error, len(positives))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, c := range positives {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			pos := make([]int, len(y))
			for r, v := range y {
				if v == c {
					pos[r] = 1
				}
			}
			models[i], errs[i] = train(pos, srcs[i])
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("dppca: binary model %d: %w", i, err)
		}
	}
	return &learn.Classifier{Classes: classes, Models: models}, nil
}
