package pdpmvds

import (
	"fmt"
	"slices"

	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/method"
	proto "github.com/dppub/dppub/method/pdpmvds/roles"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// Spec is PDP-MVDS's definition.
var Spec = method.ColumnsSpec(Name,
	"one synthetic table from parties of columns with personalised budgets (PDP-MVDS)",
	RoleSynthesizer, []string{RoleThirdParty}, open).WithDemo(demo)

// Session is what the synthesizer sends every party and S.
type Session struct {
	method.Header
	Settings Settings `json:"settings"`
	// Schemas are the parties' schemas, in party order.
	Schemas []data.Schema `json:"schemas"`
	Owners  []string      `json:"owners"`
	Third   string        `json:"third_party"`
	// cuts are the numeric attributes' bin edges by global index once
	// the parties have chosen them (bins phase; nil before, and when the
	// bins are the equal-width ones).
	cuts map[int][]float64
	// laid is the layout the fields above give, derived once when the
	// session is made (open, WithRecords, withCuts) and carried to every
	// Join and to the coordinator; nil for a session decoded from JSON or
	// not yet complete (a linked one before its record count), which
	// derives it on each use.
	laid *laidOut
}

// laidOut is what layout derives.
type laidOut struct {
	dom    *domain.Domain
	owners []int
	ps     proto.Session
}

func open(st Settings, o method.Open) (*Session, error) {
	owners, err := o.Names(method.RoleOwner, 2)
	if err != nil {
		return nil, err
	}
	third, err := o.Only(RoleThirdParty)
	if err != nil {
		return nil, err
	}
	if len(o.Schemas) != len(owners) {
		return nil, fmt.Errorf("%d schemas for %d parties", len(o.Schemas), len(owners))
	}
	s := &Session{Header: o.Header(), Settings: st, Schemas: o.Schemas, Owners: owners, Third: third}
	if err := s.checkIDColumns(); err != nil {
		return nil, err
	}
	if s.Settings.Link && s.Settings.Records == 0 {
		// The record count comes from the linkage; any count checks the
		// rest of the layout.
		_, err = s.WithRecords(1)
		return s, err
	}
	return s, s.lay()
}

// checkIDColumns checks that every party's schema names an ID column when
// the session links the records, and none otherwise (rows are then
// aligned by position).
func (s *Session) checkIDColumns() error {
	for k, sc := range s.Schemas {
		switch {
		case s.Settings.Link && sc.ID == "":
			return fmt.Errorf("%s's schema names no ID column: a linked session (link) needs one in every party's schema", s.Owners[k])
		case !s.Settings.Link && sc.ID != "":
			return fmt.Errorf("%s's schema names an ID column %q: set link to link the parties' records by it (private set intersection), or align the files beforehand and drop the ID column", s.Owners[k], sc.ID)
		}
	}
	return nil
}

// WithRecords is the session after the linkage found n common records:
// the record count is n (a count the settings give must equal it) and
// the schemas lose their ID columns, as the linked tables do.
func (s *Session) WithRecords(n int) (*Session, error) {
	if !s.Settings.Link {
		return nil, fmt.Errorf("the session does not link its records")
	}
	if n < 1 {
		return nil, fmt.Errorf("the linkage found %d records every party holds: nothing to synthesise", n)
	}
	if s.Settings.Records != 0 && s.Settings.Records != n {
		return nil, fmt.Errorf("the linkage found %d records every party holds, the settings' records says %d", n, s.Settings.Records)
	}
	c := *s
	c.Settings.Records = n
	c.Schemas = make([]data.Schema, len(s.Schemas))
	for k, sc := range s.Schemas {
		sc.ID = ""
		c.Schemas[k] = sc
	}
	return &c, c.lay()
}

// lay derives the session's layout and keeps it: the session is
// complete and its fields final (a changed session is a new one).
func (s *Session) lay() error {
	s.laid = nil
	dom, owners, ps, err := s.layout()
	if err == nil {
		s.laid = &laidOut{dom: dom, owners: owners, ps: ps}
	}
	return err
}

// layout is the domain, the owner of each attribute and the protocol's
// session: the ones laid out once, else derived on every side from the
// same session.
func (s *Session) layout() (*domain.Domain, []int, proto.Session, error) {
	if l := s.laid; l != nil {
		return l.dom, l.owners, l.ps, nil
	}
	st := &s.Settings
	if err := st.Validate(); err != nil {
		return nil, nil, proto.Session{}, err
	}
	if err := st.checkParties(s.Owners); err != nil {
		return nil, nil, proto.Session{}, err
	}
	if len(s.Schemas) != len(s.Owners) {
		return nil, nil, proto.Session{}, fmt.Errorf("the session lists %d schemas for %d parties", len(s.Schemas), len(s.Owners))
	}
	global, owners, err := globalSchema(s.Schemas)
	if err != nil {
		return nil, nil, proto.Session{}, err
	}
	// Without bins chosen by the parties, the equal-width bins with each
	// numeric attribute's public values (minimum, maximum, 0 inside the
	// bounds) a bin of its own: a point mass there (Adult's capital-gain
	// zeros) survives with no budget spent on bins.
	opts := domain.Options{Bins: st.Bins, BinsFor: st.BinsFor, PublicValueBins: true}
	if s.cuts != nil {
		opts.Cuts = map[string][]float64{}
		for j, c := range s.cuts {
			if j < 0 || j >= len(global.Attributes) {
				return nil, nil, proto.Session{}, fmt.Errorf("bin edges for attribute %d of %d", j, len(global.Attributes))
			}
			opts.Cuts[global.Attributes[j].Name] = c
		}
	}
	dom, err := domain.New(global, opts)
	if err != nil {
		return nil, nil, proto.Session{}, err
	}
	ps := proto.Session{Parties: len(s.Owners), Records: st.Records, Sizes: dom.Sizes(), Owners: owners,
		Suite: st.SSPP, Noise: st.Noise, KeyBits: st.KeyBits, InsecureTestKeys: st.InsecureTestKeys}
	return dom, owners, ps, ps.Validate()
}

// globalSchema concatenates the parties' attributes (party order) and
// returns the owner of each.
func globalSchema(schemas []data.Schema) (data.Schema, []int, error) {
	var g data.Schema
	var owners []int
	seen := map[string]int{}
	for k, s := range schemas {
		for _, a := range s.Attributes {
			if o, dup := seen[a.Name]; dup {
				return data.Schema{}, nil, fmt.Errorf("attribute %q is held by parties %d and %d; vertical parts must be disjoint", a.Name, o+1, k+1)
			}
			seen[a.Name] = k
			g.Attributes = append(g.Attributes, a)
			owners = append(owners, k)
		}
	}
	return g, owners, nil
}

// names maps the protocol's role IDs to the members' names.
func (s *Session) names() map[string]string {
	m := map[string]string{proto.ThirdPartyID: s.Third, proto.CoordinatorID: s.Coordinator}
	for k, o := range s.Owners {
		m[proto.PartyID(k)] = o
	}
	return m
}

// Members are the parties in order, then S; all draw.
func (s *Session) Members() []method.Member {
	var ms []method.Member
	for _, o := range s.Owners {
		b := dp.Concentrated(s.Settings.rho(o))
		// Delta, at which the report states each party's spend as
		// (ε, δ), is also the δ at which a party with an (ε, δ) lifetime
		// budget counts the session.
		ms = append(ms, method.Member{Name: o, Role: method.RoleOwner, Budget: &b, Delta: s.Settings.Delta, Draws: true})
	}
	return append(ms, method.Member{Name: s.Third, Role: RoleThirdParty, Draws: true})
}

// Unsound: INSECURE test keys void the cryptographic protection.
func (s *Session) Unsound() bool { return s.Settings.InsecureTestKeys }

// Join builds a party's or S's role, under the members' names.
func (s *Session) Join(l method.Local) (protocol.Role, error) {
	if s.Settings.Link {
		return s.joinLinked(l)
	}
	role, err := s.join(l)
	if err != nil {
		return nil, err
	}
	return method.Rename(role, s.ID, s.names()), nil
}

// joined is what a member reads before it accepts the session: a
// party's table and key file, S's public key. Both are checked before
// any budget is spent on bins.
type joined struct {
	k     int // the party's index, -1 for S
	table *data.Table
	key   *proto.KeyFile
	pk    *paillier.PublicKey
}

// join builds a party's or S's role, staying until the coordinator
// closes the run. With bins chosen from the data, the role starts with
// the bins phase (proto.Binning): the party chooses its numeric
// attributes' bins from its own columns, charged to its own accountant,
// and the PDP-MVDS role is built once the coordinator has sent every
// party's bins.
func (s *Session) join(l method.Local) (protocol.Role, error) {
	if _, _, _, err := s.layout(); err != nil {
		return nil, err
	}
	in := joined{k: -1}
	keys, err := method.Attached[*Keys](l.Attach)
	if err != nil {
		return nil, err
	}
	if l.Name == s.Third {
		if in.pk, err = s.publicKey(l, keys); err != nil {
			return nil, err
		}
	} else {
		if in.k = slices.Index(s.Owners, l.Name); in.k < 0 {
			return nil, fmt.Errorf("%s is neither a party nor the third party of the session", l.Name)
		}
		if in.table, err = s.partyTable(l, in.k); err != nil {
			return nil, err
		}
		if in.key, err = s.keyFile(l, keys, in.k); err != nil {
			return nil, err
		}
	}
	if !s.needsBins() {
		r, err := s.joinOn(l, in)
		if err != nil {
			return nil, err
		}
		return proto.Stay(r), nil
	}
	next := func(all map[int][]float64) (protocol.Role, error) {
		ws, err := s.withCuts(all)
		if err != nil {
			return nil, err
		}
		r, err := ws.joinOn(l, in)
		if err != nil {
			return nil, err
		}
		return proto.Stay(r), nil
	}
	if in.k < 0 {
		return proto.NewBinning(proto.ThirdPartyID, proto.CoordinatorID, nil, next), nil
	}
	if l.Accountant == nil {
		return nil, fmt.Errorf("%s needs an accountant to choose its bins", l.Name)
	}
	src := l.Source
	if src == nil {
		src = randx.NewSecure()
	}
	// The bins' noise has a source of its own, drawn here, so that the
	// PDP-MVDS role gets the member's source in the same state in every
	// run (in one process and over the network).
	binSrc := src.Child()
	choose := func() (map[int][]float64, error) {
		return s.chooseCuts(in.k, in.table, l.Accountant, binSrc)
	}
	return proto.NewBinning(proto.PartyID(in.k), proto.CoordinatorID, choose, next), nil
}

// joinOn builds the PDP-MVDS role on the session's domain (its bins
// chosen, when they are chosen from the data).
func (s *Session) joinOn(l method.Local, in joined) (protocol.Role, error) {
	if s.needsBins() && s.cuts == nil {
		return nil, fmt.Errorf("the session's bins have not been chosen yet")
	}
	dom, _, ps, err := s.layout()
	if err != nil {
		return nil, err
	}
	if in.k < 0 {
		return proto.NewThirdParty(proto.ThirdPartyOptions{Session: ps, PublicKey: in.pk, Source: l.Source, Workers: s.Settings.Workers})
	}
	cols, clamped := Columns(dom, in.table, s.first(in.k))
	l.Note(Name, in.table.Len(), clamped, "columns", len(cols))
	return proto.NewParty(proto.PartyOptions{Session: ps, Index: in.k, Columns: cols, Accountant: l.Accountant,
		Keys: in.key, Source: l.Source, Workers: s.Settings.Workers})
}

// first is the global index of party k's first attribute.
func (s *Session) first(k int) int {
	first := 0
	for _, sc := range s.Schemas[:k] {
		first += len(sc.Attributes)
	}
	return first
}

// partyTable checks party k's table: the session's schema for it, no ID
// column (rows are aligned by position), the public record count.
func (s *Session) partyTable(l method.Local, k int) (*data.Table, error) {
	t, err := l.SharedTable(s.Schemas[k])
	if err != nil {
		return nil, err
	}
	if t.Schema.ID != "" {
		return nil, fmt.Errorf("%s's schema names an ID column %q: the parties' rows are aligned by position, so set link to link them by it, or align the files beforehand and drop the ID column", l.Name, t.Schema.ID)
	}
	if t.Len() != s.Settings.Records {
		return nil, fmt.Errorf("%s holds %d records, the session's public record count is %d", l.Name, t.Len(), s.Settings.Records)
	}
	return t, nil
}

// Columns bins one party's table over the domain: its attributes are the
// domain's attributes first, first+1, …; it returns the columns by global
// index and how many values were clamped to their bounds.
func Columns(dom *domain.Domain, t *data.Table, first int) (map[int][]uint16, int) {
	cols := map[int][]uint16{}
	clamped := 0
	for j := range t.Schema.Attributes {
		col := make([]uint16, t.Len())
		for r, row := range t.Rows {
			b, c := dom.Bin(first+j, row[j])
			if c {
				clamped++
			}
			col[r] = uint16(b)
		}
		cols[first+j] = col
	}
	return cols, clamped
}
