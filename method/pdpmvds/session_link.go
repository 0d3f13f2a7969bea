// A linked session: the parties first link their records by a private set
// intersection of their IDs, then run on their common records in the order
// of their IDs.

package pdpmvds

import (
	"context"
	"fmt"
	"slices"
	"strings"

	cpsi "github.com/dppub/dppub/crypto/psi"
	"github.com/dppub/dppub/method"
	proto "github.com/dppub/dppub/method/pdpmvds/roles"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/protocol/psi"
	"github.com/dppub/dppub/randx"
)

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
