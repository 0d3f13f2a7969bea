package methods

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/dppub/dppub/algo/mpcrdp"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	protompcrdp "github.com/dppub/dppub/protocol/mpcrdp"
	"github.com/dppub/dppub/publish"
	"github.com/dppub/dppub/transport"
)

// RoleServer is MP-CRDP's trusted server in the consortium file; the
// parties have RoleOwner.
const RoleServer = "server"

func init() {
	transport.Register(transport.Method{Name: "mp-crdp", CoordinatorRole: RoleServer,
		Prepare: prepareMPCRDP, Join: joinMPCRDP})
}

// MPCRDPSettings are the settings of a networked MP-CRDP session, the flags
// of `dppub publish mp-crdp` (same names with underscores, same defaults,
// except b, which defaults to 2 as for --input). The parties are the
// consortium's owners in file order, each holding its own columns of the
// same individuals with an ID column to join on.
type MPCRDPSettings struct {
	Label string `json:"label"`
	// LabelHolder is the owner whose table holds the label (default: the
	// first owner).
	LabelHolder  string  `json:"label_holder,omitempty"`
	Epsilon      float64 `json:"epsilon"`
	FeatureShare float64 `json:"feature_share,omitempty"`
	Calibration  string  `json:"calibration,omitempty"`
	Notion       string  `json:"notion,omitempty"`
	Utility      string  `json:"utility,omitempty"`
	Release      string  `json:"release,omitempty"`
	B            int     `json:"b,omitempty"`
	W0           float64 `json:"w0,omitempty"`
	GroupSize    int     `json:"group_size,omitempty"`
	NumQueries   int     `json:"num_queries,omitempty"`
	Bins         int     `json:"bins,omitempty"`
	Runs         int     `json:"runs,omitempty"`
}

func (s *MPCRDPSettings) defaults() {
	if s.Calibration == "" {
		s.Calibration = string(mpcrdp.Sound)
	}
	if s.Notion == "" {
		s.Notion = string(mpcrdp.Standard)
	}
	if s.Utility == "" {
		s.Utility = string(mpcrdp.U2)
	}
	if s.Release == "" {
		s.Release = string(mpcrdp.LogReg)
	}
	if s.B == 0 {
		s.B = 2
	}
}

// config is the algorithm's configuration, defaults filled, as the CLI
// builds it.
func (s MPCRDPSettings) config() (mpcrdp.Config, error) {
	c := mpcrdp.Config{Epsilon: s.Epsilon, FeatureShare: s.FeatureShare, Calibration: mpcrdp.Calibration(s.Calibration),
		Notion: mpcrdp.Notion(s.Notion), Utility: mpcrdp.Utility(s.Utility), Release: mpcrdp.Release(s.Release),
		B: s.B, InitialThreshold: s.W0, GroupSize: s.GroupSize, NumQueries: s.NumQueries, Bins: s.Bins, Runs: s.Runs}
	switch {
	case s.Label == "":
		return c, fmt.Errorf("methods: mp-crdp: the settings need a label")
	case !(s.Epsilon > 0) || math.IsInf(s.Epsilon, 0):
		return c, fmt.Errorf("methods: mp-crdp: epsilon must be positive and finite, got %v", s.Epsilon)
	case c.Calibration == mpcrdp.None:
		return c, fmt.Errorf("methods: mp-crdp: calibration %q publishes without noise; it is for experiments only", mpcrdp.None)
	case c.Release == mpcrdp.NoRelease:
		return c, fmt.Errorf("methods: mp-crdp: release must be logreg, svm or queries, got %q", s.Release)
	}
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("methods: mp-crdp: %w", err)
	}
	return c, nil
}

// unsound reports whether the release is not covered by standard DP: the
// paper calibration, or a notion whose sensitivity is data-dependent.
func (s MPCRDPSettings) unsound() bool {
	return s.Calibration != string(mpcrdp.Sound) || s.Notion != string(mpcrdp.Standard)
}

// mpcrdpSession is what the server sends every party.
type mpcrdpSession struct {
	Settings MPCRDPSettings `json:"settings"`
	Parties  []string       `json:"parties"`
	Server   string         `json:"server"`
}

func (ms mpcrdpSession) params(session string) (protompcrdp.Params, error) {
	cfg, err := ms.Settings.config()
	if err != nil {
		return protompcrdp.Params{}, err
	}
	p := protompcrdp.Params{Session: session, Parties: ms.Parties, Server: ms.Server,
		Label: ms.Settings.Label, LabelHolder: ms.Settings.LabelHolder, Config: cfg}
	return p, p.Validate()
}

func prepareMPCRDP(in transport.PrepareInput) (*transport.Setup, error) {
	var st MPCRDPSettings
	if err := decodeSettings("mp-crdp", in.Settings, &st); err != nil {
		return nil, err
	}
	st.defaults()
	parties, err := memberNames("mp-crdp", in.Consortium, RoleOwner)
	if err != nil {
		return nil, err
	}
	sess := mpcrdpSession{Server: in.Self.Name, Parties: parties}
	if st.LabelHolder == "" {
		st.LabelHolder = sess.Parties[0]
	}
	sess.Settings = st
	// The draws below follow publish.MPCRDP: the session ID, then the
	// server's child source. The parties draw nothing.
	id := fmt.Sprintf("mp-crdp-%016x", in.Source.Uint64())
	params, err := sess.params(id)
	if err != nil {
		return nil, err
	}
	payload, err := json.Marshal(sess)
	if err != nil {
		return nil, fmt.Errorf("methods: %w", err)
	}
	budget := dp.Pure(st.Epsilon)
	setup := &transport.Setup{Session: id}
	for _, name := range sess.Parties {
		setup.Participants = append(setup.Participants, transport.Participant{Name: name, Role: RoleOwner, Budget: &budget, Params: payload})
	}
	merged, err := privacy.NewAccountant(privacy.AccountantOptions{Party: publish.MPCRDPLedger, Budget: budget})
	if err != nil {
		return nil, fmt.Errorf("methods: %w", err)
	}
	src := in.Source.Child()
	server, err := protompcrdp.NewServer(protompcrdp.ServerOptions{Params: params, Accountant: merged, Source: src})
	if err != nil {
		return nil, err
	}
	setup.Role = server
	setup.Finish = func(receipts map[string]transport.Receipt) (*transport.Outcome, error) {
		sr, err := server.Result()
		if err != nil {
			return nil, err
		}
		accts, err := accountantsFrom(sess.Parties, receipts)
		if err != nil {
			return nil, err
		}
		res, err := publish.FinishMPCRDP(params.Config, st.Label, in.Source, append(accts, merged), sr)
		if err != nil {
			return nil, err
		}
		out, err := res.Output()
		if err != nil {
			return nil, err
		}
		summary := fmt.Sprintf("%s released over %d joined records (%d IDs not held by every party left out)", st.Release, sr.Merged.Len(), sr.Dropped)
		return &transport.Outcome{Data: out, Report: res.Report, Summary: summary}, nil
	}
	return setup, nil
}

func joinMPCRDP(in transport.JoinInput) (protocol.Role, error) {
	var sess mpcrdpSession
	if err := decodeStrict(in.Params, &sess, "mp-crdp session"); err != nil {
		return nil, err
	}
	st := sess.Settings
	if st.unsound() && !in.Self.AllowUnsound {
		return nil, fmt.Errorf("the session asks for calibration %q and notion %q, whose release is not covered by standard DP, and %s's consortium entry does not set allow_unsound", st.Calibration, st.Notion, in.Self.Name)
	}
	if err := checkSession(in, "server", sess.Server, sess.Parties); err != nil {
		return nil, err
	}
	if err := checkBudget(in, dp.Pure(st.Epsilon)); err != nil {
		return nil, err
	}
	params, err := sess.params(in.Session)
	if err != nil {
		return nil, err
	}
	t, err := readOwnColumns(in)
	if err != nil {
		return nil, err
	}
	if in.Log != nil {
		in.Log.Info("mp-crdp: data loaded", "rows", t.Len(), "columns", len(t.Schema.Attributes))
	}
	return protompcrdp.NewParty(protompcrdp.PartyOptions{ID: in.Self.Name, Params: params, Table: t, Accountant: in.Accountant})
}

// readOwnColumns reads a vertical party's own table with its own schema,
// which must name an ID column to join on.
func readOwnColumns(in transport.JoinInput) (*data.Table, error) {
	ds := in.Self.Dataset
	if ds == nil {
		return nil, fmt.Errorf("%s holds no dataset", in.Self.Name)
	}
	s, err := data.LoadSchema(in.Consortium.Path(ds.Schema))
	if err != nil {
		return nil, err
	}
	if s.ID == "" {
		return nil, fmt.Errorf("%s's schema %s names no ID column to join the parties' records on", in.Self.Name, ds.Schema)
	}
	t, _, err := data.ReadFile(in.Consortium.Path(ds.Path), s, data.ReadOptions{Header: true})
	return t, err
}
