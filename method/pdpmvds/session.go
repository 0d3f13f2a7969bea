package pdpmvds

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dppub/dppub/crypto/paillier"
	cpsi "github.com/dppub/dppub/crypto/psi"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/infer"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/method"
	proto "github.com/dppub/dppub/method/pdpmvds/roles"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/protocol/psi"
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

// Keys are a one-process run's key material for a member (Local.Attach):
// a party's key file, or S's public key.
type Keys struct {
	Party  *proto.KeyFile
	Public *paillier.PublicKey
}

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

// numeric lists, by party, the global indices of its numeric attributes.
func (s *Session) numeric() [][]int {
	out := make([][]int, len(s.Schemas))
	for k, sc := range s.Schemas {
		out[k] = []int{}
		for j, a := range sc.Attributes {
			if a.Kind == data.Numeric {
				out[k] = append(out[k], s.first(k)+j)
			}
		}
	}
	return out
}

// needsBins says whether the session starts with the bins phase: bins
// chosen from the data and some numeric attribute to choose them for.
func (s *Session) needsBins() bool {
	if !s.Settings.binsOn() {
		return false
	}
	for _, num := range s.numeric() {
		if len(num) > 0 {
			return true
		}
	}
	return false
}

// binRho is what party k spends on its bins: BinShare of its ρ_k when it
// holds a numeric attribute, else nothing (each party pays for its own
// columns' bins only).
func (s *Session) binRho(k int) float64 {
	if !s.Settings.binsOn() || len(s.numeric()[k]) == 0 {
		return 0
	}
	return s.Settings.BinShare * s.Settings.rho(s.Owners[k])
}

// withCuts is the session once the parties have chosen their bins.
func (s *Session) withCuts(all map[int][]float64) (*Session, error) {
	want := slices.Concat(s.numeric()...)
	for j := range all {
		if !slices.Contains(want, j) {
			return nil, fmt.Errorf("bin edges for attribute %d, not a numeric attribute of the session", j)
		}
	}
	if len(all) != len(want) {
		return nil, fmt.Errorf("bin edges for %d attributes, the session has %d numeric attributes", len(all), len(want))
	}
	c := *s
	c.cuts = all
	if err := c.lay(); err != nil {
		return nil, err
	}
	return &c, nil
}

// chooseCuts chooses the bins of party k's numeric attributes from its
// own table: measurement.ChooseCuts on each column (a noisy histogram on the
// public grid, charged to the party's accountant before it is drawn, at
// an equal part of the party's bins budget), refining the equal-width
// bins. Only the edges, post-processing of the noisy counts, leave the
// party.
func (s *Session) chooseCuts(k int, t *data.Table, acct *privacy.Accountant, src *randx.Source) (map[int][]float64, error) {
	st := s.Settings
	num := s.numeric()[k]
	out := map[int][]float64{}
	if len(num) == 0 {
		return out, nil
	}
	each := s.binRho(k) / float64(len(num))
	first := s.first(k)
	for _, g := range num {
		j := g - first
		a := t.Schema.Attributes[j]
		values, err := t.Column(a.Name)
		if err != nil {
			return nil, fmt.Errorf("%s's bins: %w", s.Owners[k], err)
		}
		c, err := measurement.ChooseCuts(a, values, measurement.CutsOptions{Bins: cmp.Or(st.BinsFor[a.Name], st.Bins), Rho: each, Accountant: acct, Source: src})
		if err != nil {
			return nil, fmt.Errorf("%s's bins: %w", s.Owners[k], err)
		}
		out[g] = c
	}
	return out, nil
}

// partyIDs are the parties' protocol IDs, the linkage's ring order.
func (s *Session) partyIDs() []string {
	ids := make([]string, len(s.Owners))
	for k := range s.Owners {
		ids[k] = proto.PartyID(k)
	}
	return ids
}

// joinLinked builds a party's or S's role in a session that links the
// parties' records first. A party checks its ID column now, before it
// accepts the session; its linkage key is drawn from the
// OS CSPRNG, its PDP-MVDS role is built on its linked rows, in the order
// of their IDs, once the linkage ends. S waits for the coordinator's
// count.
func (s *Session) joinLinked(l method.Local) (protocol.Role, error) {
	names := s.names()
	if l.Name == s.Third {
		wait := psi.NewAwaiting(proto.ThirdPartyID, proto.CoordinatorID, func(n int) (protocol.Role, error) {
			ls, err := s.WithRecords(n)
			if err != nil {
				return nil, err
			}
			return ls.join(l)
		})
		return method.Rename(wait, s.ID, names), nil
	}
	k := slices.Index(s.Owners, l.Name)
	if k < 0 {
		return nil, fmt.Errorf("%s is neither a party nor the third party of the session", l.Name)
	}
	t, err := l.SharedTable(s.Schemas[k])
	if err != nil {
		return nil, err
	}
	if t.Schema.ID == "" || len(t.IDs) != t.Len() {
		return nil, fmt.Errorf("%s's table has no ID column: a linked session needs one", l.Name)
	}
	if err := cpsi.CheckIDs(t.IDs); err != nil {
		return nil, fmt.Errorf("%s's ID column %q: %w", l.Name, t.Schema.ID, err)
	}
	if l.Source == nil {
		return nil, fmt.Errorf("%s needs a randomness source", l.Name)
	}
	// The linkage's key comes from the OS CSPRNG even in a seeded run: the
	// linked rows are put in the order of their IDs (below), so the key
	// changes no output, and the member's own randomness stays the
	// PDP-MVDS role's, drawn exactly as in a run on aligned files.
	p, err := psi.NewParty(psi.PartyOptions{ID: proto.PartyID(k), IDs: t.IDs, Source: randx.NewSecure(),
		Params: psi.Params{Session: s.ID + "/link", Parties: s.partyIDs()}})
	if err != nil {
		return nil, err
	}
	link := psi.NewLinking(p, proto.CoordinatorID, func(res *psi.Result) (protocol.Role, error) {
		ls, err := s.WithRecords(len(res.Rows))
		if err != nil {
			return nil, err
		}
		// Every party holds the IDs of the common records, so ordering
		// them by ID gives all parties one order without a message, and
		// the same order whatever the keys (the linkage's own order
		// follows the blinded values, hence the keys).
		rows := slices.Clone(res.Rows)
		slices.SortFunc(rows, func(a, b int) int { return strings.Compare(t.IDs[a], t.IDs[b]) })
		linked := t.Subset(rows)
		linked.Schema.ID, linked.IDs = "", nil
		if l.Log != nil {
			l.Log.Info(Name+": records linked", "ids", t.Len(), "common", len(res.Rows), "sizes", res.Sizes)
		}
		ll := l
		ll.Table = linked
		return ls.join(ll)
	})
	return method.Rename(link, s.ID, names), nil
}

// LinkLocal runs the linkage of a linked session in one process, over the
// roles Join built (in member order): the parties' linkage roles driven
// by protocol.RunLocal, then each party's PDP-MVDS role built on its
// linked rows and S told the count, as the coordinator's count would over
// the network. It returns the session for the linked records (for
// RunMeasured) and the linkage's traffic.
func (s *Session) LinkLocal(ctx context.Context, roles []protocol.Role) (*Session, *protocol.Stats, error) {
	var links []*psi.Linking
	var wait *psi.Awaiting
	for _, r := range roles {
		if w, ok := r.(interface{ Unwrap() protocol.Role }); ok {
			r = w.Unwrap()
		}
		switch x := r.(type) {
		case *psi.Linking:
			links = append(links, x)
		case *psi.Awaiting:
			wait = x
		default:
			return nil, nil, fmt.Errorf("unexpected role %T in a linked session", x)
		}
	}
	if wait == nil || len(links) != len(s.Owners) {
		return nil, nil, fmt.Errorf("a linked session needs %d parties' roles and S's, got %d and %v", len(s.Owners), len(links), wait != nil)
	}
	parts := make([]protocol.Role, len(links))
	for k, l := range links {
		parts[k] = l.PSI()
	}
	stats, err := protocol.RunLocal(ctx, parts...)
	if err != nil {
		return nil, stats, fmt.Errorf("linkage: %w", err)
	}
	common := -1
	for _, l := range links {
		// The messages are the count for the coordinator (known here)
		// and a PDP-MVDS party's first messages (none).
		if _, err := l.Finish(); err != nil {
			return nil, stats, err
		}
		res, _ := l.PSI().Result()
		if common >= 0 && len(res.Rows) != common {
			return nil, stats, fmt.Errorf("linkage: the parties found %d and %d common records", common, len(res.Rows))
		}
		common = len(res.Rows)
	}
	if _, err := wait.Begin(common); err != nil {
		return nil, stats, err
	}
	ls, err := s.WithRecords(common)
	return ls, stats, err
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

// keyFile is party k's key file (paillier suite; nil otherwise): given in
// one process, else read from the ceremony's directory on the member's
// own machine.
func (s *Session) keyFile(l method.Local, keys *Keys, k int) (*proto.KeyFile, error) {
	if s.Settings.SSPP != proto.SuitePaillier {
		return nil, nil
	}
	if keys != nil && keys.Party != nil {
		return keys.Party, nil
	}
	path, err := s.keyPath(l, proto.PartyID(k)+".key.json")
	if err != nil {
		return nil, err
	}
	var f proto.KeyFile
	if err := readJSON(path, &f); err != nil {
		return nil, fmt.Errorf("%s's key file: %w", l.Name, err)
	}
	if f.Party != k || f.Parties != len(s.Owners) {
		return nil, fmt.Errorf("%s is party %d's of %d, %s is party %d of %d", path, f.Party+1, f.Parties, l.Name, k+1, len(s.Owners))
	}
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := s.checkBits(path, f.PublicKey); err != nil {
		return nil, err
	}
	return &f, nil
}

// publicKey is S's shared public key (paillier suite; nil otherwise).
func (s *Session) publicKey(l method.Local, keys *Keys) (*paillier.PublicKey, error) {
	if s.Settings.SSPP != proto.SuitePaillier {
		return nil, nil
	}
	if keys != nil && keys.Public != nil {
		return keys.Public, nil
	}
	path, err := s.keyPath(l, "public-key.json")
	if err != nil {
		return nil, err
	}
	var pk paillier.PublicKey
	if err := readJSON(path, &pk); err != nil {
		return nil, fmt.Errorf("the third party's public key: %w", err)
	}
	return &pk, s.checkBits(path, &pk)
}

// checkBits refuses a ceremony key of another size than the session's
// key_bits, which the report states.
func (s *Session) checkBits(path string, pk *paillier.PublicKey) error {
	if pk.Bits() != s.Settings.KeyBits {
		return fmt.Errorf("%s holds a %d-bit key, the session's key_bits is %d", path, pk.Bits(), s.Settings.KeyBits)
	}
	return nil
}

func (s *Session) keyPath(l method.Local, file string) (string, error) {
	if s.Settings.Keys == "" || l.Dir == "" {
		return "", fmt.Errorf("the paillier suite needs keys, the directory of the key ceremony's files (dppub keygen) on every member's machine")
	}
	return filepath.Join(l.Dir, s.Settings.Keys, file), nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Progress is the coordinator's attachment in one process: the engine's
// stages.
type Progress func(stage string, done, total int)

// Result is the in-process detail of a run (Outcome.Detail).
type Result struct {
	Engine  *marginal.Result
	Domain  *domain.Domain
	Parties []Party
	// KeysDealt says the Paillier key was dealt in this process.
	KeysDealt bool
}

// Party is one party as the result lists it.
type Party struct {
	Name       string
	Rho        float64
	Attributes []string
}

// Coordinate builds the synthesizer: the engine runs in a goroutine and
// each of its measurements is one request to the parties and S within
// this one session. With bins chosen from the data it first gathers every
// party's bins (proto.Gathering) and tells them to every member.
func (s *Session) Coordinate(src *randx.Source, attach any) (*method.Coordination, error) {
	progress, err := method.Attached[Progress](attach)
	if err != nil {
		return nil, err
	}
	engSrc, decodeSrc := src.Child(), src.Child()
	r := &engineRun{}
	var role protocol.Role
	if s.Settings.Link {
		role = s.counter(r, engSrc, progress)
	} else {
		if _, _, _, err := s.layout(); err != nil {
			return nil, err
		}
		if role, err = s.engineRole(r, engSrc, progress); err != nil {
			return nil, err
		}
	}
	publish := func(accts []*privacy.Accountant) (*method.Outcome, error) {
		if r.eng == nil {
			return nil, fmt.Errorf("the engine did not finish")
		}
		return r.ls.Publish(r.eng, r.dom, r.parties, accts, decodeSrc, src, false)
	}
	cleanup := func() {
		if r.driver != nil {
			r.driver.Stop()
		}
	}
	return &method.Coordination{Role: method.Rename(role, s.ID, s.names()), Publish: publish, Cleanup: cleanup}, nil
}

// engineRun is what the coordinator learns as its session goes on: the
// session for the linked records and chosen bins, its domain, the engine.
type engineRun struct {
	ls      *Session
	dom     *domain.Domain
	parties []Party
	eng     *marginal.Result
	driver  *proto.Driver
}

// counter is the coordinator of a session that links its parties'
// records first: it waits for every party's count of common records (it
// sees no blinded set), tells S, and then goes on as Coordinate does on
// the session for that count. A party's bins (proto.Binning), sent as
// soon as it has linked, may overtake another party's count: the
// Counter holds them for the gathering.
func (s *Session) counter(r *engineRun, engSrc *randx.Source, progress Progress) *psi.Counter {
	return psi.NewCounter(proto.CoordinatorID, s.ID, s.partyIDs(), []string{proto.ThirdPartyID}, func(n int) (protocol.Role, error) {
		ls, err := s.WithRecords(n)
		if err != nil {
			return nil, err
		}
		return ls.engineRole(r, engSrc, progress)
	})
}

// engineRole is the coordinator's role from the bins phase on: the
// gathering of the parties' bins when they are chosen from the data, then
// the engine's driver on the domain they make.
func (s *Session) engineRole(r *engineRun, engSrc *randx.Source, progress Progress) (protocol.Role, error) {
	if !s.needsBins() {
		return s.startEngine(r, engSrc, progress)
	}
	expect := s.expected()
	var notify []string
	for k := range s.Owners {
		notify = append(notify, proto.PartyID(k))
	}
	notify = append(notify, proto.ThirdPartyID)
	return proto.NewGathering(proto.CoordinatorID, expect, notify, func(all map[int][]float64) (protocol.Role, error) {
		ws, err := s.withCuts(all)
		if err != nil {
			return nil, err
		}
		return ws.startEngine(r, engSrc, progress)
	}), nil
}

// startEngine builds the engine's driver on the session's domain.
func (s *Session) startEngine(r *engineRun, engSrc *randx.Source, progress Progress) (protocol.Role, error) {
	dom, owners, ps, err := s.layout()
	if err != nil {
		return nil, err
	}
	eo, parties := s.engineOptions(dom, owners, progress)
	eo.Source = engSrc
	r.ls, r.dom, r.parties = s, dom, parties
	driver, err := proto.NewDriver(context.Background(), ps, func(ctx context.Context, m measurement.Measurer) error {
		var err error
		r.eng, err = marginal.Synthesize(ctx, m, eo)
		return err
	})
	if err != nil {
		return nil, err
	}
	r.driver = driver
	return driver, nil
}

// BinLocal runs the bins phase in one process over the roles Join built
// (in member order; after LinkLocal in a linked session): every party
// chooses its bins, as Start would send them, and every member is given
// all of them, as the coordinator's message would over the network. It
// returns the session with those bins (for RunMeasured); a session
// without the bins phase is returned as it is.
func (s *Session) BinLocal(roles []protocol.Role) (*Session, error) {
	if !s.needsBins() || s.cuts != nil {
		return s, nil
	}
	var bins []*proto.Binning
	for _, r := range roles {
		for r != nil {
			if b, ok := r.(*proto.Binning); ok {
				bins = append(bins, b)
				break
			}
			w, ok := r.(interface{ Unwrap() protocol.Role })
			if !ok {
				break
			}
			r = w.Unwrap()
		}
	}
	if len(bins) != len(s.Owners)+1 {
		return nil, fmt.Errorf("the bins phase needs %d parties' roles and S's, got %d", len(s.Owners), len(bins))
	}
	var all map[int][]float64
	g := proto.NewGathering(proto.CoordinatorID, s.expected(), nil, func(a map[int][]float64) (protocol.Role, error) {
		all = a
		return idle{}, nil
	})
	for _, b := range bins {
		if b.ID() == proto.ThirdPartyID {
			continue
		}
		own, err := b.Own()
		if err != nil {
			return nil, err
		}
		if _, err := g.Add(b.ID(), own); err != nil {
			return nil, err
		}
	}
	ws, err := s.withCuts(all)
	if err != nil {
		return nil, err
	}
	for _, b := range bins {
		// The messages are the PDP-MVDS roles' first messages (none).
		if _, err := b.Begin(all); err != nil {
			return nil, err
		}
	}
	return ws, nil
}

// expected maps every party's protocol ID to its numeric attributes.
func (s *Session) expected() map[string][]int {
	expect := map[string][]int{}
	for k, num := range s.numeric() {
		expect[proto.PartyID(k)] = num
	}
	return expect
}

// idle stands for the engine in BinLocal's gathering.
type idle struct{}

func (idle) ID() string                                            { return proto.CoordinatorID }
func (idle) Done() bool                                            { return true }
func (idle) Start() ([]protocol.Envelope, error)                   { return nil, nil }
func (idle) Handle(protocol.Envelope) ([]protocol.Envelope, error) { return nil, nil }

// RunMeasured runs the engine in one process over member roles built by
// Join (in member order), one protocol session per measurement, timing
// every phase. It draws from src exactly as Coordinate does.
func (s *Session) RunMeasured(ctx context.Context, roles []protocol.Role, accts []*privacy.Accountant, src *randx.Source,
	progress Progress, dealt bool) (*method.Outcome, []proto.Phase, error) {
	s, err := s.BinLocal(roles)
	if err != nil {
		return nil, nil, err
	}
	dom, owners, _, err := s.layout()
	if err != nil {
		return nil, nil, err
	}
	var parties []*proto.Party
	var third *proto.ThirdParty
	for _, r := range roles {
		switch x := method.Unwrap(r).(type) {
		case *proto.Party:
			parties = append(parties, x)
		case *proto.ThirdParty:
			third = x
		default:
			return nil, nil, fmt.Errorf("unexpected role %T", x)
		}
	}
	m, err := proto.NewMeasurer(proto.MeasurerOptions{Parties: parties, ThirdParty: third})
	if err != nil {
		return nil, nil, err
	}
	eo, listed := s.engineOptions(dom, owners, progress)
	eo.Source = src.Child()
	decodeSrc := src.Child()
	eng, err := marginal.Synthesize(ctx, m, eo)
	phases := m.Phases()
	if err != nil {
		return nil, phases, err
	}
	out, err := s.Publish(eng, dom, listed, accts, decodeSrc, src, dealt)
	return out, phases, err
}

// engineOptions are the engine's options (without its Source).
func (s *Session) engineOptions(dom *domain.Domain, owners []int, progress Progress) (marginal.Options, []Party) {
	st := s.Settings
	parties := make([]marginal.Party, len(s.Owners))
	var listed []Party
	for k, name := range s.Owners {
		var attrs []int
		for j, ow := range owners {
			if ow == k {
				attrs = append(attrs, j)
			}
		}
		// The bins were paid for out of the party's own budget.
		parties[k] = marginal.Party{Name: name, Rho: st.rho(name) - s.binRho(k), Attrs: attrs}
		names := make([]string, len(attrs))
		for i, j := range attrs {
			names[i] = dom.Name(j)
		}
		listed = append(listed, Party{Name: name, Rho: st.rho(name), Attributes: names})
	}
	return marginal.Options{
		Domain: dom, Parties: parties, Records: st.Records, Split: st.Split, Score: measurement.IInDif,
		OneWayNoise: measurement.Laplace, ScoreNoise: st.Mechanism, MarginalNoise: st.Mechanism,
		Combine: st.Combine(), GUM: infer.GUMOptions{Rounds: st.Rounds, Rows: st.Rows},
		Progress: progress,
	}, listed
}

// Publish decodes the engine's synthetic records and builds the report.
func (s *Session) Publish(eng *marginal.Result, dom *domain.Domain, parties []Party, accts []*privacy.Accountant,
	decodeSrc, src *randx.Source, dealt bool) (*method.Outcome, error) {
	syn, err := dom.Decode(eng.Data, decodeSrc)
	if err != nil {
		return nil, err
	}
	_, _, ps, err := s.layout()
	if err != nil {
		return nil, err
	}
	binRho := 0.0
	for k := range s.Owners {
		binRho += s.binRho(k)
	}
	report, err := Report(s.Settings, ps, eng, dom, accts, src, dealt, binRho)
	if err != nil {
		return nil, err
	}
	summary := fmt.Sprintf("%d of %d pairs selected; %d marginals measured", len(eng.Selection.Chosen), len(eng.Candidates), len(eng.Measured))
	return &method.Outcome{Table: syn, Report: report, Summary: summary,
		Detail: &Result{Engine: eng, Domain: dom, Parties: parties, KeysDealt: dealt}}, nil
}
