package methods

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/dppub/dppub/algo/dpsubn3"
	"github.com/dppub/dppub/algo/privbayes"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/protocol"
	protodpsubn3 "github.com/dppub/dppub/protocol/dpsubn3"
	"github.com/dppub/dppub/publish"
	"github.com/dppub/dppub/transport"
)

func init() {
	transport.Register(transport.Method{Name: "dp-subn3", CoordinatorRole: RoleCurator,
		Prepare: prepareDPSUBN3, Join: joinDPSUBN3})
}

// DPSUBN3Settings are the settings of a networked DP-SUBN3 session, the
// flags of `dppub publish dp-subn3` (same names, same defaults). The owners
// take their turns in the consortium file's order.
type DPSUBN3Settings struct {
	// Schema is the schema file, relative to the consortium file.
	Schema   string  `json:"schema,omitempty"`
	Epsilon  float64 `json:"epsilon"`
	Beta     float64 `json:"beta,omitempty"`
	Theta    float64 `json:"theta,omitempty"`
	K        int     `json:"k,omitempty"`
	Score    string  `json:"score,omitempty"`
	Bins     int     `json:"bins,omitempty"`
	Frontier int     `json:"frontier,omitempty"`
}

func (s *DPSUBN3Settings) defaults() {
	if s.Beta == 0 {
		s.Beta = 0.3
	}
	if s.Theta == 0 {
		s.Theta = 4
	}
	if s.Score == "" {
		s.Score = string(privbayes.R)
	}
	if s.Bins == 0 {
		s.Bins = 8
	}
}

func (s DPSUBN3Settings) schemaFile() string { return s.Schema }

func (s DPSUBN3Settings) validate() error {
	switch {
	case !(s.Epsilon > 0) || math.IsInf(s.Epsilon, 0):
		return fmt.Errorf("methods: dp-subn3: epsilon must be positive and finite, got %v", s.Epsilon)
	case s.K < 0 || s.Frontier < 0 || s.Bins < 0:
		return fmt.Errorf("methods: dp-subn3: k, frontier and bins must not be negative, got %d, %d, %d", s.K, s.Frontier, s.Bins)
	}
	return s.options().NetworkOptions().Validate()
}

// options are the publish options these settings stand for (without a
// randomness source).
func (s DPSUBN3Settings) options() publish.BayesNetOptions {
	return publish.BayesNetOptions{Epsilon: s.Epsilon, Beta: s.Beta, Theta: s.Theta, K: s.K,
		Score: privbayes.Score(s.Score), Bins: s.Bins}
}

// dpsubn3Session is what the curator sends every owner.
type dpsubn3Session struct {
	Settings DPSUBN3Settings `json:"settings"`
	Schema   data.Schema     `json:"schema"`
	Owners   []string        `json:"owners"`
	Curator  string          `json:"curator"`
}

// params derives the protocol parameters as publish.DPSUBN3 does.
func (ds dpsubn3Session) params(session string) (protodpsubn3.Params, *privbayes.Discretizer, error) {
	z, err := privbayes.NewDiscretizer(ds.Schema, privbayes.DiscretizeOptions{Bins: ds.Settings.Bins})
	if err != nil {
		return protodpsubn3.Params{}, nil, fmt.Errorf("methods: dp-subn3: %w", err)
	}
	p := protodpsubn3.Params{Session: session, Parties: ds.Owners, Curator: ds.Curator, Cards: z.Cards(),
		Options: dpsubn3.Options{PrivBayes: ds.Settings.options().NetworkOptions(), Frontier: ds.Settings.Frontier}}
	if err := p.Validate(); err != nil {
		return p, nil, err
	}
	return p, z, nil
}

func prepareDPSUBN3(in transport.PrepareInput) (*transport.Setup, error) {
	st, schema, owners, err := horizontalStart[DPSUBN3Settings]("dp-subn3", in)
	if err != nil {
		return nil, err
	}
	sess := dpsubn3Session{Settings: st, Schema: schema, Curator: in.Self.Name, Owners: owners}
	sess.Settings.Schema = ""
	// The draws below follow publish.DPSUBN3: the session ID, one child
	// seed per owner in turn order, the curator's child; the synthetic
	// rows are then un-binned with the coordinator's source itself.
	id := fmt.Sprintf("dp-subn3-%016x", in.Source.Uint64())
	params, z, err := sess.params(id)
	if err != nil {
		return nil, err
	}
	payload, err := json.Marshal(sess)
	if err != nil {
		return nil, fmt.Errorf("methods: %w", err)
	}
	budget := dp.Pure(st.Epsilon)
	setup := &transport.Setup{Session: id}
	for _, o := range sess.Owners {
		setup.Participants = append(setup.Participants, participant(o, RoleOwner, &budget, payload, in.Source))
	}
	curator, err := protodpsubn3.NewCurator(params, in.Source.Child())
	if err != nil {
		return nil, err
	}
	setup.Role = curator
	setup.Finish = func(receipts map[string]transport.Receipt) (*transport.Outcome, error) {
		res, err := curator.Result()
		if err != nil {
			return nil, err
		}
		accts, err := accountantsFrom(sess.Owners, receipts)
		if err != nil {
			return nil, err
		}
		o := st.options()
		o.Source = in.Source
		report, err := publish.DPSUBN3Report(o, st.Frontier, accts, res.Counts)
		if err != nil {
			return nil, err
		}
		syn := z.Undiscretize(res.Rows, in.Source)
		summary := fmt.Sprintf("Bayesian network of %d attributes from %d owners' turns", len(res.Model.Net), len(sess.Owners))
		return &transport.Outcome{Table: syn, Report: report, Summary: summary}, nil
	}
	return setup, nil
}

func joinDPSUBN3(in transport.JoinInput) (protocol.Role, error) {
	var sess dpsubn3Session
	if err := decodeStrict(in.Params, &sess, "dp-subn3 session"); err != nil {
		return nil, err
	}
	st := sess.Settings
	if err := st.validate(); err != nil {
		return nil, err
	}
	if err := checkSession(in, "curator", sess.Curator, sess.Owners); err != nil {
		return nil, err
	}
	if err := checkBudget(in, dp.Pure(st.Epsilon)); err != nil {
		return nil, err
	}
	params, z, err := sess.params(in.Session)
	if err != nil {
		return nil, err
	}
	t, err := readOwnData(in, sess.Schema)
	if err != nil {
		return nil, err
	}
	d, clamped, err := z.Discretize(t)
	if err != nil {
		return nil, err
	}
	if in.Log != nil {
		in.Log.Info("dp-subn3: data loaded", "rows", t.Len(), "attributes", len(params.Cards), "clamped", clamped)
	}
	return protodpsubn3.NewParty(protodpsubn3.PartyOptions{ID: in.Self.Name, Params: params, Data: d,
		Accountant: in.Accountant, Source: in.Source})
}
