package publish

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/dppub/dppub/algo/dppca"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/learn"
	"github.com/dppub/dppub/model"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

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

// ParseScaling checks a scaling name.
func ParseScaling(s string) (Scaling, error) {
	switch Scaling(s) {
	case ScaleBox, ScaleNone, ScaleStandardize:
		return Scaling(s), nil
	}
	return "", fmt.Errorf("publish: unknown scaling %q (want box, none or standardize)", s)
}

// DPPCASVMOptions configure DPPCASVM.
type DPPCASVMOptions struct {
	Method dppca.Method
	// Table holds the training records of the single data owner.
	Table *data.Table
	// Label is the categorical or binary attribute to predict; Features
	// are the attributes to use (nil: all others).
	Label    string
	Features []string
	// Epsilon is the whole budget; Delta (ag-svm, mod-sulq-svm) defaults
	// to 1/n² as in the paper's experiments.
	Epsilon, Delta float64
	Calibration    dppca.Calibration // default sound
	Scaling        Scaling           // default box
	// Contribution is α (default 0.85) unless K > 0 fixes k.
	Contribution float64
	K            int
	// ComponentShare is the share of ε spent on the components by the
	// sound calibration (default 0.5).
	ComponentShare float64
	// C is the cost of the paper's non-private SVM (default 1).
	C float64
	// Lambda and Huber configure the sound DP SVM (defaults
	// dppca.DefaultLambda and dppca.DefaultHuber); Perturbation 0 means
	// objective (output for pca-dpsvm).
	Lambda, Huber float64
	Perturbation  learn.Perturbation
	Source        *randx.Source
}

// DPPCASVMResult is the published model and what it cost.
type DPPCASVMResult struct {
	Model  *model.Model
	Report *privacy.Report
	Fit    *dppca.Result
	// Clamped counts values clamped to declared bounds (not private:
	// local use only).
	Clamped int
	Elapsed time.Duration
}

// DPPCAParty names the single data owner of the DPPCA-SVM methods.
const DPPCAParty = "data-owner"

func (o *DPPCASVMOptions) defaults() {
	if o.Calibration == "" {
		o.Calibration = dppca.Sound
	}
	if o.Scaling == "" {
		o.Scaling = ScaleBox
	}
	if o.K == 0 && o.Contribution == 0 {
		o.Contribution = dppca.DefaultContribution
	}
	if o.C == 0 {
		o.C = 1
	}
	if o.Huber == 0 {
		o.Huber = dppca.DefaultHuber
	}
	if o.Perturbation == 0 {
		o.Perturbation = learn.ObjectivePerturbation
		if o.Method == dppca.PCADPSVM {
			o.Perturbation = learn.OutputPerturbation
		}
	}
	if o.Source == nil {
		o.Source = randx.NewSecure()
	}
	if o.Delta == 0 && o.Method.Gaussian() && o.Table != nil && o.Table.Len() > 0 {
		n := float64(o.Table.Len())
		o.Delta = 1 / (n * n)
	}
}

// DPPCASVM trains and publishes one of the four methods' models from one
// owner's table: encode with the public schema, scale, clip rows to
// ‖x‖₂ ≤ 1, run dppca.Train under an accountant, and package the model
// with its privacy report.
func DPPCASVM(o DPPCASVMOptions) (*DPPCASVMResult, error) {
	o.defaults()
	if o.Table == nil || o.Table.Len() < 2 {
		return nil, fmt.Errorf("publish: %s needs a table with at least 2 rows", o.Method)
	}
	if _, err := ParseScaling(string(o.Scaling)); err != nil {
		return nil, err
	}
	start := time.Now()
	enc, X, y, classes, clamped, err := encodeForDPPCA(o)
	if err != nil {
		return nil, err
	}
	centre, scale := scalingOf(o.Scaling, X)
	applyScaling(X, centre, scale)
	dppca.ClipRows(X)
	budget := dp.Pure(o.Epsilon)
	if o.Method.Gaussian() {
		budget = dp.Approx(o.Epsilon, o.Delta)
	}
	acct, err := privacy.NewAccountant(privacy.AccountantOptions{Party: DPPCAParty, Budget: budget})
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	so := learn.DefaultSVMOptions()
	so.C = o.C
	dso := learn.DefaultDPERMOptions(1)
	dso.Loss, dso.Lambda, dso.Huber, dso.Method = learn.HuberHinge, o.Lambda, o.Huber, o.Perturbation
	fit, err := dppca.Train(X, y, classes, dppca.Options{Method: o.Method, Calibration: o.Calibration,
		Epsilon: o.Epsilon, Delta: o.Delta, Select: dppca.SelectOptions{Contribution: o.Contribution, K: o.K},
		ComponentShare: o.ComponentShare, SVM: &so, DPSVM: &dso, Accountant: acct, Source: o.Source})
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	report, err := dppcaReport(o, acct, fit)
	if err != nil {
		return nil, err
	}
	m, err := model.New(model.Options{Method: string(o.Method), Schema: o.Table.Schema, Label: o.Label,
		Features: enc.Attributes(), Centre: centre, Scale: scale, ClipL2: 1,
		Components: fit.Components.Vectors, Classifier: fit.Classifier, Loss: lossName(o), Privacy: report})
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	return &DPPCASVMResult{Model: m, Report: report, Fit: fit, Clamped: clamped, Elapsed: time.Since(start)}, nil
}

// encodeForDPPCA encodes the features into [0,1] and reads the labels.
func encodeForDPPCA(o DPPCASVMOptions) (*data.Encoder, *mat.Dense, []int, int, int, error) {
	s := o.Table.Schema
	label, err := s.Attribute(o.Label)
	if err != nil {
		return nil, nil, nil, 0, 0, fmt.Errorf("publish: label: %w", err)
	}
	if label.Kind == data.Numeric {
		return nil, nil, nil, 0, 0, fmt.Errorf("publish: label %q is numeric; it must be categorical or binary", o.Label)
	}
	exclude := []string{o.Label}
	if o.Features != nil {
		for _, name := range s.Names() {
			if name != o.Label && !slices.Contains(o.Features, name) {
				exclude = append(exclude, name)
			}
		}
	}
	enc, err := data.NewEncoder(s, data.EncoderOptions{Exclude: exclude})
	if err != nil {
		return nil, nil, nil, 0, 0, fmt.Errorf("publish: %w", err)
	}
	X, st, err := enc.Encode(o.Table)
	if err != nil {
		return nil, nil, nil, 0, 0, fmt.Errorf("publish: %w", err)
	}
	y, err := o.Table.Column(o.Label)
	if err != nil {
		return nil, nil, nil, 0, 0, fmt.Errorf("publish: %w", err)
	}
	labels := make([]int, len(y))
	for i, v := range y {
		labels[i] = int(v)
	}
	return enc, X, labels, len(label.Categories), st.Clamped, nil
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

func lossName(o DPPCASVMOptions) string {
	switch {
	case o.Calibration == dppca.Sound:
		return learn.HuberHinge.String()
	case o.Method == dppca.PCADPSVM:
		return learn.Hinge.String()
	}
	return learn.SquaredHinge.String()
}

func dppcaReport(o DPPCASVMOptions, acct *privacy.Accountant, fit *dppca.Result) (*privacy.Report, error) {
	n := o.Table.Len()
	ro := privacy.ReportOptions{
		Method: string(o.Method), Calibration: string(o.Calibration), Randomness: o.Source.Describe(),
		Composition: privacy.Single, Accountants: []*privacy.Accountant{acct},
		Records: map[string]int{DPPCAParty: n}, Seeded: !o.Source.IsSecure(), NotDP: dppcaNotDP(o),
		Assumptions: []string{
			fmt.Sprintf("the record count n = %d is public: the noise scales (and the default δ = 1/n²) depend on it", n),
			"numeric attributes are clamped to the bounds declared in the schema, and the label's categories are declared there too; both are public",
			"every encoded row is scaled onto the unit ball (‖x‖₂ ≤ 1), a per-record map on which every sensitivity rests",
			"rows with a missing value are dropped before the release, as in the papers",
		},
		NotCovered: []string{fmt.Sprintf("the record count n = %d (released exactly)", n)},
	}
	if o.Scaling == ScaleStandardize {
		ro.NotCovered = append(ro.NotCovered, "the per-column mean and standard deviation used to standardise the features: computed exactly from the records and published in the model")
		ro.Warnings = append(ro.Warnings, "scaling=standardize publishes exact statistics of the records: the model is NOT differentially private")
	}
	covered, notCovered, warnings := dppcaCoverage(o, fit)
	ro.Covered = append(ro.Covered, covered...)
	ro.NotCovered = append(ro.NotCovered, notCovered...)
	ro.Warnings = append(ro.Warnings, warnings...)
	r, err := privacy.NewReport(ro)
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	return r, nil
}

// dppcaNotDP says which part of the published model is computed without
// DP, or "" when all of it is DP.
func dppcaNotDP(o DPPCASVMOptions) string {
	var parts []string
	switch {
	case o.Method == dppca.PCADPSVM:
		parts = append(parts, "the principal components are computed exactly from the records")
	case o.Calibration == dppca.Paper:
		parts = append(parts, "the classifier is trained without privacy on the projected records")
	}
	if o.Scaling == ScaleStandardize {
		parts = append(parts, "the standardisation's exact means and standard deviations are published")
	}
	return strings.Join(parts, "; ")
}

// dppcaCoverage says, in words, which parts of the model DP covers.
func dppcaCoverage(o DPPCASVMOptions, fit *dppca.Result) (covered, notCovered, warnings []string) {
	comps := fmt.Sprintf("the principal components (k = %d, chosen from the noisy eigenvalues) and their eigenvalues", fit.Components.K)
	svmSplit := fmt.Sprintf("ε = %.4g split evenly over %d binary model(s) (one-vs-rest, sequential composition)", fit.SVMEpsilon, fit.BinaryModels)
	switch {
	case o.Method == dppca.PCADPSVM && o.Calibration == dppca.Paper:
		notCovered = append(notCovered,
			"the principal components: computed exactly from the records (no noise)",
			"the intercepts b: released without noise, as in the paper ('b does not contain information about training data' is false)",
			"the weights w: Lap(2Cnd/ε) noise bounds their change only for components fixed in advance; the components are not")
		warnings = append(warnings, "pca-dpsvm (paper): the published model is NOT differentially private; the charge below is the paper's claim for w alone")
	case o.Method == dppca.PCADPSVM:
		notCovered = append(notCovered,
			"the principal components: computed exactly from the records (no noise)",
			"the classifier: output perturbation ("+svmSplit+") would make it DP for components fixed independently of the records, but these components are computed from the same records")
		warnings = append(warnings, "pca-dpsvm: exact PCA on the same records breaks the guarantee; the published model is NOT differentially private (use dppca-svm, ag-svm or mod-sulq-svm with the sound calibration for an end-to-end DP model)")
	case o.Calibration == dppca.Paper:
		covered = append(covered, comps)
		notCovered = append(notCovered, "the classifier (weights and intercepts): an SVM trained without privacy on the projections of the real records, as in the paper")
		warnings = append(warnings, "paper calibration: only the components are DP; the classifier is NOT (retrain with --calibration sound for an end-to-end DP model)")
	default:
		covered = append(covered, comps,
			"the classifier (weights and intercepts): a Huber-hinge SVM trained by "+o.Perturbation.String()+" on the rows projected with the released components, "+svmSplit)
		if o.Scaling != ScaleStandardize {
			covered = append(covered, "hence the whole published model, by adaptive sequential composition")
		}
	}
	return covered, notCovered, warnings
}
