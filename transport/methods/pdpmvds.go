package methods

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/dppub/dppub/algo/marginal"
	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/protocol/pdpmvds"
	"github.com/dppub/dppub/publish"
	"github.com/dppub/dppub/randx"
	"github.com/dppub/dppub/transport"
)

// PDP-MVDS roles in the consortium file (the parties have RoleOwner).
const (
	// RoleSynthesizer runs Algorithm 3's engine: it requests every
	// measurement, receives the noisy releases (and only those), selects
	// pairs and synthesises. It holds no data; an owner's organisation may
	// run it.
	RoleSynthesizer = "synthesizer"
	// RoleThirdParty is the semi-trusted third party S.
	RoleThirdParty = "third-party"
)

func init() {
	transport.Register(transport.Method{Name: "pdp-mvds", CoordinatorRole: RoleSynthesizer,
		Prepare: preparePDPMVDS, Join: joinPDPMVDS})
}

// PDPMVDSSettings are the settings of a networked PDP-MVDS session, the
// flags of `dppub publish pdp-mvds` (same names with underscores, same
// defaults). The parties are the consortium's owners in file order, each
// holding the columns its own schema file declares, for the same records
// in the same row order; the coordinator reads those (public) schema
// files to lay out the domain.
type PDPMVDSSettings struct {
	// Records is the public record count n that every party holds.
	Records int `json:"records"`
	// Rho is every party's zCDP budget ρ_k for the session; Budgets
	// overrides it per party.
	Rho       float64            `json:"rho,omitempty"`
	Budgets   map[string]float64 `json:"budgets,omitempty"`
	SSPP      string             `json:"sspp,omitempty"`
	Noise     string             `json:"noise,omitempty"`
	Mechanism string             `json:"mechanism,omitempty"`
	Bins      int                `json:"bins,omitempty"`
	MaxCells  int                `json:"max_cells,omitempty"`
	Rounds    int                `json:"rounds,omitempty"`
	Rows      int                `json:"rows,omitempty"`
	Delta     float64            `json:"delta,omitempty"`
	// Keys is, for the paillier suite, the directory (relative to the
	// consortium file and inside its directory, on each member's own
	// machine) of the key ceremony's files: party k reads only its
	// party-k.key.json, S only public-key.json. No key ever travels over
	// the network.
	Keys             string `json:"keys,omitempty"`
	KeyBits          int    `json:"key_bits,omitempty"`
	InsecureTestKeys bool   `json:"insecure_test_keys,omitempty"`
}

func (s *PDPMVDSSettings) defaults() {
	if s.SSPP == "" {
		s.SSPP = string(pdpmvds.SuiteCommodity)
	}
	if s.Noise == "" {
		s.Noise = string(pdpmvds.NoiseInsiderSafe)
	}
	if s.Mechanism == "" {
		s.Mechanism = string(marginal.Gaussian)
	}
	if s.Bins == 0 {
		s.Bins = marginal.DefaultBins
	}
	if s.MaxCells == 0 {
		s.MaxCells = marginal.DefaultMaxCells
	}
	if s.Rounds == 0 {
		s.Rounds = 30
	}
	if s.KeyBits == 0 {
		s.KeyBits = pdpmvds.DefaultKeyBits
	}
	if s.Delta == 0 && s.Records > 0 {
		s.Delta = dp.DefaultDelta(s.Records)
	}
}

func (s PDPMVDSSettings) validate(owners []string) error {
	switch {
	case s.Records < 1:
		return fmt.Errorf("methods: pdp-mvds: the settings need the public record count (records), got %d", s.Records)
	case s.SSPP != string(pdpmvds.SuiteCommodity) && s.SSPP != string(pdpmvds.SuitePaillier):
		return fmt.Errorf("methods: pdp-mvds: sspp must be commodity or paillier, got %q", s.SSPP)
	case s.SSPP == string(pdpmvds.SuitePaillier) && s.Keys == "":
		return fmt.Errorf("methods: pdp-mvds: the paillier suite needs keys, the directory of the key ceremony's files (dppub keygen) on every member's machine")
	case s.SSPP != string(pdpmvds.SuitePaillier) && s.Keys != "":
		return fmt.Errorf("methods: pdp-mvds: keys is for sspp paillier")
	case s.Keys != "" && !filepath.IsLocal(s.Keys):
		// The coordinator names the directory; it must not steer a party
		// to read a key file from anywhere but its consortium directory.
		return fmt.Errorf("methods: pdp-mvds: keys must be a directory inside the consortium file's directory (relative, no ..), got %q", s.Keys)
	case s.KeyBits < 2048 && !s.InsecureTestKeys:
		return fmt.Errorf("methods: pdp-mvds: key_bits %d is below 2048; set insecure_test_keys for a test run", s.KeyBits)
	case s.Noise != string(pdpmvds.NoiseInsiderSafe) && s.Noise != string(pdpmvds.NoiseExact):
		return fmt.Errorf("methods: pdp-mvds: noise must be insider-safe or exact, got %q", s.Noise)
	case s.Mechanism != string(marginal.Gaussian) && s.Mechanism != string(marginal.Laplace):
		return fmt.Errorf("methods: pdp-mvds: mechanism must be gaussian or laplace, got %q", s.Mechanism)
	case s.Bins < 1 || s.MaxCells < 1 || s.Rounds < 1 || s.Rows < 0:
		return fmt.Errorf("methods: pdp-mvds: bins, max_cells and rounds must be positive and rows not negative")
	case !(s.Delta > 0 && s.Delta < 1):
		return fmt.Errorf("methods: pdp-mvds: delta must be in (0, 1), got %v", s.Delta)
	}
	for name := range s.Budgets {
		if !slices.Contains(owners, name) {
			return fmt.Errorf("methods: pdp-mvds: budgets names %q, not an owner of the consortium %v", name, owners)
		}
	}
	for _, o := range owners {
		if err := dp.CheckRho(s.rho(o)); err != nil {
			return fmt.Errorf("methods: pdp-mvds: %s's budget (set rho or budgets): %w", o, err)
		}
	}
	return nil
}

func (s PDPMVDSSettings) rho(owner string) float64 {
	if r, ok := s.Budgets[owner]; ok {
		return r
	}
	return s.Rho
}

// pdpmvdsSession is what the synthesizer sends every participant.
type pdpmvdsSession struct {
	Settings PDPMVDSSettings `json:"settings"`
	// Schemas are the parties' schemas, in party order.
	Schemas     []data.Schema `json:"schemas"`
	Owners      []string      `json:"owners"`
	Third       string        `json:"third_party"`
	Synthesizer string        `json:"synthesizer"`
}

// layout derives the domain and the protocol session, as publish.PDPMVDS
// does from the parties' tables.
func (ps pdpmvdsSession) layout() (*marginal.Domain, pdpmvds.Session, error) {
	var global data.Schema
	var owners []int
	for k, s := range ps.Schemas {
		for _, a := range s.Attributes {
			global.Attributes = append(global.Attributes, a)
			owners = append(owners, k)
		}
	}
	dom, err := marginal.NewDomain(global, marginal.DomainOptions{Bins: ps.Settings.Bins})
	if err != nil {
		return nil, pdpmvds.Session{}, fmt.Errorf("methods: pdp-mvds: %w", err)
	}
	s := pdpmvds.Session{Parties: len(ps.Owners), Records: ps.Settings.Records, Sizes: dom.Sizes(), Owners: owners,
		Suite: pdpmvds.Suite(ps.Settings.SSPP), Noise: pdpmvds.NoiseMode(ps.Settings.Noise),
		KeyBits: ps.Settings.KeyBits, InsecureTestKeys: ps.Settings.InsecureTestKeys}
	if err := s.Validate(); err != nil {
		return nil, s, fmt.Errorf("methods: pdp-mvds: %w", err)
	}
	return dom, s, nil
}

// names maps the protocol's role IDs to the members' names.
func (ps pdpmvdsSession) names() map[string]string {
	m := map[string]string{pdpmvds.ThirdPartyID: ps.Third, pdpmvds.CoordinatorID: ps.Synthesizer}
	for k, o := range ps.Owners {
		m[pdpmvds.PartyID(k)] = o
	}
	return m
}

// options are publish's options for the report and the engine.
func (ps pdpmvdsSession) options(src *randx.Source) publish.PDPMVDSOptions {
	st := ps.Settings
	o := publish.PDPMVDSOptions{Names: ps.Owners, Suite: pdpmvds.Suite(st.SSPP), Noise: pdpmvds.NoiseMode(st.Noise),
		Mechanism: marginal.Mechanism(st.Mechanism), KeyBits: st.KeyBits, InsecureTestKeys: st.InsecureTestKeys, Bins: st.Bins,
		Combine: marginal.CombineOptions{MaxCells: st.MaxCells}, Rounds: st.Rounds, Rows: st.Rows, Delta: st.Delta, Source: src}
	for _, name := range ps.Owners {
		o.Budgets = append(o.Budgets, st.rho(name))
	}
	return o
}

func onlyMember(f *consortium.File, role, method string) (string, error) {
	ms := f.WithRole(role)
	if len(ms) != 1 {
		return "", fmt.Errorf("methods: %s needs exactly one member with role %q, found %d", method, role, len(ms))
	}
	return ms[0].Name, nil
}

func preparePDPMVDS(in transport.PrepareInput) (*transport.Setup, error) {
	var st PDPMVDSSettings
	if err := decodeSettings("pdp-mvds", in.Settings, &st); err != nil {
		return nil, err
	}
	st.defaults()
	sess := pdpmvdsSession{Settings: st, Synthesizer: in.Self.Name}
	for _, m := range in.Consortium.WithRole(RoleOwner) {
		if m.Dataset == nil {
			return nil, fmt.Errorf("methods: pdp-mvds: owner %s declares no dataset schema", m.Name)
		}
		s, err := data.LoadSchema(in.Consortium.Path(m.Dataset.Schema))
		if err != nil {
			return nil, fmt.Errorf("methods: pdp-mvds: %s's schema: %w", m.Name, err)
		}
		sess.Owners, sess.Schemas = append(sess.Owners, m.Name), append(sess.Schemas, s)
	}
	if len(sess.Owners) < 2 {
		return nil, fmt.Errorf("methods: pdp-mvds needs at least 2 members with role %q, found %d", RoleOwner, len(sess.Owners))
	}
	third, err := onlyMember(in.Consortium, RoleThirdParty, "pdp-mvds")
	if err != nil {
		return nil, err
	}
	sess.Third = third
	if err := st.validate(sess.Owners); err != nil {
		return nil, err
	}
	dom, ps, err := sess.layout()
	if err != nil {
		return nil, err
	}
	payload, err := json.Marshal(sess)
	if err != nil {
		return nil, fmt.Errorf("methods: %w", err)
	}
	// publish.PDPMVDS draws no session ID: this one comes from the
	// system's secure generator, so that a seeded run follows its draws
	// (one child per party in order, S's, the engine's, the decoder's).
	setup := &transport.Setup{Session: fmt.Sprintf("pdp-mvds-%016x", randx.NewSecure().Uint64())}
	for _, o := range sess.Owners {
		budget := dp.Concentrated(st.rho(o))
		setup.Participants = append(setup.Participants, participant(o, RoleOwner, &budget, payload, in.Source))
	}
	setup.Participants = append(setup.Participants, participant(third, RoleThirdParty, nil, payload, in.Source))

	opts := sess.options(in.Source)
	eo, _ := publish.PDPMVDSEngineOptions(opts, dom, ps.Owners, st.Records)
	eo.Source = in.Source.Child()
	decodeSrc := in.Source.Child()
	var eng *marginal.Result
	driver, err := pdpmvds.NewDriver(context.Background(), ps, func(ctx context.Context, m marginal.Measurer) error {
		var err error
		eng, err = marginal.Synthesize(ctx, m, eo)
		return err
	})
	if err != nil {
		return nil, err
	}
	setup.Role = rename(driver, setup.Session, sess.names())
	setup.Cleanup = driver.Stop
	setup.Finish = func(receipts map[string]transport.Receipt) (*transport.Outcome, error) {
		if eng == nil {
			return nil, fmt.Errorf("methods: pdp-mvds: the engine did not finish")
		}
		accts, err := accountantsFrom(sess.Owners, receipts)
		if err != nil {
			return nil, err
		}
		syn, err := dom.Decode(eng.Data, decodeSrc)
		if err != nil {
			return nil, fmt.Errorf("methods: pdp-mvds: %w", err)
		}
		report, err := publish.PDPMVDSReport(opts, ps, eng, accts, st.Records, false)
		if err != nil {
			return nil, err
		}
		summary := fmt.Sprintf("%d of %d pairs selected; %d marginals measured", len(eng.Selection.Chosen), len(eng.Candidates), len(eng.Measured))
		return &transport.Outcome{Table: syn, Report: report, Summary: summary}, nil
	}
	return setup, nil
}

func joinPDPMVDS(in transport.JoinInput) (protocol.Role, error) {
	var sess pdpmvdsSession
	if err := decodeStrict(in.Params, &sess, "pdp-mvds session"); err != nil {
		return nil, err
	}
	st := sess.Settings
	if err := st.validate(sess.Owners); err != nil {
		return nil, err
	}
	if err := checkSession(in, "synthesizer", sess.Synthesizer, append(slices.Clone(sess.Owners), sess.Third)); err != nil {
		return nil, err
	}
	if len(sess.Schemas) != len(sess.Owners) {
		return nil, fmt.Errorf("the session lists %d schemas for %d owners", len(sess.Schemas), len(sess.Owners))
	}
	dom, ps, err := sess.layout()
	if err != nil {
		return nil, err
	}
	if st.InsecureTestKeys && !in.Self.AllowUnsound {
		return nil, fmt.Errorf("the session asks for INSECURE %d-bit Paillier keys and %s's consortium entry does not set allow_unsound", st.KeyBits, in.Self.Name)
	}
	if in.Self.Name == sess.Third {
		pk, err := readPublicKey(in, st)
		if err != nil {
			return nil, err
		}
		third, err := pdpmvds.NewThirdParty(pdpmvds.ThirdPartyOptions{Session: ps, PublicKey: pk, Source: in.Source})
		if err != nil {
			return nil, err
		}
		return rename(pdpmvds.Stay(third), in.Session, sess.names()), nil
	}
	k := slices.Index(sess.Owners, in.Self.Name)
	if k < 0 {
		return nil, fmt.Errorf("%s is neither a party nor the third party of the session", in.Self.Name)
	}
	if err := checkBudget(in, dp.Concentrated(st.rho(in.Self.Name))); err != nil {
		return nil, err
	}
	t, err := readPartyColumns(in, sess.Schemas[k], st.Records)
	if err != nil {
		return nil, err
	}
	first := 0
	for _, s := range sess.Schemas[:k] {
		first += len(s.Attributes)
	}
	cols, clamped := publish.PDPMVDSColumns(dom, t, first)
	if in.Log != nil {
		in.Log.Info("pdp-mvds: data loaded", "rows", t.Len(), "columns", len(cols), "clamped", clamped)
	}
	keys, err := readKeyFile(in, st, k, len(sess.Owners))
	if err != nil {
		return nil, err
	}
	party, err := pdpmvds.NewParty(pdpmvds.PartyOptions{Session: ps, Index: k, Columns: cols, Accountant: in.Accountant, Keys: keys, Source: in.Source})
	if err != nil {
		return nil, err
	}
	return rename(pdpmvds.Stay(party), in.Session, sess.names()), nil
}

// readPartyColumns reads a party's own table, which must match the schema
// the session gives it and hold the session's record count.
func readPartyColumns(in transport.JoinInput, want data.Schema, records int) (*data.Table, error) {
	ds := in.Self.Dataset
	if ds == nil {
		return nil, fmt.Errorf("%s holds no dataset", in.Self.Name)
	}
	s, err := data.LoadSchema(in.Consortium.Path(ds.Schema))
	if err != nil {
		return nil, err
	}
	if !s.Equal(want) {
		return nil, fmt.Errorf("the session's schema for %s differs from its schema %s", in.Self.Name, ds.Schema)
	}
	if s.ID != "" {
		return nil, fmt.Errorf("%s's schema names an ID column %q: over the network the parties' rows are aligned by position, so align the files beforehand and drop the ID column", in.Self.Name, s.ID)
	}
	t, _, err := data.ReadFile(in.Consortium.Path(ds.Path), s, data.ReadOptions{Header: true})
	if err != nil {
		return nil, err
	}
	if t.Len() != records {
		return nil, fmt.Errorf("%s holds %d records, the session's public record count is %d", in.Self.Name, t.Len(), records)
	}
	return t, nil
}

// readKeyFile reads party k's own key file of the ceremony (paillier
// suite; nil otherwise).
func readKeyFile(in transport.JoinInput, st PDPMVDSSettings, k, parties int) (*pdpmvds.KeyFile, error) {
	if st.SSPP != string(pdpmvds.SuitePaillier) {
		return nil, nil
	}
	path := filepath.Join(in.Consortium.Path(st.Keys), pdpmvds.PartyID(k)+".key.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s's key file: %w", in.Self.Name, err)
	}
	var f pdpmvds.KeyFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if f.Party != k || f.Parties != parties {
		return nil, fmt.Errorf("%s is party %d's of %d, %s is party %d of %d", path, f.Party+1, f.Parties, in.Self.Name, k+1, parties)
	}
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &f, nil
}

// readPublicKey reads the shared public key for S (paillier suite; nil
// otherwise).
func readPublicKey(in transport.JoinInput, st PDPMVDSSettings) (*paillier.PublicKey, error) {
	if st.SSPP != string(pdpmvds.SuitePaillier) {
		return nil, nil
	}
	path := filepath.Join(in.Consortium.Path(st.Keys), "public-key.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("the third party's public key: %w", err)
	}
	var pk paillier.PublicKey
	if err := json.Unmarshal(b, &pk); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &pk, nil
}

// renamed runs a protocol role under the members' names: the protocol
// addresses its roles by fixed IDs (party-1, third-party, coordinator),
// the network by member names. Incoming envelopes are renamed to the
// protocol's IDs (the transport has already checked that the sender is
// the member its certificate names); outgoing ones to the members'.
type renamed struct {
	inner   protocol.Role
	session string
	toNet   map[string]string
	toProto map[string]string
}

func rename(r protocol.Role, session string, toNet map[string]string) *renamed {
	toProto := map[string]string{}
	for p, n := range toNet {
		toProto[n] = p
	}
	return &renamed{inner: r, session: session, toNet: toNet, toProto: toProto}
}

func (r *renamed) ID() string { return r.toNet[r.inner.ID()] }
func (r *renamed) Done() bool { return r.inner.Done() }

func (r *renamed) Start() ([]protocol.Envelope, error) { return r.out(r.inner.Start()) }

func (r *renamed) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	from, ok := r.toProto[e.From]
	if !ok {
		return nil, fmt.Errorf("methods: pdp-mvds: message from %q, not a member of the session", e.From)
	}
	e.From, e.To = from, r.inner.ID()
	return r.out(r.inner.Handle(e))
}

func (r *renamed) out(es []protocol.Envelope, err error) ([]protocol.Envelope, error) {
	if err != nil {
		return nil, err
	}
	for i, e := range es {
		from, to := r.toNet[e.From], r.toNet[e.To]
		if from == "" || to == "" {
			return nil, fmt.Errorf("methods: pdp-mvds: %s sent %s to %q, a role with no member", e.From, e.Type, e.To)
		}
		es[i].From, es[i].To, es[i].Session = from, to, r.session
	}
	return es, nil
}
