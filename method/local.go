package method

import (
	"context"
	"errors"
	"fmt"
	"github.com/dppub/dppub/ownerstats"
	"strings"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// LocalOptions configure a run of a method in one process.
type LocalOptions struct {
	// Coordinator is the coordinator's name (default: its role).
	Coordinator string
	// Members are the names offered for each member role; Data holds the
	// tables of the members that hold data, by name.
	Members map[string][]string
	Data    map[string]*data.Table
	// Stats, instead of Data, are members' statistics computed elsewhere,
	// under the public Schemas given (Schemas is otherwise read off Data).
	Stats   map[string]*ownerstats.Statistics
	Schemas []data.Schema
	// Attach gives a member (by name) or the coordinator (by its name) a
	// method-specific attachment.
	Attach map[string]any
	Source *randx.Source
}

// AddOwner offers name as the next data owner of the run, holding t
// (nil for an owner that brings its Stats instead).
func (o *LocalOptions) AddOwner(name string, t *data.Table) {
	if o.Members == nil {
		o.Members = map[string][]string{}
	}
	o.Members[RoleOwner] = append(o.Members[RoleOwner], name)
	if t == nil {
		return
	}
	if o.Data == nil {
		o.Data = map[string]*data.Table{}
	}
	o.Data[name] = t
}

// LocalOwner is the name of the kth data owner (from 1) of LocalOwners.
func LocalOwner(k int) string { return fmt.Sprintf("owner-%d", k) }

// LocalOwners are the options of a one-process run whose data owners,
// owner-1 to owner-m, hold tables in order, drawing from src.
func LocalOwners(tables []*data.Table, src *randx.Source) LocalOptions {
	o := LocalOptions{Source: src}
	for i, t := range tables {
		o.AddOwner(LocalOwner(i+1), t)
	}
	return o
}

// Run is a finished one-process run.
type Run struct {
	Outcome     *Outcome
	Session     Session
	Accountants []*privacy.Accountant
	Traffic     *protocol.Stats
	// Facts sums what the members learnt about their own data (local use
	// only: the clamped count is not private).
	Facts Facts
}

// Built is a session opened in one process with every member's role.
type Built struct {
	Session     Session
	Roles       []protocol.Role
	Accountants []*privacy.Accountant
	// Facts sums what the members learnt about their own data (local use
	// only: the clamped count is not private).
	Facts Facts
	// Source is the run's randomness, after the members' draws: the
	// coordinator's.
	Source *randx.Source
}

// BuildLocal opens a session in one process exactly as a networked
// coordinator does (the same draws, in the same order) and builds every
// member's role, each with an accountant holding the budget the session
// names for it.
func BuildLocal(s Spec, st Settings, o LocalOptions) (*Built, error) {
	if !s.Multiparty() {
		return nil, fmt.Errorf("%s runs in one place, not as a session", s.Name)
	}
	src := o.Source
	if src == nil {
		src = randx.NewSecure()
	}
	st.SetDefaults()
	if d, ok := st.(RecordDefaults); ok {
		if n := recordCount(s.Split, o.Data, o.Stats); n > 0 {
			d.DefaultRecords(n)
		}
	}
	if err := st.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, SettingsError{err})
	}
	sess, err := s.Open(st, Open{ID: SessionID(s.Name, src.Uint64), Coordinator: o.coordinator(s),
		Members: o.Members, Schemas: localSchemas(s, o)})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	b := &Built{Session: sess, Source: src}
	members := sess.Members()
	names := make([]string, len(members))
	for i, m := range members {
		names[i] = m.Name
	}
	peers, err := LocalPeers(names)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	for _, m := range members {
		role, acct, err := localMember(sess, m, o, src, peers[m.Name], &b.Facts)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", s.Name, m.Name, err)
		}
		b.Roles = append(b.Roles, role)
		if acct != nil {
			b.Accountants = append(b.Accountants, acct)
		}
	}
	return b, nil
}

func (o LocalOptions) coordinator(s Spec) string {
	if o.Coordinator != "" {
		return o.Coordinator
	}
	return s.Coordinator
}

// RunLocal runs a method in one process: BuildLocal, then the
// coordinator's role, all driven by protocol.RunLocal, then the outcome.
func RunLocal(ctx context.Context, s Spec, st Settings, o LocalOptions) (*Run, error) {
	b, err := BuildLocal(s, st, o)
	if err != nil {
		return nil, err
	}
	c, err := b.Session.Coordinate(b.Source, o.Attach[o.coordinator(s)])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	if c.Cleanup != nil {
		defer c.Cleanup()
	}
	run := &Run{Session: b.Session, Accountants: b.Accountants, Facts: b.Facts}
	if run.Traffic, err = protocol.RunLocal(ctx, append(b.Roles, c.Role)...); err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, WithCharges(err, b.Accountants))
	}
	if run.Outcome, err = c.Publish(b.Accountants); err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	return run, nil
}

// WithCharges adds to a recovered panic (protocol.PanicError) what the
// accountants recorded, so that a crash after a charge does not hide that
// budget was spent: the panicked member's count of charges when one of
// accts is its own, else every member's. Other errors are returned as
// they are.
func WithCharges(err error, accts []*privacy.Accountant) error {
	var pe *protocol.PanicError
	if !errors.As(err, &pe) {
		return err
	}
	var all []string
	for _, a := range accts {
		if a.Party() == pe.Role {
			return fmt.Errorf("%w; charges recorded: %d", err, len(a.Charges()))
		}
		all = append(all, fmt.Sprintf("%s %d", a.Party(), len(a.Charges())))
	}
	return fmt.Errorf("%w; charges recorded by the members: %s", err, strings.Join(all, ", "))
}

// localSchemas are the public schemas of the members' tables: the first
// table's for a Rows method, every party's in order for Columns.
func localSchemas(s Spec, o LocalOptions) []data.Schema {
	if len(o.Schemas) > 0 {
		return o.Schemas
	}
	var out []data.Schema
	for _, role := range s.MemberRoles {
		for _, name := range o.Members[role] {
			t := o.Data[name]
			if t == nil {
				continue
			}
			out = append(out, t.Schema)
			if s.Split == Rows {
				return out
			}
		}
	}
	return out
}

// localMember builds one member's role with an accountant for its budget
// and a child of the run's randomness when it draws.
func localMember(sess Session, m Member, o LocalOptions, src *randx.Source, peers Peers, sum *Facts) (protocol.Role, *privacy.Accountant, error) {
	l := Local{Name: m.Name, Table: o.Data[m.Name], Statistics: o.Stats[m.Name], Attach: o.Attach[m.Name], Facts: &Facts{}, Peers: peers}
	if l.Statistics != nil && len(o.Schemas) == 1 {
		l.Schema = o.Schemas[0]
	}
	if m.Draws {
		l.Source = src.Child()
	}
	if m.Budget != nil {
		acct, err := privacy.NewAccountant(privacy.AccountantOptions{Party: m.Name, Budget: *m.Budget})
		if err != nil {
			return nil, nil, err
		}
		l.Accountant = acct
	}
	role, err := sess.Join(l)
	sum.Rows += l.Facts.Rows
	sum.Clamped += l.Facts.Clamped
	return role, l.Accountant, err
}

// recordCount is the number of records a session over the members'
// tables and statistics publishes from: their sum for owners of rows
// (disjoint records), else the smallest (parties of columns hold the
// same records, and with linkage the common ones are at most the
// smallest party's).
func recordCount(split Split, ts map[string]*data.Table, stats map[string]*ownerstats.Statistics) int {
	n := 0
	take := func(m int) {
		switch {
		case split == Rows:
			n += m
		case n == 0 || m < n:
			n = m
		}
	}
	for _, t := range ts {
		if t != nil {
			take(t.Len())
		}
	}
	for _, st := range stats {
		if st != nil && st.Moments != nil {
			take(st.Moments.N)
		}
	}
	return n
}
