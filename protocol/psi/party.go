package psi

import (
	"fmt"

	cpsi "github.com/dppub/dppub/crypto/psi"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// PartyOptions configure one party of a linkage.
type PartyOptions struct {
	ID     string
	Params Params
	// IDs holds the party's ID of each of its rows: distinct and
	// non-empty. They never leave the party.
	IDs []string
	// Source draws the party's secret key (fresh for every linkage).
	Source *randx.Source
}

// Party is one party's role: it blinds its own IDs, re-blinds the others'
// sets on their way round the ring, broadcasts the sets it completes, and
// finds its common rows once it holds every fully blinded set.
type Party struct {
	o       PartyOptions
	me      int
	key     *cpsi.Key
	rows    []int           // rows[j]: the row of the j-th element it sent
	relayed map[string]bool // origins whose set it has re-blinded
	full    map[string][]cpsi.Element
	result  *Result
}

// Result is what a party learns: its own rows in the intersection, and
// the public counts. It learns more than these (package doc: which of its
// IDs each other party holds); Result keeps only what linkage needs.
type Result struct {
	// Rows are the party's rows whose ID every party holds, in the order
	// common to all parties.
	Rows []int
	// Sizes is every party's number of IDs, by name.
	Sizes map[string]int
}

// NewParty validates o.
func NewParty(o PartyOptions) (*Party, error) {
	if err := o.Params.Validate(); err != nil {
		return nil, err
	}
	me := o.Params.index(o.ID)
	if me < 0 {
		return nil, fmt.Errorf("psi: %q is not a party of this linkage", o.ID)
	}
	if o.Source == nil {
		return nil, fmt.Errorf("psi: party %q needs a randomness source", o.ID)
	}
	return &Party{o: o, me: me, relayed: map[string]bool{}, full: map[string][]cpsi.Element{}}, nil
}

// ID is the party's name.
func (p *Party) ID() string { return p.o.ID }

// Done reports whether the party has found its common rows.
func (p *Party) Done() bool { return p.result != nil }

// Start draws the key, blinds the party's IDs and sends them to the next
// party of the ring. (Hashing and blinding refuse a repeated or empty ID.)
func (p *Party) Start() ([]protocol.Envelope, error) {
	key, err := cpsi.NewKey(p.o.Source)
	if err != nil {
		return nil, err
	}
	elems, rows, err := key.Blind(p.o.IDs)
	if err != nil {
		return nil, fmt.Errorf("psi: party %s: %w", p.o.ID, err)
	}
	p.key, p.rows = key, rows
	return p.pass(p.o.ID, 1, elems)
}

// Handle re-blinds a set in transit or keeps a fully blinded one.
func (p *Party) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	switch e.Type {
	case TypeBlinded:
		var m BlindedMsg
		if err := m.UnmarshalBinary(e.Payload); err != nil {
			return nil, err
		}
		return p.relay(e.From, m)
	case TypeFull:
		var m FullMsg
		if err := m.UnmarshalBinary(e.Payload); err != nil {
			return nil, err
		}
		return nil, p.keep(e.From, m)
	}
	return nil, fmt.Errorf("psi: party %s cannot handle %q", p.o.ID, e.Type)
}

// relay re-blinds origin's set, which must come from the previous party
// having been blinded by every party from origin to it.
func (p *Party) relay(from string, m BlindedMsg) ([]protocol.Envelope, error) {
	o := p.o.Params.index(m.Origin)
	if o < 0 || o == p.me {
		return nil, fmt.Errorf("psi: party %s got a blinded set of %q, not another party's", p.o.ID, m.Origin)
	}
	if prev := p.o.Params.at(p.me, -1); from != prev {
		return nil, fmt.Errorf("psi: party %s got %s's set from %s, not from the previous party %s", p.o.ID, m.Origin, from, prev)
	}
	if want := p.o.Params.hops(o, p.me); m.Hops != want {
		return nil, fmt.Errorf("psi: party %s got %s's set blinded %d times, want %d", p.o.ID, m.Origin, m.Hops, want)
	}
	if p.relayed[m.Origin] {
		return nil, nil // a replay
	}
	if p.key == nil {
		return nil, fmt.Errorf("psi: party %s got %s's set before it started", p.o.ID, m.Origin)
	}
	elems, err := p.key.Reblind(m.Elements)
	if err != nil {
		return nil, fmt.Errorf("psi: party %s re-blinding %s's set: %w", p.o.ID, m.Origin, err)
	}
	p.relayed[m.Origin] = true
	return p.pass(m.Origin, m.Hops+1, elems)
}

// pass sends origin's set, blinded hops times, on to the next party; a
// set blinded by all k parties goes to every other party and is kept.
func (p *Party) pass(origin string, hops int, elems []cpsi.Element) ([]protocol.Envelope, error) {
	k := len(p.o.Params.Parties)
	if hops < k {
		e, err := protocol.Seal(p.o.Params.Session, p.o.ID, p.o.Params.at(p.me, 1), BlindedMsg{Origin: origin, Hops: hops, Elements: elems})
		if err != nil {
			return nil, err
		}
		return []protocol.Envelope{e}, nil
	}
	var out []protocol.Envelope
	for _, to := range p.o.Params.Parties {
		if to == p.o.ID {
			continue
		}
		e, err := protocol.Seal(p.o.Params.Session, p.o.ID, to, FullMsg{Origin: origin, Elements: elems})
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, p.store(origin, elems)
}

// keep records origin's fully blinded set, which only the party before
// origin in the ring (its last blinder) may send.
func (p *Party) keep(from string, m FullMsg) error {
	o := p.o.Params.index(m.Origin)
	if o < 0 {
		return fmt.Errorf("psi: party %s got the full set of %q, not a party", p.o.ID, m.Origin)
	}
	if last := p.o.Params.at(o, -1); from != last {
		return fmt.Errorf("psi: party %s got %s's full set from %s, not from its last blinder %s", p.o.ID, m.Origin, from, last)
	}
	if _, dup := p.full[m.Origin]; dup || p.result != nil {
		return nil // a replay
	}
	return p.store(m.Origin, m.Elements)
}

// store keeps a full set and, once all k are in, finds the common rows.
func (p *Party) store(origin string, elems []cpsi.Element) error {
	if origin == p.o.ID && len(elems) != len(p.rows) {
		return fmt.Errorf("psi: party %s's own set came back with %d elements, it sent %d", p.o.ID, len(elems), len(p.rows))
	}
	p.full[origin] = elems
	if len(p.full) < len(p.o.Params.Parties) {
		return nil
	}
	sets := make([][]cpsi.Element, len(p.o.Params.Parties))
	sizes := map[string]int{}
	for i, id := range p.o.Params.Parties {
		sets[i], sizes[id] = p.full[id], len(p.full[id])
	}
	pos, err := cpsi.Common(sets)
	if err != nil {
		return fmt.Errorf("psi: party %s: %w", p.o.ID, err)
	}
	rows := make([]int, len(pos[p.me]))
	for c, j := range pos[p.me] {
		rows[c] = p.rows[j]
	}
	p.result = &Result{Rows: rows, Sizes: sizes}
	p.full = nil // the sets are no longer needed
	return nil
}

// Result returns the party's common rows once Done.
func (p *Party) Result() (*Result, error) {
	if p.result == nil {
		return nil, fmt.Errorf("psi: party %s has not finished (holds %d of %d full sets)", p.o.ID, len(p.full), len(p.o.Params.Parties))
	}
	return p.result, nil
}
