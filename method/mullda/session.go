// Package mullda defines LDA-DP (one owner, the paper's Algorithm 1) and
// Mul-LDA-DP (owners of rows with correlated noise from a dealer,
// Algorithm 2) as methods: settings, session, roles, published files and
// privacy report, once for the one-process and the networked run.
package mullda

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/method/mullda/lda"
	proto "github.com/dppub/dppub/method/mullda/roles"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// The methods' names and roles (owners have method.RoleOwner).
const (
	NameSingle    = "lda-dp"
	NameMulti     = "mul-lda-dp"
	RolePublisher = "publisher"
	RoleDealer    = "dealer"
)

// Settings are LDA-DP's and Mul-LDA-DP's settings.
type Settings struct {
	// Label is the class attribute (categorical or binary). With
	// Positive set, the task is binary: class 1 when the label is in
	// Positive.
	Label    string   `json:"label" help:"class attribute, categorical or binary (default: the dataset's label)"`
	Positive []string `json:"positive,omitempty" help:"categories of --label forming class 1 of a binary task (comma-separated)"`
	// Exclude lists further attributes left out of the features.
	Exclude []string `json:"exclude,omitempty" help:"attributes left out of the features (comma-separated)"`
	// Epsilon and Delta are each owner's budget; Delta 0 in one process
	// means 1/n² of all the owners' records (at most 1e-5).
	Epsilon     float64         `json:"epsilon" help:"privacy budget ε of each owner"`
	Delta       float64         `json:"delta" help:"δ of each owner (default 1/n² of all the owners' n records, at most 1e-5)"`
	Calibration lda.Calibration `json:"calibration,omitempty" help:"sound | paper"`
	Noise       lda.NoiseMode   `json:"noise,omitempty" help:"correlated | independent (several owners)"`
	// PublicCounts releases the class counts exactly (sound only; the
	// paper calibration always does).
	PublicCounts bool `json:"public_counts,omitempty" help:"release the class counts exactly, declaring them public (sound calibration)"`
	// PaperProjections publishes the owners' real projections (the
	// paper's; NOT DP) instead of synthetic ones.
	PaperProjections bool `json:"paper_projections,omitempty" help:"publish X·w of the real rows as the paper does (NOT covered by DP)"`
	// Ridge overrides the default ridge (σ√p of the aggregate's noise).
	Ridge float64 `json:"ridge,omitempty" help:"ridge added to S_w (default σ√p of the aggregate noise)"`
}

// SetDefaults fills the zero fields: sound calibration, correlated noise.
func (s *Settings) SetDefaults() {
	s.Calibration = cmp.Or(s.Calibration, lda.Sound)
	s.Noise = cmp.Or(s.Noise, lda.Correlated)
}

// DefaultRecords sets δ = 1/n² of the owners' n records together (at
// most dp.MaxDefaultDelta) when none is given.
func (s *Settings) DefaultRecords(records int) {
	if s.Delta == 0 {
		s.Delta = dp.DefaultDeltaCapped(records)
	}
}

// Validate checks the settings.
func (s *Settings) Validate() error {
	if _, err := dp.ParseCalibration(string(s.Calibration), lda.Sound, lda.Paper); err != nil {
		return err
	}
	switch {
	case s.Label == "":
		return fmt.Errorf("the settings need a label")
	case !(s.Epsilon > 0) || math.IsInf(s.Epsilon, 0):
		return fmt.Errorf("epsilon must be positive and finite, got %v", s.Epsilon)
	case !(s.Delta > 0 && s.Delta < 1):
		return fmt.Errorf("delta must be in (0, 1), got %v (over the network it is not derived from the owners' sizes)", s.Delta)
	case s.Calibration == lda.Paper && s.PublicCounts:
		return fmt.Errorf("public_counts is implied by the paper calibration")
	case s.Noise != lda.Correlated && s.Noise != lda.Independent:
		return fmt.Errorf("noise must be correlated or independent, got %q", s.Noise)
	case !(s.Ridge >= 0) || math.IsInf(s.Ridge, 0):
		return fmt.Errorf("ridge must be non-negative and finite, got %v", s.Ridge)
	}
	return nil
}

func (s Settings) output() proto.Output {
	if s.PaperProjections {
		return proto.RealProjections
	}
	return proto.Synthetic
}

// Single is LDA-DP: one owner.
var Single = spec(NameSingle, "a DP linear discriminant from one owner (LDA-DP, Algorithm 1)")

// Multi is Mul-LDA-DP: owners of rows, the paper's correlated noise by
// default.
var Multi = spec(NameMulti, "a DP linear discriminant from owners of rows with a publishing ledger (Mul-LDA-DP)").WithDemo(demo)

func spec(name, summary string) method.Spec {
	return method.Spec{
		Name: name, Summary: summary, Split: method.Rows,
		Coordinator: RolePublisher, MemberRoles: []string{method.RoleOwner, RoleDealer},
		NewSettings: func() method.Settings { return new(Settings) },
		Open:        func(st method.Settings, o method.Open) (method.Session, error) { return open(name, st, o) },
		Decode:      method.DecodeSession[session],
		ReadModel:   readModel,
	}
}

// session is what the publisher sends every owner and the dealer.
type session struct {
	method.RowsSession
	Method   string   `json:"method"`
	Settings Settings `json:"settings"`
	Dealer   string   `json:"dealer,omitempty"`
	derived  method.Derived[derived]
}

// derived is what every side derives from the session, once.
type derived struct {
	agreed  *proto.Agreed
	enc     *data.Encoder
	classes []string
}

func open(name string, st method.Settings, o method.Open) (method.Session, error) {
	rows, err := method.OpenRows(o)
	if err != nil {
		return nil, err
	}
	if name == NameSingle && len(rows.Owners) != 1 {
		return nil, fmt.Errorf("lda-dp takes one owner, got %d (use mul-lda-dp)", len(rows.Owners))
	}
	s := &session{RowsSession: rows, Method: name, Settings: *st.(*Settings)}
	if s.Settings.Noise != lda.Independent && len(rows.Owners) >= 2 {
		if s.Dealer, err = o.Only(RoleDealer); err != nil {
			return nil, fmt.Errorf("correlated noise: %w", err)
		}
	}
	_, err = s.params()
	return s, err
}

// params are the protocol parameters agreed once with their noise plan,
// the session's encoder and its class names.
func (s *session) params() (derived, error) {
	return s.derived.Get(s.derive)
}

// derive derives the protocol parameters, on every side from the same
// session.
func (s *session) derive() (derived, error) {
	st := s.Settings
	if err := st.Validate(); err != nil {
		return derived{}, err
	}
	enc, err := data.NewEncoder(s.Schema, data.EncoderOptions{Exclude: append([]string{st.Label}, st.Exclude...)})
	if err != nil {
		return derived{}, err
	}
	classes, err := ClassNames(s.Schema, st.Label, st.Positive)
	if err != nil {
		return derived{}, err
	}
	p := proto.Params{Session: s.ID, Owners: s.Owners, Publisher: s.Coordinator, Dealer: s.Dealer,
		Plan: lda.PlanOptions{Calibration: st.Calibration, Epsilon: st.Epsilon, Delta: st.Delta, P: enc.Dim(),
			Classes: len(classes), Owners: len(s.Owners), Noise: st.Noise, PublicCounts: st.PublicCounts},
		Ridge: st.Ridge, Output: st.output()}
	if p.NeedsDealer() != (s.Dealer != "") {
		return derived{}, fmt.Errorf("the session's dealer %q does not match its noise mode", s.Dealer)
	}
	agreed, err := proto.Agree(p)
	return derived{agreed: agreed, enc: enc, classes: classes}, err
}

// Members are the owners, then the dealer when the noise is correlated.
func (s *session) Members() []method.Member {
	ms := s.OwnerMembers(dp.Approx(s.Settings.Epsilon, s.Settings.Delta))
	if s.Dealer != "" {
		ms = append(ms, method.Member{Name: s.Dealer, Role: RoleDealer, Draws: true})
	}
	return ms
}

func (s *session) Unsound() bool {
	return s.Settings.Calibration == lda.Paper || s.Settings.PaperProjections
}

// Join builds an owner's or the dealer's role; an attachment of type
// *proto.Ledger connects it to the publishing ledger.
func (s *session) Join(l method.Local) (protocol.Role, error) {
	d, err := s.params()
	if err != nil {
		return nil, err
	}
	enc := d.enc
	lg, err := method.Attached[*proto.Ledger](l.Attach)
	if err != nil {
		return nil, err
	}
	if l.Name == s.Dealer {
		return proto.NewNoiseDealer(proto.DealerOptions{Agreed: d.agreed, Source: l.Source})
	}
	t, err := l.SharedTable(s.Schema)
	if err != nil {
		return nil, err
	}
	X, stats, err := enc.Encode(t)
	if err != nil {
		return nil, err
	}
	data.NormalizeRowsL2(X)
	y, err := Labels(t, s.Settings.Label, s.Settings.Positive)
	if err != nil {
		return nil, err
	}
	l.Note(s.Method, t.Len(), stats.Clamped, "features", enc.Dim())
	return proto.NewOwner(proto.OwnerOptions{ID: l.Name, Agreed: d.agreed, Data: X, Labels: y,
		Accountant: l.Accountant, Source: l.Source, Ledger: lg})
}

// Result is the in-process detail of a run (Outcome.Detail).
type Result struct {
	Directions     *mat.Dense
	Features       []string
	ClassNames     []string
	Projections    *mat.Dense
	Labels         []int
	Estimate       *lda.Estimate
	Plan           *lda.Plan
	Ridge          float64
	Encoder        *data.Encoder
	ArtifactSHA256 string
	// Schema is the session's public schema; Label and Positive are the
	// settings' class attribute and positive categories (the model file
	// carries them).
	Schema   data.Schema
	Label    string
	Positive []string
}

// Coordinate builds the publisher; an attachment of type *proto.Ledger
// connects it to the publishing ledger (as its operator).
func (s *session) Coordinate(src *randx.Source, attach any) (*method.Coordination, error) {
	d, err := s.params()
	if err != nil {
		return nil, err
	}
	lg, _ := attach.(*proto.Ledger)
	pub, err := proto.NewPublisher(proto.PublisherOptions{Agreed: d.agreed, Source: src.Child(), Ledger: lg})
	if err != nil {
		return nil, err
	}
	return method.Coordinated(pub, func(res *proto.Result, accts []*privacy.Accountant) (*method.Outcome, error) {
		return s.publish(res, d, accts, src, lg != nil)
	}), nil
}

func (s *session) publish(res *proto.Result, sd derived, accts []*privacy.Accountant, src *randx.Source,
	ledger bool) (*method.Outcome, error) {
	plan, enc, classes := sd.agreed.Derived(), sd.enc, sd.classes
	table, err := Table(s.Settings.Label, classes, res.Projections, res.Labels)
	if err != nil {
		return nil, err
	}
	st := s.Settings
	report, err := Report(ReportInput{Method: s.Method, Owners: len(s.Owners), Calibration: st.Calibration,
		Noise: st.Noise, PublicCounts: st.PublicCounts, Output: st.output(), Delta: st.Delta, Ledger: ledger,
		Secure: src.IsSecure(), Randomness: src.Describe()}, plan, accts, res.Ridge)
	if err != nil {
		return nil, err
	}
	d := &Result{Directions: res.Directions, Features: enc.ColumnNames(), ClassNames: classes, Projections: res.Projections,
		Labels: res.Labels, Estimate: res.Estimate, Plan: plan, Ridge: res.Ridge, Encoder: enc, ArtifactSHA256: res.ArtifactSHA256,
		Schema: s.Schema, Label: st.Label, Positive: st.Positive}
	model, err := d.ModelJSON(s.Method, report.Calibration)
	if err != nil {
		return nil, err
	}
	_, dirs := res.Directions.Dims()
	return &method.Outcome{Table: table, Report: report, Files: []method.OutputFile{{Suffix: ".model.json", Data: model}},
		Summary: fmt.Sprintf("%d discriminant direction(s) over %d features, ridge %.4g", dirs, enc.Dim(), res.Ridge),
		Detail:  d}, nil
}

// ModelFile is <out>.model.json: everything in it is DP or public (the
// schema, label and positive categories). ModelFile.Classifier turns it
// into the classifier `dppub predict` applies.
type ModelFile struct {
	Method      string `json:"method"`
	Calibration string `json:"calibration"`
	// Schema is the public schema of the features and the label; Label
	// and Positive are the settings'.
	Schema              data.Schema `json:"schema"`
	Label               string      `json:"label"`
	Positive            []string    `json:"positive,omitempty"`
	Features            []string    `json:"features"`
	Classes             []string    `json:"classes"`
	Directions          [][]float64 `json:"directions"` // one row per direction, over Features
	ClassMeans          [][]float64 `json:"class_means"`
	ClassCounts         []float64   `json:"class_counts"`
	ProjectedMeans      [][]float64 `json:"projected_means"`
	ProjectedCovariance [][]float64 `json:"projected_covariance"`
	Ridge               float64     `json:"ridge"`
	ArtifactSHA256      string      `json:"artifact_sha256"`
	Preprocessing       string      `json:"preprocessing"`
}

// ModelJSON is the published model file's bytes.
func (r *Result) ModelJSON(method, calibration string) ([]byte, error) {
	var means mat.Dense
	means.Mul(r.Estimate.Means, r.Directions)
	var cov mat.Matrix = mat.NewDense(1, 1, nil)
	if m, err := r.Estimate.Model(r.Directions); err == nil {
		cov = m.Cov
	}
	schema, err := r.Schema.Select(append(r.Encoder.Attributes(), r.Label)...)
	if err != nil {
		return nil, err
	}
	schema.ID = ""
	m := ModelFile{Method: method, Calibration: calibration, Schema: schema, Label: r.Label, Positive: r.Positive,
		Features: r.Features, Classes: r.ClassNames,
		Directions: rowsOf(mat.DenseCopyOf(r.Directions.T())), ClassMeans: rowsOf(r.Estimate.Means),
		ClassCounts: r.Estimate.Counts, ProjectedMeans: rowsOf(&means), ProjectedCovariance: rowsOf(mat.DenseCopyOf(cov)),
		Ridge: r.Ridge, ArtifactSHA256: r.ArtifactSHA256,
		Preprocessing: "encode each feature into [0,1] with the schema bounds (categorical: one-hot), then scale the row to unit L2 norm; z = xᵀW"}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Project encodes t's rows as the publication did (features in [0, 1],
// rows scaled to unit L2 norm) and projects them on the directions: how a
// user applies the published LDA to new data.
func (r *Result) Project(t *data.Table) (*mat.Dense, error) {
	X, _, err := r.Encoder.Encode(t)
	if err != nil {
		return nil, err
	}
	data.NormalizeRowsL2(X)
	return lda.Project(X, r.Directions), nil
}

func rowsOf(m mat.Matrix) [][]float64 {
	r, _ := m.Dims()
	out := make([][]float64, r)
	for i := range out {
		out[i] = mat.Row(nil, i, m)
	}
	return out
}
