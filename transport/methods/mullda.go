package methods

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/dppub/dppub/algo/lda"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/protocol/mullda"
	"github.com/dppub/dppub/publish"
	"github.com/dppub/dppub/transport"
	"gonum.org/v1/gonum/mat"
)

// LDA-DP / Mul-LDA-DP roles in the consortium file (owners have RoleOwner).
const (
	RolePublisher = "publisher"
	RoleDealer    = "dealer"
)

func init() {
	for _, name := range []string{"mul-lda-dp", "lda-dp"} {
		transport.Register(transport.Method{Name: name, CoordinatorRole: RolePublisher,
			Prepare: func(in transport.PrepareInput) (*transport.Setup, error) { return prepareLDA(name, in) },
			Join:    joinLDA})
	}
}

// LDASettings are the settings of a networked LDA-DP or Mul-LDA-DP
// session: the flags of `dppub publish mul-lda-dp`, except that delta must
// be given (over the network it is not derived from the owners' sizes) and
// the shared publishing ledger is not yet connected.
type LDASettings struct {
	// Schema is the schema file, relative to the consortium file.
	Schema           string   `json:"schema,omitempty"`
	Label            string   `json:"label"`
	Positive         []string `json:"positive,omitempty"`
	Exclude          []string `json:"exclude,omitempty"`
	Epsilon          float64  `json:"epsilon"`
	Delta            float64  `json:"delta"`
	Calibration      string   `json:"calibration,omitempty"`
	Noise            string   `json:"noise,omitempty"`
	PublicCounts     bool     `json:"public_counts,omitempty"`
	PaperProjections bool     `json:"paper_projections,omitempty"`
	Ridge            float64  `json:"ridge,omitempty"`
}

func (s *LDASettings) defaults() {
	if s.Calibration == "" {
		s.Calibration = string(lda.Sound)
	}
	if s.Noise == "" {
		s.Noise = string(lda.Correlated)
	}
}

func (s LDASettings) schemaFile() string { return s.Schema }

func (s LDASettings) validate() error {
	switch {
	case s.Label == "":
		return fmt.Errorf("methods: lda: the settings need a label")
	case !(s.Epsilon > 0) || math.IsInf(s.Epsilon, 0):
		return fmt.Errorf("methods: lda: epsilon must be positive and finite, got %v", s.Epsilon)
	case !(s.Delta > 0 && s.Delta < 1):
		return fmt.Errorf("methods: lda: delta must be in (0, 1), got %v (over the network it is not derived from the owners' sizes)", s.Delta)
	case s.Calibration != string(lda.Sound) && s.Calibration != string(lda.Paper):
		return fmt.Errorf("methods: lda: calibration must be sound or paper, got %q", s.Calibration)
	case s.Calibration == string(lda.Paper) && s.PublicCounts:
		return fmt.Errorf("methods: lda: public_counts is implied by the paper calibration")
	case s.Noise != string(lda.Correlated) && s.Noise != string(lda.Independent):
		return fmt.Errorf("methods: lda: noise must be correlated or independent, got %q", s.Noise)
	case !(s.Ridge >= 0) || math.IsInf(s.Ridge, 0):
		return fmt.Errorf("methods: lda: ridge must be non-negative and finite, got %v", s.Ridge)
	}
	return nil
}

func (s LDASettings) unsound() bool { return s.Calibration == string(lda.Paper) || s.PaperProjections }

func (s LDASettings) output() mullda.Output {
	if s.PaperProjections {
		return mullda.RealProjections
	}
	return mullda.Synthetic
}

// ldaSession is what the publisher sends every owner and the dealer.
type ldaSession struct {
	Method    string      `json:"method"`
	Settings  LDASettings `json:"settings"`
	Schema    data.Schema `json:"schema"`
	Owners    []string    `json:"owners"`
	Publisher string      `json:"publisher"`
	Dealer    string      `json:"dealer,omitempty"`
}

// params derives the protocol parameters as publish's LDA pipeline does.
func (ls ldaSession) params(session string) (mullda.Params, *data.Encoder, []string, error) {
	st := ls.Settings
	enc, err := data.NewEncoder(ls.Schema, data.EncoderOptions{Exclude: append([]string{st.Label}, st.Exclude...)})
	if err != nil {
		return mullda.Params{}, nil, nil, fmt.Errorf("methods: %w", err)
	}
	classes, err := publish.LDAClassNames(ls.Schema, st.Label, st.Positive)
	if err != nil {
		return mullda.Params{}, nil, nil, err
	}
	p := mullda.Params{Session: session, Owners: ls.Owners, Publisher: ls.Publisher, Dealer: ls.Dealer,
		Plan: lda.PlanOptions{Calibration: lda.Calibration(st.Calibration), Epsilon: st.Epsilon, Delta: st.Delta, P: enc.Dim(),
			Classes: len(classes), Owners: len(ls.Owners), Noise: lda.NoiseMode(st.Noise), PublicCounts: st.PublicCounts},
		Ridge: st.Ridge, Output: st.output()}
	if err := p.Validate(); err != nil {
		return p, nil, nil, err
	}
	return p, enc, classes, nil
}

func prepareLDA(method string, in transport.PrepareInput) (*transport.Setup, error) {
	st, schema, owners, err := horizontalStart[LDASettings](method, in)
	if err != nil {
		return nil, err
	}
	if method == "lda-dp" && len(owners) != 1 {
		return nil, fmt.Errorf("methods: lda-dp takes one owner, the consortium has %d (use mul-lda-dp)", len(owners))
	}
	sess := ldaSession{Method: method, Settings: st, Schema: schema, Publisher: in.Self.Name, Owners: owners}
	sess.Settings.Schema = ""
	if st.Noise != string(lda.Independent) && len(sess.Owners) >= 2 {
		dealers := in.Consortium.WithRole(RoleDealer)
		if len(dealers) != 1 {
			return nil, fmt.Errorf("methods: %s with correlated noise needs exactly one member with role %q, found %d", method, RoleDealer, len(dealers))
		}
		sess.Dealer = dealers[0].Name
	}
	// The draws below follow publish's LDA pipeline: the session ID, one
	// child seed per owner in order, the dealer's, then the publisher's.
	id := fmt.Sprintf("%s-%016x", method, in.Source.Uint64())
	params, enc, classes, err := sess.params(id)
	if err != nil {
		return nil, err
	}
	payload, err := json.Marshal(sess)
	if err != nil {
		return nil, fmt.Errorf("methods: %w", err)
	}
	budget := dp.Approx(st.Epsilon, st.Delta)
	setup := &transport.Setup{Session: id}
	for _, o := range sess.Owners {
		setup.Participants = append(setup.Participants, participant(o, RoleOwner, &budget, payload, in.Source))
	}
	if sess.Dealer != "" {
		setup.Participants = append(setup.Participants, participant(sess.Dealer, RoleDealer, nil, payload, in.Source))
	}
	pub, err := mullda.NewPublisher(mullda.PublisherOptions{Params: params, Source: in.Source.Child()})
	if err != nil {
		return nil, err
	}
	setup.Role = pub
	setup.Finish = func(receipts map[string]transport.Receipt) (*transport.Outcome, error) {
		return finishLDA(pub, sess, params, enc, classes, receipts, in.Source.IsSecure(), in.Source.Describe())
	}
	return setup, nil
}

func finishLDA(pub *mullda.Publisher, sess ldaSession, params mullda.Params, enc *data.Encoder, classes []string,
	receipts map[string]transport.Receipt, secure bool, randomness string) (*transport.Outcome, error) {
	res, err := pub.Result()
	if err != nil {
		return nil, err
	}
	plan, err := lda.NewPlan(params.Plan)
	if err != nil {
		return nil, err
	}
	table, err := publish.LDATable(sess.Settings.Label, classes, res.Projections, res.Labels)
	if err != nil {
		return nil, err
	}
	accts, err := accountantsFrom(sess.Owners, receipts)
	if err != nil {
		return nil, err
	}
	st := sess.Settings
	report, err := publish.LDAReport(publish.LDAReportInput{Method: sess.Method, Owners: len(sess.Owners), Calibration: lda.Calibration(st.Calibration),
		Noise: lda.NoiseMode(st.Noise), PublicCounts: st.PublicCounts, Output: st.output(), Delta: st.Delta,
		Secure: secure, Randomness: randomness}, plan, accts, res.Ridge)
	if err != nil {
		return nil, err
	}
	model, err := ldaModelJSON(sess.Method, report.Calibration, enc.ColumnNames(), classes, res)
	if err != nil {
		return nil, err
	}
	_, d := res.Directions.Dims()
	return &transport.Outcome{Table: table, Report: report, Files: []transport.OutputFile{{Suffix: ".model.json", Data: model}},
		Summary: fmt.Sprintf("%d discriminant direction(s) over %d features, ridge %.4g", d, enc.Dim(), res.Ridge)}, nil
}

func joinLDA(in transport.JoinInput) (protocol.Role, error) {
	var sess ldaSession
	if err := decodeStrict(in.Params, &sess, "lda session"); err != nil {
		return nil, err
	}
	st := sess.Settings
	if err := st.validate(); err != nil {
		return nil, err
	}
	if err := checkSession(in, "publisher", sess.Publisher, append(slices.Clone(sess.Owners), nonEmpty(sess.Dealer)...)); err != nil {
		return nil, err
	}
	params, enc, _, err := sess.params(in.Session)
	if err != nil {
		return nil, err
	}
	if in.Self.Role == RoleDealer {
		if in.Self.Name != sess.Dealer {
			return nil, fmt.Errorf("%s is not the session's dealer", in.Self.Name)
		}
		return mullda.NewNoiseDealer(mullda.DealerOptions{Params: params, Source: in.Source})
	}
	if st.unsound() && !in.Self.AllowUnsound {
		return nil, fmt.Errorf("the session asks for the paper calibration or the real projections, whose output is not (fully) covered by DP, and %s's consortium entry does not set allow_unsound", in.Self.Name)
	}
	if in.Accountant == nil || in.Accountant.Budget() != dp.Approx(st.Epsilon, st.Delta) {
		return nil, fmt.Errorf("the session's budget does not match its settings (ε=%v, δ=%v)", st.Epsilon, st.Delta)
	}
	t, err := readOwnData(in, sess.Schema)
	if err != nil {
		return nil, err
	}
	X, stats, err := enc.Encode(t)
	if err != nil {
		return nil, err
	}
	data.NormalizeRowsL2(X)
	y, err := publish.LDALabels(t, st.Label, st.Positive)
	if err != nil {
		return nil, err
	}
	if in.Log != nil {
		in.Log.Info("lda: data loaded", "rows", t.Len(), "features", enc.Dim(), "clamped", stats.Clamped)
	}
	return mullda.NewOwner(mullda.OwnerOptions{ID: in.Self.Name, Params: params, Data: X, Labels: y,
		Accountant: in.Accountant, Source: in.Source})
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// readOwnData reads the member's dataset with its own schema, which must
// be the session's.
func readOwnData(in transport.JoinInput, schema data.Schema) (*data.Table, error) {
	ds := in.Self.Dataset
	if ds == nil {
		return nil, fmt.Errorf("%s holds no dataset", in.Self.Name)
	}
	local, err := data.LoadSchema(in.Consortium.Path(ds.Schema))
	if err != nil {
		return nil, err
	}
	if !local.Equal(schema) {
		return nil, fmt.Errorf("the session's schema differs from %s's schema %s", in.Self.Name, ds.Schema)
	}
	t, _, err := data.ReadFile(in.Consortium.Path(ds.Path), local, data.ReadOptions{Header: true})
	return t, err
}

// The helpers below mirror unexported ones of publish/lda.go and
// internal/cli/lda.go (which this package cannot call), so that a
// networked run publishes the same files; TestNetworkMatchesOneProcess
// compares them byte for byte.

// ldaModelFile is <out>.model.json, as `dppub publish mul-lda-dp` writes it.
type ldaModelFile struct {
	Method              string      `json:"method"`
	Calibration         string      `json:"calibration"`
	Features            []string    `json:"features"`
	Classes             []string    `json:"classes"`
	Directions          [][]float64 `json:"directions"`
	ClassMeans          [][]float64 `json:"class_means"`
	ClassCounts         []float64   `json:"class_counts"`
	ProjectedMeans      [][]float64 `json:"projected_means"`
	ProjectedCovariance [][]float64 `json:"projected_covariance"`
	Ridge               float64     `json:"ridge"`
	ArtifactSHA256      string      `json:"artifact_sha256"`
	Preprocessing       string      `json:"preprocessing"`
}

func ldaModelJSON(method, calibration string, features, classes []string, res *mullda.Result) ([]byte, error) {
	var means mat.Dense
	means.Mul(res.Estimate.Means, res.Directions)
	var cov mat.Matrix = mat.NewDense(1, 1, nil)
	if m, err := res.Estimate.Model(res.Directions); err == nil {
		cov = m.Cov
	}
	m := ldaModelFile{Method: method, Calibration: calibration, Features: features, Classes: classes,
		Directions: rowsOf(mat.DenseCopyOf(res.Directions.T())), ClassMeans: rowsOf(res.Estimate.Means),
		ClassCounts: res.Estimate.Counts, ProjectedMeans: rowsOf(&means), ProjectedCovariance: rowsOf(mat.DenseCopyOf(cov)),
		Ridge: res.Ridge, ArtifactSHA256: res.ArtifactSHA256,
		Preprocessing: "encode each feature into [0,1] with the schema bounds (categorical: one-hot), then scale the row to unit L2 norm; z = xᵀW"}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("methods: %w", err)
	}
	return append(b, '\n'), nil
}

func rowsOf(m mat.Matrix) [][]float64 {
	r, _ := m.Dims()
	out := make([][]float64, r)
	for i := range out {
		out[i] = mat.Row(nil, i, m)
	}
	return out
}
