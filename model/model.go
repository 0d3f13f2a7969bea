package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/learn"
	"github.com/dppub/dppub/privacy"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Format is the version tag of the JSON document.
const Format = "dppub-model/1"

// Encoding names the only encoding so far: data.Encoder's.
const Encoding = "unit-box"

// Multiclass strategies.
const (
	Binary    = "binary"
	OneVsRest = "one-vs-rest"
)

// Methods are the methods whose classifiers this format holds, as their
// models name them ("method"): DPPCA-SVM and its three baselines,
// MP-CRDP's logistic regression and SVM, and LDA-DP / Mul-LDA-DP's
// discriminant (converted by method/mullda). A model naming another
// method was not written by this dppub, and the pipeline above may not
// be what that method means: Read refuses it rather than apply it.
var Methods = []string{"dppca-svm", "pca-dpsvm", "ag-svm", "mod-sulq-svm", "mp-crdp-logreg", "mp-crdp-svm", "lda-dp", "mul-lda-dp"}

// Model is a published classifier. Build one with New or Read; the zero
// value is not usable.
type Model struct {
	Format string `json:"format"`
	Method string `json:"method"`
	// Schema declares the attributes the model reads (features and the
	// label), with their public bounds and categories.
	Schema data.Schema `json:"schema"`
	// Label is the predicted attribute; Classes are its categories in
	// class-index order.
	Label   string   `json:"label"`
	Classes []string `json:"classes"`
	// Positive, when set, makes the task binary: class 1 when the label is
	// one of these categories, class 0 otherwise; Classes then name the
	// two classes.
	Positive   []string    `json:"positive,omitempty"`
	Preprocess Preprocess  `json:"preprocess"`
	Projection *Projection `json:"projection,omitempty"`
	Classifier Classifier  `json:"classifier"`
	// Privacy is the report of the release; PrivacyReport names a report
	// file instead when it is not embedded.
	Privacy       *privacy.Report `json:"privacy,omitempty"`
	PrivacyReport string          `json:"privacy_report,omitempty"`

	enc *data.Encoder
}

// Preprocess is what happens to an encoded row before projection.
type Preprocess struct {
	Encoding string `json:"encoding"`
	// Columns names the encoded columns (data.Encoder.ColumnNames).
	Columns []string `json:"columns"`
	// Centre is subtracted and Scale divides, per encoded column.
	Centre []float64 `json:"centre,omitempty"`
	Scale  []float64 `json:"scale,omitempty"`
	// NormalizeL2 scales every nonzero row to unit Euclidean norm (after
	// centring and scaling, before clipping).
	NormalizeL2 bool `json:"normalize_l2,omitempty"`
	// ClipL2 > 0 scales rows with a larger Euclidean norm down to it.
	ClipL2 float64 `json:"clip_l2,omitempty"`
}

// Projection maps a preprocessed row x to y = Vᵀ(x − Mean).
type Projection struct {
	Mean []float64 `json:"mean,omitempty"`
	// Components holds the k vectors, each of the encoded dimension.
	Components [][]float64 `json:"components"`
}

// Classifier is one linear scorer per binary problem.
type Classifier struct {
	Kind string `json:"kind"` // "linear"
	// Loss names the training loss, for the reader (e.g. "huber-hinge").
	Loss       string      `json:"loss,omitempty"`
	Multiclass string      `json:"multiclass"`
	Weights    [][]float64 `json:"weights"`
	Intercepts []float64   `json:"intercepts"`
}

// Options build a Model with New.
type Options struct {
	Method string
	// Schema is the training table's schema; the model keeps the label
	// and the Features (all other attributes when nil).
	Schema   data.Schema
	Label    string
	Features []string
	// Positive and Classes as in Model: with Positive, Classes name the
	// two classes (default "other" and "in:" the positive categories).
	Positive, Classes []string
	// Centre, Scale, NormalizeL2 and ClipL2 as in Preprocess.
	Centre, Scale []float64
	NormalizeL2   bool
	ClipL2        float64
	// Components (d×k, one component per column) and Mean, optional.
	Components *mat.Dense
	Mean       []float64
	Classifier *learn.Classifier
	Loss       string
	Privacy    *privacy.Report
}

// New builds and validates a model.
func New(o Options) (*Model, error) {
	schema, err := keptSchema(o.Schema, o.Label, o.Features)
	if err != nil {
		return nil, err
	}
	enc, err := featureEncoder(schema, o.Label)
	if err != nil {
		return nil, err
	}
	if o.Classifier == nil {
		return nil, errors.New("model: no classifier")
	}
	m := &Model{Format: Format, Method: o.Method, Schema: schema, Label: o.Label,
		Classes: slices.Clone(o.Classes), Positive: slices.Clone(o.Positive),
		Preprocess: Preprocess{Encoding: Encoding, Columns: enc.ColumnNames(), Centre: slices.Clone(o.Centre),
			Scale: slices.Clone(o.Scale), NormalizeL2: o.NormalizeL2, ClipL2: o.ClipL2},
		Classifier: fromLearn(o.Classifier, o.Loss), Privacy: o.Privacy}
	if o.Components != nil {
		m.Projection = &Projection{Mean: slices.Clone(o.Mean), Components: columns(o.Components)}
	}
	if err := m.init(); err != nil {
		return nil, err
	}
	return m, nil
}

// keptSchema selects the features and the label (label last), without
// an ID column.
func keptSchema(s data.Schema, label string, features []string) (data.Schema, error) {
	a, err := s.Attribute(label)
	if err != nil {
		return data.Schema{}, fmt.Errorf("model: label: %w", err)
	}
	if a.Kind == data.Numeric {
		return data.Schema{}, fmt.Errorf("model: label %q is numeric; a classifier needs a categorical or binary label", label)
	}
	if features == nil {
		for _, name := range s.Names() {
			if name != label {
				features = append(features, name)
			}
		}
	}
	if slices.Contains(features, label) {
		return data.Schema{}, fmt.Errorf("model: label %q is also a feature", label)
	}
	kept, err := s.Select(append(slices.Clone(features), label)...)
	if err != nil {
		return data.Schema{}, fmt.Errorf("model: %w", err)
	}
	kept.ID = ""
	return kept, nil
}

func featureEncoder(s data.Schema, label string) (*data.Encoder, error) {
	enc, err := data.NewEncoder(s, data.EncoderOptions{Exclude: []string{label}})
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	return enc, nil
}

func fromLearn(c *learn.Classifier, loss string) Classifier {
	out := Classifier{Kind: "linear", Loss: loss, Multiclass: OneVsRest}
	if c.Classes == 2 && len(c.Models) == 1 {
		out.Multiclass = Binary
	}
	for _, m := range c.Models {
		out.Weights = append(out.Weights, slices.Clone(m.W))
		out.Intercepts = append(out.Intercepts, m.B)
	}
	return out
}

func columns(m *mat.Dense) [][]float64 {
	_, c := m.Dims()
	out := make([][]float64, c)
	for j := range out {
		out[j] = mat.Col(nil, j, m)
	}
	return out
}

// init validates a decoded or built model and prepares its encoder.
func (m *Model) init() error {
	if m.Format != Format {
		return fmt.Errorf("model: format %q, want %q", m.Format, Format)
	}
	if !slices.Contains(Methods, m.Method) {
		return fmt.Errorf("model: unknown method %q: dppub applies models of %s", m.Method, strings.Join(Methods, ", "))
	}
	if err := m.Schema.Validate(); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	label, err := m.Schema.Attribute(m.Label)
	if err != nil {
		return fmt.Errorf("model: label: %w", err)
	}
	if label.Kind == data.Numeric {
		return fmt.Errorf("model: label %q is numeric", m.Label)
	}
	if err := m.initClasses(label); err != nil {
		return err
	}
	enc, err := featureEncoder(m.Schema, m.Label)
	if err != nil {
		return err
	}
	m.enc = enc
	d, err := m.Preprocess.check(enc)
	if err != nil {
		return err
	}
	if m.Projection != nil {
		if d, err = m.Projection.check(d); err != nil {
			return err
		}
	}
	return m.Classifier.check(d, len(m.Classes))
}

// initClasses checks the classes against the label's categories: equal
// to them, or two classes and positive categories of the label.
func (m *Model) initClasses(label data.Attribute) error {
	if m.Positive == nil {
		if m.Classes == nil {
			m.Classes = slices.Clone(label.Categories)
		}
		if !slices.Equal(m.Classes, label.Categories) {
			return fmt.Errorf("model: classes %q differ from the categories of label %q", m.Classes, m.Label)
		}
		return nil
	}
	if len(m.Positive) == 0 {
		return fmt.Errorf("model: an empty list of positive categories of label %q", m.Label)
	}
	for _, c := range m.Positive {
		if !slices.Contains(label.Categories, c) {
			return fmt.Errorf("model: positive category %q is not a category of label %q (%q)", c, m.Label, label.Categories)
		}
	}
	if m.Classes == nil {
		m.Classes = []string{"other", "in:" + strings.Join(m.Positive, "|")}
	}
	if len(m.Classes) != 2 {
		return fmt.Errorf("model: a task with positive categories has two classes, got %q", m.Classes)
	}
	return nil
}

func (p Preprocess) check(enc *data.Encoder) (int, error) {
	d := enc.Dim()
	switch {
	case p.Encoding != Encoding:
		return 0, fmt.Errorf("model: unknown encoding %q (want %q)", p.Encoding, Encoding)
	case !slices.Equal(p.Columns, enc.ColumnNames()):
		return 0, fmt.Errorf("model: encoded columns %q do not match the schema's %q", p.Columns, enc.ColumnNames())
	case p.Centre != nil && len(p.Centre) != d:
		return 0, fmt.Errorf("model: centre has %d values for %d encoded columns", len(p.Centre), d)
	case p.Scale != nil && len(p.Scale) != d:
		return 0, fmt.Errorf("model: scale has %d values for %d encoded columns", len(p.Scale), d)
	case !(p.ClipL2 >= 0) || math.IsInf(p.ClipL2, 0):
		return 0, fmt.Errorf("model: clip bound %v is not a finite non-negative number", p.ClipL2)
	}
	if err := allFinite("centre", p.Centre); err != nil {
		return 0, err
	}
	for j, s := range p.Scale {
		if !(s > 0) || math.IsInf(s, 0) {
			return 0, fmt.Errorf("model: scale[%d] = %v is not positive and finite", j, s)
		}
	}
	return d, nil
}

func (p *Projection) check(d int) (int, error) {
	if len(p.Components) == 0 {
		return 0, errors.New("model: projection without components")
	}
	if p.Mean != nil && len(p.Mean) != d {
		return 0, fmt.Errorf("model: projection mean has %d values for %d columns", len(p.Mean), d)
	}
	if err := allFinite("projection mean", p.Mean); err != nil {
		return 0, err
	}
	for i, v := range p.Components {
		if len(v) != d {
			return 0, fmt.Errorf("model: component %d has %d values for %d columns", i, len(v), d)
		}
		if err := allFinite(fmt.Sprintf("component %d", i), v); err != nil {
			return 0, err
		}
	}
	return len(p.Components), nil
}

func (c Classifier) check(d, classes int) error {
	want := classes
	switch c.Multiclass {
	case Binary:
		if classes != 2 {
			return fmt.Errorf("model: a binary classifier for %d classes", classes)
		}
		want = 1
	case OneVsRest:
	default:
		return fmt.Errorf("model: unknown multiclass strategy %q (want %q or %q)", c.Multiclass, Binary, OneVsRest)
	}
	if c.Kind != "linear" {
		return fmt.Errorf("model: unknown classifier kind %q (want linear)", c.Kind)
	}
	if len(c.Weights) != want || len(c.Intercepts) != want {
		return fmt.Errorf("model: %s classifier for %d classes needs %d weight vectors and intercepts, has %d and %d",
			c.Multiclass, classes, want, len(c.Weights), len(c.Intercepts))
	}
	for i, w := range c.Weights {
		if len(w) != d {
			return fmt.Errorf("model: weight vector %d has %d values, want %d", i, len(w), d)
		}
		if err := allFinite(fmt.Sprintf("weight vector %d", i), w); err != nil {
			return err
		}
	}
	return allFinite("intercepts", c.Intercepts)
}

func allFinite(what string, v []float64) error {
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("model: %s[%d] = %v is not finite", what, i, x)
		}
	}
	return nil
}

// FeatureSchema is the schema of the attributes the model reads, without
// the label.
func (m *Model) FeatureSchema() data.Schema { return m.enc.Schema() }

// ClassName returns the name of class c.
func (m *Model) ClassName(c int) string { return m.Classes[c] }

// Apply predicts the class index of every row of t. t must declare the
// model's features exactly as the model's schema does (bounds and
// categories); it may hold other attributes too.
func (m *Model) Apply(t *data.Table) ([]int, error) {
	X, _, err := m.enc.Encode(t)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	n, _ := X.Dims()
	pred := make([]int, n)
	var y []float64
	if m.Projection != nil {
		y = make([]float64, len(m.Projection.Components))
	}
	for i := range n {
		x := X.RawRowView(i)
		m.Preprocess.apply(x)
		if m.Projection != nil {
			m.Projection.apply(y, x)
			x = y
		}
		pred[i] = m.Classifier.predict(x)
	}
	return pred, nil
}

func (p Preprocess) apply(x []float64) {
	for j := range x {
		if p.Centre != nil {
			x[j] -= p.Centre[j]
		}
		if p.Scale != nil {
			x[j] /= p.Scale[j]
		}
	}
	if p.NormalizeL2 {
		if norm := floats.Norm(x, 2); norm > 0 {
			floats.Scale(1/norm, x)
		}
	}
	if p.ClipL2 > 0 {
		if norm := floats.Norm(x, 2); norm > p.ClipL2 {
			for j := range x {
				x[j] *= p.ClipL2 / norm
			}
		}
	}
}

func (p *Projection) apply(y, x []float64) {
	for c, v := range p.Components {
		s := 0.0
		for j, xj := range x {
			if p.Mean != nil {
				xj -= p.Mean[j]
			}
			s += v[j] * xj
		}
		y[c] = s
	}
}

func (c Classifier) predict(x []float64) int {
	score := func(k int) float64 {
		s := c.Intercepts[k]
		for j, w := range c.Weights[k] {
			s += w * x[j]
		}
		return s
	}
	if c.Multiclass == Binary {
		if score(0) > 0 {
			return 1
		}
		return 0
	}
	best, bestScore := 0, math.Inf(-1)
	for k := range c.Weights {
		if s := score(k); s > bestScore {
			best, bestScore = k, s
		}
	}
	return best
}

// Truth returns the class index of every row of t from its label column,
// and false if t has no label column. The label must be declared with the
// model's categories.
func (m *Model) Truth(t *data.Table) ([]int, bool, error) {
	j, err := t.Schema.Index(m.Label)
	if err != nil {
		return nil, false, nil
	}
	got := t.Schema.Attributes[j].Categories
	want, _ := m.Schema.Attribute(m.Label) // checked by init
	if !slices.Equal(got, want.Categories) {
		return nil, false, fmt.Errorf("model: the table's label %q has categories %q, the model's %q", m.Label, got, want.Categories)
	}
	y := make([]int, t.Len())
	for i, row := range t.Rows {
		y[i] = int(row[j])
		if m.Positive != nil {
			y[i] = 0
			if slices.Contains(m.Positive, got[int(row[j])]) {
				y[i] = 1
			}
		}
	}
	return y, true, nil
}

// JSON returns the model as indented JSON.
func (m *Model) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	return append(b, '\n'), nil
}

// Read decodes and validates a model.
func Read(r io.Reader) (*Model, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var m Model
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("model: decode: %w", err)
	}
	if err := m.init(); err != nil {
		return nil, err
	}
	return &m, nil
}

// Load reads a model file.
func Load(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	defer f.Close()
	m, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	return m, nil
}
