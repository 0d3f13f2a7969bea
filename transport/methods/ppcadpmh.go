package methods

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/dppub/dppub/algo/ppca"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/protocol/ppcadpmh"
	"github.com/dppub/dppub/publish"
	"github.com/dppub/dppub/transport"
)

// PPCA-DP-MH roles in the consortium file.
const (
	RoleCurator = "curator"
	RoleOwner   = "owner"
)

func init() {
	transport.Register(transport.Method{Name: "ppca-dp-mh", CoordinatorRole: RoleCurator,
		Prepare: preparePPCA, Join: joinPPCA})
}

// PPCASettings are the settings of a networked PPCA-DP-MH session, the
// flags of `dppub publish ppca-dp-mh` (same names, same defaults).
type PPCASettings struct {
	// Schema is the schema file, relative to the consortium file; the
	// coordinator reads it and sends it, and every owner checks that its
	// own schema is the same.
	Schema        string  `json:"schema,omitempty"`
	Epsilon       float64 `json:"epsilon"`
	Delta         float64 `json:"delta,omitempty"`
	Calibration   string  `json:"calibration,omitempty"`
	Mechanism     string  `json:"mechanism,omitempty"`
	Noise         string  `json:"noise,omitempty"`
	Contribution  float64 `json:"contribution,omitempty"`
	K             int     `json:"k,omitempty"`
	PaperLatent   bool    `json:"paper_latent,omitempty"`
	GenericBounds bool    `json:"generic_bounds,omitempty"`
}

func (s *PPCASettings) defaults() {
	if s.Calibration == "" {
		s.Calibration = string(ppca.Sound)
	}
	if s.Mechanism == "" {
		s.Mechanism = string(ppca.Laplace)
	}
	if s.Noise == "" {
		s.Noise = string(ppcadpmh.Local)
	}
	if s.K == 0 && s.Contribution == 0 {
		s.Contribution = 0.85
	}
}

func (s PPCASettings) schemaFile() string { return s.Schema }

func (s PPCASettings) validate() error {
	switch {
	case !(s.Epsilon > 0) || math.IsInf(s.Epsilon, 0):
		return fmt.Errorf("methods: ppca-dp-mh: epsilon must be positive and finite, got %v", s.Epsilon)
	case !(s.Delta >= 0 && s.Delta < 1):
		return fmt.Errorf("methods: ppca-dp-mh: delta must be in [0, 1), got %v", s.Delta)
	case s.Mechanism == string(ppca.Gaussian) && s.Delta == 0:
		return fmt.Errorf("methods: ppca-dp-mh: the gaussian mechanism needs delta > 0 (over the network it is not derived from the owners' sizes)")
	case s.K < 0:
		return fmt.Errorf("methods: ppca-dp-mh: k must not be negative, got %d", s.K)
	}
	return nil
}

// budget is each owner's budget for the session.
func (s PPCASettings) budget() dp.Guarantee {
	if s.Mechanism == string(ppca.Gaussian) {
		return dp.Approx(s.Epsilon, s.Delta)
	}
	return dp.Pure(s.Epsilon)
}

// unsound reports whether the settings give a weaker guarantee than
// charged or publish rows not covered by DP.
func (s PPCASettings) unsound() bool {
	return s.Calibration == string(ppca.Paper) || s.PaperLatent
}

// ppcaSession is what the curator sends every owner.
type ppcaSession struct {
	Settings PPCASettings `json:"settings"`
	Schema   data.Schema  `json:"schema"`
	Owners   []string     `json:"owners"`
	Curator  string       `json:"curator"`
}

// params derives the protocol parameters exactly as publish.PPCADPMH does,
// on both sides from the same session description.
func (ps ppcaSession) params(session string) (ppcadpmh.Params, *data.Encoder, error) {
	st := ps.Settings
	enc, err := data.NewEncoder(ps.Schema, data.EncoderOptions{})
	if err != nil {
		return ppcadpmh.Params{}, nil, fmt.Errorf("methods: %w", err)
	}
	bounds, err := publish.RowBoundsOf(enc)
	if err != nil {
		return ppcadpmh.Params{}, nil, err
	}
	if st.GenericBounds {
		bounds = ppca.GenericBounds(enc.Dim())
	}
	p := ppcadpmh.Params{
		Session: session, Owners: ps.Owners, Curator: ps.Curator,
		Plan: ppca.PlanOptions{Calibration: ppca.Calibration(st.Calibration), Mechanism: ppca.Mechanism(st.Mechanism),
			Epsilon: st.Epsilon, Delta: st.Delta, Bounds: bounds},
		Noise: ppcadpmh.NoiseMode(st.Noise), Fit: ppca.FitOptions{Contribution: st.Contribution, K: st.K},
		PaperLatent: st.PaperLatent,
	}
	if err := p.Validate(); err != nil {
		return p, nil, err
	}
	return p, enc, nil
}

func preparePPCA(in transport.PrepareInput) (*transport.Setup, error) {
	st, schema, owners, err := horizontalStart[PPCASettings]("ppca-dp-mh", in)
	if err != nil {
		return nil, err
	}
	sess := ppcaSession{Settings: st, Schema: schema, Curator: in.Self.Name, Owners: owners}
	sess.Settings.Schema = ""
	// The draws below follow publish.PPCADPMH: the session ID, then one
	// child seed per owner in order, so a seeded run reproduces it.
	id := fmt.Sprintf("ppca-dp-mh-%016x", in.Source.Uint64())
	params, enc, err := sess.params(id)
	if err != nil {
		return nil, err
	}
	curator, err := ppcadpmh.NewCurator(params)
	if err != nil {
		return nil, err
	}
	payload, err := json.Marshal(sess)
	if err != nil {
		return nil, fmt.Errorf("methods: %w", err)
	}
	budget := st.budget()
	setup := &transport.Setup{Session: id, Role: curator}
	for _, o := range sess.Owners {
		setup.Participants = append(setup.Participants, participant(o, RoleOwner, &budget, payload, in.Source))
	}
	setup.Finish = func(receipts map[string]transport.Receipt) (*transport.Outcome, error) {
		return finishPPCA(curator, enc, sess, params, receipts, in.Source.IsSecure(), in.Source.Describe())
	}
	return setup, nil
}

func finishPPCA(curator *ppcadpmh.Curator, enc *data.Encoder, sess ppcaSession, params ppcadpmh.Params,
	receipts map[string]transport.Receipt, secure bool, randomness string) (*transport.Outcome, error) {
	res, err := curator.Result()
	if err != nil {
		return nil, err
	}
	accts, err := accountantsFrom(sess.Owners, receipts)
	if err != nil {
		return nil, err
	}
	report, err := publish.PPCAReport(publish.PPCAReportOptions{Params: params, Accountants: accts,
		Counts: res.Counts, Secure: secure, Randomness: randomness})
	if err != nil {
		return nil, err
	}
	syn := enc.Decode(res.Synthetic)
	summary := fmt.Sprintf("model: k = %d components of p = %d, noise variance σ² = %.4g", res.Model.K, enc.Dim(), res.Model.Sigma2)
	return &transport.Outcome{Table: syn, Report: report, Summary: summary}, nil
}

// accountantsFrom rebuilds each owner's session accountant from the
// charges its receipt lists: what the owner says it charged and recorded.
func accountantsFrom(owners []string, receipts map[string]transport.Receipt) ([]*privacy.Accountant, error) {
	var out []*privacy.Accountant
	for _, o := range owners {
		r, ok := receipts[o]
		if !ok || r.Budget == nil {
			return nil, fmt.Errorf("methods: no budget receipt from %s", o)
		}
		a, err := privacy.NewAccountant(privacy.AccountantOptions{Party: o, Budget: *r.Budget})
		if err != nil {
			return nil, fmt.Errorf("methods: %w", err)
		}
		for _, c := range r.Charges {
			if err := a.Spend(c); err != nil {
				return nil, fmt.Errorf("methods: %s's receipt: %w", o, err)
			}
		}
		out = append(out, a)
	}
	return out, nil
}

func joinPPCA(in transport.JoinInput) (protocol.Role, error) {
	var sess ppcaSession
	if err := decodeStrict(in.Params, &sess, "ppca-dp-mh session"); err != nil {
		return nil, err
	}
	st := sess.Settings
	if err := st.validate(); err != nil {
		return nil, err
	}
	if st.unsound() && !in.Self.AllowUnsound {
		return nil, fmt.Errorf("the session asks for the paper calibration or paper latent codes, whose output is not (fully) covered by DP, and %s's consortium entry does not set allow_unsound", in.Self.Name)
	}
	if err := checkSession(in, "curator", sess.Curator, sess.Owners); err != nil {
		return nil, err
	}
	if err := checkBudget(in, st.budget()); err != nil {
		return nil, err
	}
	params, enc, err := sess.params(in.Session)
	if err != nil {
		return nil, err
	}
	t, err := readOwnData(in, sess.Schema)
	if err != nil {
		return nil, err
	}
	X, stats, err := enc.Encode(t)
	if err != nil {
		return nil, err
	}
	if in.Log != nil {
		in.Log.Info("ppca-dp-mh: data loaded", "rows", t.Len(), "columns", enc.Dim(), "clamped", stats.Clamped)
	}
	return ppcadpmh.NewOwner(ppcadpmh.OwnerOptions{ID: in.Self.Name, Params: params, Data: X,
		Accountant: in.Accountant, Source: in.Source})
}
