package methods

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/dppub/dppub/ownerstats"

	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method"
	_ "github.com/dppub/dppub/method/registry"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/transport"
)

// Adapt is a method's networked form: the same session the one-process
// run opens (method.RunLocal), with the coordinator's draws handed to the
// members as seeds when the run is seeded, the members named by the
// consortium file and each member's data read from its own files.
func Adapt(s method.Spec) transport.Method {
	return transport.Method{Name: s.Name, CoordinatorRole: s.Coordinator,
		Prepare: func(in transport.PrepareInput) (*transport.Setup, error) { return prepare(s, in) },
		Join:    func(in transport.JoinInput) (protocol.Role, error) { return join(s, in) }}
}

func prepare(s method.Spec, in transport.PrepareInput) (*transport.Setup, error) {
	raw, schemaFile, err := splitSchemaKey(in.Settings, s.Split == method.Rows)
	if err != nil {
		return nil, fmt.Errorf("methods: %s settings: %w", s.Name, err)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, fmt.Errorf("methods: %s: no settings (give them in the consortium file's methods section)", s.Name)
	}
	st, err := s.Settings(raw)
	if err != nil {
		return nil, fmt.Errorf("methods: %w", err)
	}
	open := method.Open{Coordinator: in.Self.Name, Members: map[string][]string{}}
	for _, role := range s.MemberRoles {
		for _, m := range in.Consortium.WithRole(role) {
			open.Members[role] = append(open.Members[role], m.Name)
		}
	}
	if open.Schemas, err = publicSchemas(s, in.Consortium, schemaFile); err != nil {
		return nil, fmt.Errorf("methods: %s: %w", s.Name, err)
	}
	open.ID = method.SessionID(s.Name, in.Source.Uint64)
	sess, err := s.Open(st, open)
	if err != nil {
		return nil, fmt.Errorf("methods: %s: %w", s.Name, err)
	}
	payload, err := json.Marshal(sess)
	if err != nil {
		return nil, fmt.Errorf("methods: %w", err)
	}
	setup := &transport.Setup{Session: open.ID}
	var holders []string
	for _, m := range sess.Members() {
		p := transport.Participant{Name: m.Name, Role: m.Role, Budget: m.Budget, Delta: m.Delta, Params: payload}
		if m.Draws && !in.Source.IsSecure() {
			seed := in.Source.Uint64()
			p.Seed = &seed
		}
		if m.Budget != nil {
			holders = append(holders, m.Name)
		}
		setup.Participants = append(setup.Participants, p)
	}
	c, err := sess.Coordinate(in.Source, in.Attach)
	if err != nil {
		return nil, fmt.Errorf("methods: %s: %w", s.Name, err)
	}
	setup.Role, setup.Cleanup = c.Role, c.Cleanup
	setup.Finish = func(receipts map[string]transport.Receipt) (*transport.Outcome, error) {
		accts, err := accountantsFrom(holders, receipts)
		if err != nil {
			return nil, err
		}
		return c.Publish(accts)
	}
	return setup, nil
}

// splitSchemaKey takes the "schema" key (the shared schema file of a
// method of owners of rows, relative to the consortium file) out of the
// settings; the rest are the method's own.
func splitSchemaKey(raw json.RawMessage, rows bool) (json.RawMessage, string, error) {
	if !rows || len(bytes.TrimSpace(raw)) == 0 {
		return raw, "", nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, "", err
	}
	v, ok := obj["schema"]
	if !ok {
		return raw, "", nil
	}
	var file string
	if err := json.Unmarshal(v, &file); err != nil {
		return nil, "", fmt.Errorf("schema: %w", err)
	}
	delete(obj, "schema")
	rest, err := json.Marshal(obj)
	return rest, file, err
}

// publicSchemas are the schemas a session is opened with: the shared one
// for owners of rows (the settings' schema file, else the first owner's
// declared schema), every party's own for parties of columns.
func publicSchemas(s method.Spec, f *consortium.File, file string) ([]data.Schema, error) {
	switch s.Split {
	case method.Rows:
		if file == "" {
			owners := f.WithRole(method.RoleOwner)
			if len(owners) == 0 || owners[0].Dataset == nil {
				return nil, fmt.Errorf("the settings need a schema file")
			}
			file = owners[0].Dataset.Schema
		}
		sc, err := data.LoadSchema(f.Path(file))
		return []data.Schema{sc}, err
	case method.Columns:
		var out []data.Schema
		for _, m := range f.WithRole(method.RoleOwner) {
			if m.Dataset == nil {
				return nil, fmt.Errorf("owner %s declares no dataset schema", m.Name)
			}
			sc, err := data.LoadSchema(f.Path(m.Dataset.Schema))
			if err != nil {
				return nil, fmt.Errorf("%s's schema: %w", m.Name, err)
			}
			out = append(out, sc)
		}
		return out, nil
	}
	return nil, nil
}

func join(s method.Spec, in transport.JoinInput) (protocol.Role, error) {
	sess, err := s.Decode(in.Params)
	if err != nil {
		return nil, fmt.Errorf("%s %w", s.Name, err)
	}
	h := sess.Head()
	if h.ID != in.Session || h.Coordinator != in.Coordinator {
		return nil, fmt.Errorf("the session names %q coordinated by %q, but %q proposed %q", h.ID, h.Coordinator, in.Coordinator, in.Session)
	}
	var asked []string
	for _, p := range in.Participants {
		asked = append(asked, p.Name)
	}
	if err := method.CheckMembers(sess, asked); err != nil {
		return nil, err
	}
	me, err := self(sess, in.Self.Name)
	if err != nil {
		return nil, err
	}
	if me.Budget != nil && (in.Accountant == nil || in.Accountant.Budget() != *me.Budget) {
		return nil, fmt.Errorf("the session's budget does not match its settings (%v)", *me.Budget)
	}
	// The ledger reserved the session at the δ the Open message gave; it
	// must be the δ of the settings the role runs with.
	if i := slices.IndexFunc(in.Participants, func(p transport.Participant) bool { return p.Name == in.Self.Name }); i < 0 || in.Participants[i].Delta != me.Delta {
		return nil, fmt.Errorf("the session's δ does not match its settings (%v)", me.Delta)
	}
	if sess.Unsound() && !in.Self.AllowUnsound {
		return nil, fmt.Errorf("the session asks for settings whose output is not (fully) covered by DP or whose guarantee is weaker than charged (e.g. a paper calibration), and %s's consortium entry does not set allow_unsound", in.Self.Name)
	}
	l := method.Local{Name: in.Self.Name, Accountant: in.Accountant, Source: in.Source, Log: in.Log, Dir: in.Consortium.Path("."), Neighbours: in.Self.Neighbours}
	if in.Credentials != nil {
		peers, err := consortium.NewPeers(in.Consortium, in.Credentials)
		if err != nil {
			return nil, err
		}
		l.Peers = peers
	}
	if me.Budget != nil {
		if err := readMemberData(in, sess, &l); err != nil {
			return nil, err
		}
	}
	return sess.Join(l)
}

func self(sess method.Session, name string) (method.Member, error) {
	for _, m := range sess.Members() {
		if m.Name == name {
			return m, nil
		}
	}
	return method.Member{}, fmt.Errorf("%s is not a member of the session", name)
}

// readMemberData reads the member's dataset with its own schema: its rows,
// or the statistics it computed elsewhere. The session checks them
// against what it expects. When the session's role needs only the rows'
// statistics (method.StatisticsScanner), a delimited file is scanned for them
// in one pass on every core (ownerstats.ScanFile: the same bits as from
// the table) and the table is never built: the member's memory no longer
// grows with its rows (a 10⁶-row Adult file took about 450 MB read whole).
// A Parquet file (.parquet) is read whole.
func readMemberData(in transport.JoinInput, sess method.Session, l *method.Local) error {
	ds := in.Self.Dataset
	if ds == nil {
		return fmt.Errorf("%s holds no dataset", in.Self.Name)
	}
	sc, err := data.LoadSchema(in.Consortium.Path(ds.Schema))
	if err != nil {
		return err
	}
	l.Schema = sc
	if ds.Statistics != "" {
		l.Statistics, err = ownerstats.ReadFile(in.Consortium.Path(ds.Statistics))
		return err
	}
	path := in.Consortium.Path(ds.Path)
	read := data.ReadOptions{Header: true}
	if s, ok := sess.(method.StatisticsScanner); ok && !data.IsParquetPath(path) {
		c, scan, err := s.ScanStatistics(in.Self.Name, sc)
		if err != nil {
			return err
		}
		if scan {
			c.Read = read
			var rst data.ReadStats
			if l.Statistics, rst, err = ownerstats.ScanFile(path, c, data.ScanOptions{}); err != nil {
				return err
			}
			if in.Log != nil {
				in.Log.Info("statistics scanned from the dataset", "rows", rst.Rows, "dropped_missing", rst.DroppedMissing, "clamped", rst.Clamped)
			}
			return nil
		}
	}
	if data.IsParquetPath(path) {
		// No streaming Parquet scan exists: the table is read whole.
		l.Table, _, err = data.ReadParquetFile(path, sc, read)
		return err
	}
	l.Table, _, err = data.ReadFile(path, sc, read)
	return err
}

// accountantsFrom rebuilds each member's session accountant from the
// charges its receipt lists: what the member says it charged and recorded.
func accountantsFrom(members []string, receipts map[string]transport.Receipt) ([]*privacy.Accountant, error) {
	var out []*privacy.Accountant
	for _, o := range members {
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

func init() {
	for _, s := range method.All() {
		if s.Multiparty() {
			transport.Register(Adapt(s))
		}
	}
}
