package method

import (
	"context"
	"fmt"

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
	// Attach gives a member (by name) or the coordinator (by its name) a
	// method-specific attachment.
	Attach map[string]any
	Source *randx.Source
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

// RunLocal runs a method in one process: it opens the session exactly as
// a networked coordinator does (the same draws, in the same order), builds
// every member's role and the coordinator's, drives them with
// protocol.RunLocal and publishes. The members' accountants hold the
// budgets the session names for them.
func RunLocal(ctx context.Context, s Spec, st Settings, o LocalOptions) (*Run, error) {
	if !s.Multiparty() {
		return nil, fmt.Errorf("%s runs in one place, not as a session", s.Name)
	}
	src := o.Source
	if src == nil {
		src = randx.NewSecure()
	}
	st.SetDefaults()
	if d, ok := st.(RecordDefaults); ok {
		if n := smallestTable(o.Data); n > 0 {
			d.DefaultRecords(n)
		}
	}
	if err := st.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	coord := o.Coordinator
	if coord == "" {
		coord = s.Coordinator
	}
	schemas := localSchemas(s, o)
	sess, err := s.Open(st, Open{ID: SessionID(s.Name, src.Uint64), Coordinator: coord, Members: o.Members, Schemas: schemas})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	run := &Run{Session: sess}
	var roles []protocol.Role
	for _, m := range sess.Members() {
		role, acct, err := localMember(sess, m, o, src, &run.Facts)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", s.Name, m.Name, err)
		}
		roles = append(roles, role)
		if acct != nil {
			run.Accountants = append(run.Accountants, acct)
		}
	}
	c, err := sess.Coordinate(src, o.Attach[coord])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	if c.Cleanup != nil {
		defer c.Cleanup()
	}
	if run.Traffic, err = protocol.RunLocal(ctx, append(roles, c.Role)...); err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	if run.Outcome, err = c.Publish(run.Accountants); err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	return run, nil
}

// localSchemas are the public schemas of the members' tables: the first
// table's for a Rows method, every party's in order for Columns.
func localSchemas(s Spec, o LocalOptions) []data.Schema {
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
func localMember(sess Session, m Member, o LocalOptions, src *randx.Source, sum *Facts) (protocol.Role, *privacy.Accountant, error) {
	l := Local{Name: m.Name, Table: o.Data[m.Name], Attach: o.Attach[m.Name], Facts: &Facts{}}
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

func smallestTable(ts map[string]*data.Table) int {
	n := 0
	for _, t := range ts {
		if t != nil && (n == 0 || t.Len() < n) {
			n = t.Len()
		}
	}
	return n
}
