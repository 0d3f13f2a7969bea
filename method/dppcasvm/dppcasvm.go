// Package dppcasvm defines the four methods of Huang, Yang, Xu, Zhou
// (2021), "Differential Privacy Principal Component Analysis for Support
// Vector Machines", as central methods: one owner's table is encoded by
// its public schema into [0,1], scaled, every row clipped onto the unit
// ball, A = XᵀX/n released with noise, and an SVM trained on the rows
// projected onto its top components; the published output is the model
// JSON with its privacy report. The four share one Settings struct;
// each spec presets the method, so a setting that does not apply to it
// (δ to a pure-DP method) is refused.
package dppcasvm

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/learn"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/method/dppcasvm/dppca"
	"github.com/dppub/dppub/model"
	"github.com/dppub/dppub/privacy"
	"gonum.org/v1/gonum/mat"
)

// The four methods' specs, one per dppca.Method.
var (
	DPPCASVM   = spec(dppca.DPPCASVM, "SVM on principal components of a Laplace-noised second-moment matrix (DPPCA-SVM)")
	PCADPSVM   = spec(dppca.PCADPSVM, "SVM on exact principal components, then noise on the weights (PCA-DPSVM; not DP end to end)")
	AGSVM      = spec(dppca.AGSVM, "SVM on principal components of a Gaussian-noised second-moment matrix (Analyze Gauss)")
	ModSuLQSVM = spec(dppca.ModSuLQSVM, "SVM on principal components of a MOD-SuLQ-noised second-moment matrix")
)

// Specs are the four methods' specs, in the order of dppca.Methods: a
// command knows the variants through them.
var Specs = []method.Spec{DPPCASVM, PCADPSVM, AGSVM, ModSuLQSVM}

// For returns the spec of method m.
func For(m dppca.Method) (method.Spec, error) {
	for _, s := range Specs {
		if s.Name == string(m) {
			return s, nil
		}
	}
	return method.Spec{}, fmt.Errorf("unknown method %q (want one of %v)", m, dppca.Methods)
}

func spec(m dppca.Method, summary string) method.Spec {
	s := method.CentralSpec(string(m), summary, run)
	s.NewSettings = func() method.Settings { return New(m) } // the variant's own defaults
	return s
}

// Party names the single data owner in the report.
const Party = "data-owner"

// Scaling says how encoded features are centred and scaled before rows
// are clipped to the unit ball.
type Scaling string

const (
	// ScaleBox centres every encoded column at 0.5, the middle of its
	// declared bounds: public, costs no budget. The default.
	ScaleBox Scaling = "box"
	// ScaleNone keeps the encoding in [0,1] (uncentred, as A = XᵀX/n is).
	ScaleNone Scaling = "none"
	// ScaleStandardize z-scores every encoded column with the training
	// rows' exact mean and standard deviation, as the paper's Table 3
	// suggests it did. NOT DP: both are published in the model.
	ScaleStandardize Scaling = "standardize"
)

// The DP SVM's perturbations (Settings.DPSVM).
const (
	Objective = "objective"
	Output    = "output"
)

// Settings are the settings of the four methods: the flags of `dppub
// publish dppca-svm` (and of pca-dpsvm, ag-svm, mod-sulq-svm).
type Settings struct {
	// method is the spec's, preset by New: the settings of one method.
	method dppca.Method
	// Label is the categorical or binary attribute to predict (default:
	// the schema's label); Features are the attributes to use (default
	// all others).
	Label    string   `json:"label,omitempty" help:"attribute to predict (default: the dataset's label)"`
	Features []string `json:"features,omitempty" help:"attributes to use as features (default: all but the label)"`
	// Epsilon is the whole budget; Delta (ag-svm, mod-sulq-svm only)
	// defaults to 1/n² as in the paper's experiments.
	Epsilon     float64           `json:"epsilon" help:"privacy budget ε of the whole release"`
	Delta       float64           `json:"delta,omitempty" help:"δ (default 1/n², as in the paper's experiments, at most 1e-5)"`
	Calibration dppca.Calibration `json:"calibration,omitempty" help:"sound | paper"`
	Scaling     Scaling           `json:"scaling,omitempty" help:"box | none | standardize (standardize is NOT DP)"`
	// Contribution is α (default 0.85) unless K > 0 fixes k.
	Contribution float64 `json:"contribution,omitempty" help:"keep the fewest components whose contribution rate reaches α"`
	K            int     `json:"k,omitempty" help:"keep exactly k components (overrides --contribution)"`
	// ComponentShare is the share of ε the sound calibration spends on
	// the components (not pca-dpsvm, whose components are exact).
	ComponentShare float64 `json:"component_share,omitempty" help:"sound: share of ε spent on the components; the rest trains the DP SVM"`
	// DPSVM is the sound DP SVM's perturbation: objective (default) or
	// output (pca-dpsvm's, which defines it).
	DPSVM string `json:"dp_svm,omitempty" help:"sound: objective | output perturbation for the DP SVM"`
	// C is the cost of the paper's non-private SVM (default 1).
	C float64 `json:"C,omitempty" help:"paper: cost C of the non-private SVM (and of Lap(2Cnd/ε) for pca-dpsvm)"`
	// Lambda (0: dppca.DefaultLambda) and Huber configure the sound DP SVM.
	Lambda float64 `json:"lambda,omitempty" help:"sound: regulariser λ of the DP SVM (default 1/n for objective, 1/√n for output perturbation)"`
	Huber  float64 `json:"huber,omitempty" help:"sound: smoothing h of the DP SVM's Huber hinge loss"`
}

// New returns zero settings of method m.
func New(m dppca.Method) *Settings { return &Settings{method: m} }

// Method is the method the settings are for.
func (s *Settings) Method() dppca.Method { return s.method }

// Applies reports whether the setting keyed key applies to the method:
// δ only to the Gaussian methods, the component share and the DP SVM's
// perturbation not to pca-dpsvm (exact components, output perturbation).
func (s *Settings) Applies(key string) bool {
	switch key {
	case "delta":
		return s.method.Gaussian()
	case "component_share", "dp_svm":
		return s.method != dppca.PCADPSVM
	}
	return true
}

// SetDefaults fills the zero fields.
func (s *Settings) SetDefaults() {
	s.Calibration = cmp.Or(s.Calibration, dppca.Sound)
	s.Scaling = cmp.Or(s.Scaling, ScaleBox)
	if s.K == 0 && s.Contribution == 0 {
		s.Contribution = dppca.DefaultContribution
	}
	s.C = cmp.Or(s.C, 1)
	s.Huber = cmp.Or(s.Huber, dppca.DefaultHuber)
	if s.method == dppca.PCADPSVM {
		s.DPSVM = cmp.Or(s.DPSVM, Output)
	} else {
		s.ComponentShare = cmp.Or(s.ComponentShare, dppca.DefaultComponentShare)
		s.DPSVM = cmp.Or(s.DPSVM, Objective)
	}
}

// DefaultRecords sets δ = 1/n² for the Gaussian methods, as the paper's
// experiments do. It is computed as 1/(n·n), as these methods always
// have (dp.DefaultDelta's 1/n/n can differ in the last bit, and δ is
// published in the model).
func (s *Settings) DefaultRecords(n int) {
	if s.method.Gaussian() && s.Delta == 0 {
		nf := float64(n)
		s.Delta = min(1/(nf*nf), dp.MaxDefaultDelta)
	}
}

// Validate checks the settings, naming each field by its key.
func (s *Settings) Validate() error {
	if _, err := For(s.method); err != nil {
		return err
	}
	if _, err := dppca.ParseCalibration(string(s.Calibration)); err != nil {
		return method.FieldError{Key: "calibration", Err: err}
	}
	for _, key := range []string{"delta", "component_share", "dp_svm"} {
		if !s.Applies(key) && s.set(key) {
			return method.Fieldf(key, "does not apply to %s", s.method)
		}
	}
	switch {
	case !(s.Epsilon > 0) || math.IsInf(s.Epsilon, 0):
		return method.Fieldf("epsilon", "must be positive and finite, got %v", s.Epsilon)
	case !(s.Delta >= 0 && s.Delta < 1):
		return method.Fieldf("delta", "must be in [0, 1), got %v", s.Delta)
	case s.Scaling != ScaleBox && s.Scaling != ScaleNone && s.Scaling != ScaleStandardize:
		return method.Fieldf("scaling", "must be box, none or standardize, got %q", s.Scaling)
	case s.K < 0:
		return method.Fieldf("k", "must not be negative, got %d", s.K)
	case s.K == 0 && !(s.Contribution > 0 && s.Contribution <= 1):
		return method.Fieldf("contribution", "must be in (0, 1], got %v", s.Contribution)
	case s.method != dppca.PCADPSVM && !(s.ComponentShare > 0 && s.ComponentShare < 1):
		return method.Fieldf("component_share", "must be in (0, 1), got %v", s.ComponentShare)
	case s.DPSVM != Objective && s.DPSVM != Output:
		return method.Fieldf("dp_svm", "must be objective or output, got %q", s.DPSVM)
	case !(s.C > 0) || math.IsInf(s.C, 0):
		return method.Fieldf("C", "must be positive and finite, got %v", s.C)
	case !(s.Huber > 0) || math.IsInf(s.Huber, 0):
		return method.Fieldf("huber", "must be positive and finite, got %v", s.Huber)
	case !(s.Lambda >= 0) || math.IsInf(s.Lambda, 0):
		return method.Fieldf("lambda", "must not be negative, got %v", s.Lambda)
	}
	return nil
}

// set reports whether a setting that may not apply was given: for
// pca-dpsvm the DP SVM's perturbation may only be its own, output.
func (s *Settings) set(key string) bool {
	switch key {
	case "delta":
		return s.Delta != 0
	case "component_share":
		return s.ComponentShare != 0
	}
	return s.DPSVM != "" && s.DPSVM != Output
}

// perturbation is the DP SVM's perturbation.
func (s *Settings) perturbation() learn.Perturbation {
	if s.DPSVM == Output {
		return learn.OutputPerturbation
	}
	return learn.ObjectivePerturbation
}

// Result is the in-process detail of a run (Outcome.Detail).
type Result struct {
	Model *model.Model
	Fit   *dppca.Result
	// Clamped counts values clamped to declared bounds (not private:
	// local use only).
	Clamped int
	Elapsed time.Duration
}

// run trains and publishes the method's model from the owner's table:
// encode with the public schema, scale, clip rows to ‖x‖₂ ≤ 1, run
// dppca.Train under an accountant, and package the model with its
// privacy report. The model's JSON is the outcome's data.
func run(ctx context.Context, s *Settings, l method.Local) (*method.Outcome, error) {
	if l.Table == nil || l.Table.Len() < 2 {
		return nil, fmt.Errorf("%s needs a table with at least 2 rows", s.method)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	label := cmp.Or(s.Label, l.Table.Schema.Label)
	if label == "" {
		return nil, method.SettingsError{Err: method.Fieldf("label", "is required: the attribute to predict")}
	}
	start := time.Now()
	enc, X, y, classes, clamped, err := encode(l.Table, label, s.Features)
	if err != nil {
		return nil, err
	}
	centre, scale := scalingOf(s.Scaling, X)
	applyScaling(X, centre, scale)
	dppca.ClipRows(X)
	budget := dp.Pure(s.Epsilon)
	if s.method.Gaussian() {
		budget = dp.Approx(s.Epsilon, s.Delta)
	}
	owner := cmp.Or(l.Name, Party)
	acct, err := privacy.NewAccountant(privacy.AccountantOptions{Party: owner, Budget: budget})
	if err != nil {
		return nil, err
	}
	so := learn.DefaultSVMOptions()
	so.C = s.C
	dso := learn.DefaultDPERMOptions(1)
	dso.Loss, dso.Lambda, dso.Huber, dso.Method = learn.HuberHinge, s.Lambda, s.Huber, s.perturbation()
	fit, err := dppca.Train(X, y, classes, dppca.Options{Method: s.method, Calibration: s.Calibration,
		Epsilon: s.Epsilon, Delta: s.Delta, Select: dppca.SelectOptions{Contribution: s.Contribution, K: s.K},
		ComponentShare: s.ComponentShare, SVM: &so, DPSVM: &dso, Accountant: acct, Source: l.Source})
	if err != nil {
		return nil, err
	}
	_, d := X.Dims()
	report, err := s.report(owner, l, acct, fit, d)
	if err != nil {
		return nil, err
	}
	m, err := model.New(model.Options{Method: string(s.method), Schema: l.Table.Schema, Label: label,
		Features: enc.Attributes(), Centre: centre, Scale: scale, ClipL2: 1,
		Components: fit.Components.Vectors, Classifier: fit.Classifier, Loss: s.lossName(), Privacy: report})
	if err != nil {
		return nil, err
	}
	mj, err := m.JSON()
	if err != nil {
		return nil, err
	}
	l.Note(string(s.method), l.Table.Len(), clamped, "components", fit.Components.K)
	summary := fmt.Sprintf("k = %d components, %d binary model(s)", fit.Components.K, fit.BinaryModels)
	return &method.Outcome{Data: mj, Report: report, Summary: summary,
		Detail: &Result{Model: m, Fit: fit, Clamped: clamped, Elapsed: time.Since(start)}}, nil
}

// encode encodes the features into [0,1] and reads the labels.
func encode(t *data.Table, label string, features []string) (*data.Encoder, *mat.Dense, []int, int, int, error) {
	s := t.Schema
	a, err := s.Attribute(label)
	if err != nil {
		return nil, nil, nil, 0, 0, fmt.Errorf("label: %w", err)
	}
	if a.Kind == data.Numeric {
		return nil, nil, nil, 0, 0, fmt.Errorf("label %q is numeric; it must be categorical or binary", label)
	}
	exclude := []string{label}
	if len(features) > 0 {
		for _, name := range s.Names() {
			if name != label && !slices.Contains(features, name) {
				exclude = append(exclude, name)
			}
		}
	}
	enc, err := data.NewEncoder(s, data.EncoderOptions{Exclude: exclude})
	if err != nil {
		return nil, nil, nil, 0, 0, err
	}
	X, st, err := enc.Encode(t)
	if err != nil {
		return nil, nil, nil, 0, 0, err
	}
	y, err := t.Column(label)
	if err != nil {
		return nil, nil, nil, 0, 0, err
	}
	labels := make([]int, len(y))
	for i, v := range y {
		labels[i] = int(v)
	}
	return enc, X, labels, len(a.Categories), st.Clamped, nil
}

// scalingOf returns the centre and scale of a scaling (nil: none).
func scalingOf(s Scaling, X *mat.Dense) (centre, scale []float64) {
	n, d := X.Dims()
	switch s {
	case ScaleBox:
		centre = make([]float64, d)
		for j := range centre {
			centre[j] = 0.5
		}
	case ScaleStandardize:
		centre, scale = make([]float64, d), make([]float64, d)
		for i := range n {
			for j, v := range X.RawRowView(i) {
				centre[j] += v
			}
		}
		for j := range centre {
			centre[j] /= float64(n)
		}
		for i := range n {
			for j, v := range X.RawRowView(i) {
				scale[j] += (v - centre[j]) * (v - centre[j])
			}
		}
		for j := range scale {
			scale[j] = math.Sqrt(scale[j] / float64(n))
			if !(scale[j] > 1e-12) {
				scale[j] = 1
			}
		}
	}
	return centre, scale
}

func applyScaling(X *mat.Dense, centre, scale []float64) {
	n, _ := X.Dims()
	for i := range n {
		row := X.RawRowView(i)
		for j := range row {
			if centre != nil {
				row[j] -= centre[j]
			}
			if scale != nil {
				row[j] /= scale[j]
			}
		}
	}
}

func (s *Settings) lossName() string {
	switch {
	case s.Calibration == dppca.Sound:
		return learn.HuberHinge.String()
	case s.method == dppca.PCADPSVM:
		return learn.Hinge.String()
	}
	return learn.SquaredHinge.String()
}

// report is the privacy report of a run on d encoded columns; the model
// embeds it, so every warning is in it before the model is built.
func (s *Settings) report(owner string, l method.Local, acct *privacy.Accountant, fit *dppca.Result, d int) (*privacy.Report, error) {
	n := l.Table.Len()
	ro := privacy.ReportOptions{
		Method: string(s.method), Calibration: string(s.Calibration), Randomness: l.Source.Describe(),
		Composition: privacy.Single, Accountants: []*privacy.Accountant{acct},
		Records: map[string]int{owner: n}, Seeded: !l.Source.IsSecure(), NotDP: s.notDP(),
		Assumptions: []string{
			fmt.Sprintf("the record count n = %d is public: the noise scales (and the default δ = 1/n²) depend on it", n),
			"numeric attributes are clamped to the bounds declared in the schema, and the label's categories are declared there too; both are public",
			"every encoded row is scaled onto the unit ball (‖x‖₂ ≤ 1), a per-record map on which every sensitivity rests",
			"rows with a missing value are dropped before the release, as in the papers",
		},
		NotCovered: []string{fmt.Sprintf("the record count n = %d (released exactly)", n)},
	}
	if s.Scaling == ScaleStandardize {
		ro.NotCovered = append(ro.NotCovered, "the per-column mean and standard deviation used to standardise the features: computed exactly from the records and published in the model")
		ro.Warnings = append(ro.Warnings, "scaling=standardize publishes exact statistics of the records: the model is NOT differentially private")
	}
	covered, notCovered, warnings := s.coverage(fit)
	ro.Covered = append(ro.Covered, covered...)
	ro.NotCovered = append(ro.NotCovered, notCovered...)
	ro.Warnings = append(ro.Warnings, warnings...)
	// From the public noise plan and d alone, so it may be published.
	if w := dppca.NoiseWarning(fit, d); w != "" {
		ro.Warnings = append(ro.Warnings, w)
	}
	return privacy.NewReport(ro)
}

// notDP says which part of the published model is computed without DP,
// or "" when all of it is DP.
func (s *Settings) notDP() string {
	var parts []string
	switch {
	case s.method == dppca.PCADPSVM:
		parts = append(parts, "the principal components are computed exactly from the records")
	case s.Calibration == dppca.Paper:
		parts = append(parts, "the classifier is trained without privacy on the projected records")
	}
	if s.Scaling == ScaleStandardize {
		parts = append(parts, "the standardisation's exact means and standard deviations are published")
	}
	return strings.Join(parts, "; ")
}

// coverage says, in words, which parts of the model DP covers.
func (s *Settings) coverage(fit *dppca.Result) (covered, notCovered, warnings []string) {
	comps := fmt.Sprintf("the principal components (k = %d, chosen from the noisy eigenvalues) and their eigenvalues", fit.Components.K)
	svmSplit := fmt.Sprintf("ε = %.4g split evenly over %d binary model(s) (one-vs-rest, sequential composition)", fit.SVMEpsilon, fit.BinaryModels)
	switch {
	case s.method == dppca.PCADPSVM && s.Calibration == dppca.Paper:
		notCovered = append(notCovered,
			"the principal components: computed exactly from the records (no noise)",
			"the intercepts b: released without noise, as in the paper ('b does not contain information about training data' is false)",
			"the weights w: Lap(2Cnd/ε) noise bounds their change only for components fixed in advance; the components are not")
		warnings = append(warnings, "pca-dpsvm (paper): the published model is NOT differentially private; the charge below is the paper's claim for w alone")
	case s.method == dppca.PCADPSVM:
		notCovered = append(notCovered,
			"the principal components: computed exactly from the records (no noise)",
			"the classifier: output perturbation ("+svmSplit+") would make it DP for components fixed independently of the records, but these components are computed from the same records")
		warnings = append(warnings, "pca-dpsvm: exact PCA on the same records breaks the guarantee; the published model is NOT differentially private (use dppca-svm, ag-svm or mod-sulq-svm with the sound calibration for an end-to-end DP model)")
	case s.Calibration == dppca.Paper:
		covered = append(covered, comps)
		notCovered = append(notCovered, "the classifier (weights and intercepts): an SVM trained without privacy on the projections of the real records, as in the paper")
		warnings = append(warnings, "paper calibration: only the components are DP; the classifier is NOT (retrain with --calibration sound for an end-to-end DP model)")
	default:
		covered = append(covered, comps,
			"the classifier (weights and intercepts): a Huber-hinge SVM trained by "+s.perturbation().String()+" on the rows projected with the released components, "+svmSplit)
		if s.Scaling != ScaleStandardize {
			covered = append(covered, "hence the whole published model, by adaptive sequential composition")
		}
	}
	return covered, notCovered, warnings
}
