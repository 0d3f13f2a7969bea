package roles

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/dppub/dppub/internal/wire"
	"github.com/dppub/dppub/protocol"
)

// TypeCuts is the message of the bins phase: a party's bin edges of its
// own numeric attributes (party → coordinator), then every party's
// (coordinator → parties and S).
const TypeCuts = typePrefix + "cuts"

// maxHeldBins bounds the messages a role keeps for the PDP-MVDS roles
// while it waits for the domain. The coordinator sends the domain before
// its first request, and a party sends nothing to another party before
// it has the domain, so an honest run holds only messages that overtake
// the domain on another route.
const maxHeldBins = 1 << 12

// Cuts are bin edges (lower edges, as domain.Options.Cuts) by
// global attribute index. Each party chooses those of its own numeric
// attributes from its own column under DP, so they are public.
type Cuts struct {
	Edges map[int][]float64
}

// MessageType names the message for the protocol envelope.
func (*Cuts) MessageType() string { return TypeCuts }

// MarshalBinary encodes the edges in attribute order.
func (c *Cuts) MarshalBinary() ([]byte, error) {
	var w wire.Writer
	attrs := slices.Sorted(maps.Keys(c.Edges))
	w.Ints(attrs)
	for _, a := range attrs {
		w.Float64s(c.Edges[a])
	}
	return w.Data(), nil
}

// UnmarshalBinary decodes what MarshalBinary wrote and checks that every
// attribute's edges are finite and strictly increasing, at most
// MaxUint16+1 of them (the protocol's cell indices are 16-bit).
func (c *Cuts) UnmarshalBinary(b []byte) error {
	r := wire.NewReader(b)
	attrs := r.Ints()
	if len(attrs) > math.MaxUint16 {
		return fmt.Errorf("pdpmvds: cuts for %d attributes", len(attrs))
	}
	c.Edges = make(map[int][]float64, len(attrs))
	for _, a := range attrs {
		c.Edges[a] = r.Float64s()
	}
	if err := r.Finish(); err != nil {
		return fmt.Errorf("pdpmvds: cuts: %w", err)
	}
	for a, e := range c.Edges {
		if err := checkEdges(a, e); err != nil {
			return err
		}
	}
	if len(c.Edges) != len(attrs) {
		return fmt.Errorf("pdpmvds: cuts name an attribute twice in %v", attrs)
	}
	return nil
}

func checkEdges(a int, e []float64) error {
	if len(e) == 0 || len(e) > math.MaxUint16+1 {
		return fmt.Errorf("pdpmvds: %d bin edges for attribute %d", len(e), a)
	}
	for i, v := range e {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("pdpmvds: bin edge %v of attribute %d is not finite", v, a)
		}
		if i > 0 && !(v > e[i-1]) {
			return fmt.Errorf("pdpmvds: bin edges of attribute %d are not increasing at %v", a, v)
		}
	}
	return nil
}

// Binning is a party's or S's role in a session whose numeric bins are
// chosen from the data: a party first chooses the bins of its own
// numeric attributes (Choose: a release charged to its own accountant)
// and sends their edges to the coordinator; then the party, or S, waits
// for every party's edges from the coordinator and runs the role Next
// builds on the domain they make. Messages of that role that overtake
// the edges are held.
type Binning struct {
	protocol.Prelude
	id, coordinator string
	choose          func() (map[int][]float64, error)
	next            func(all map[int][]float64) (protocol.Role, error)
	own             map[int][]float64
	started         bool
}

// NewBinning is a party's bins phase (choose set) or S's (choose nil).
func NewBinning(id, coordinator string, choose func() (map[int][]float64, error), next func(all map[int][]float64) (protocol.Role, error)) *Binning {
	b := &Binning{id: id, coordinator: coordinator, choose: choose, next: next}
	b.Prelude = protocol.NewPrelude(protocol.PreludeOptions{
		Package: "pdpmvds", Member: id, Coordinator: coordinator, Awaited: TypeCuts,
		Describe: "bin edges", Limit: maxHeldBins,
		Take: func(payload []byte) ([]protocol.Envelope, error) {
			var c Cuts
			if err := c.UnmarshalBinary(payload); err != nil {
				return nil, err
			}
			return b.Begin(c.Edges)
		},
	})
	return b
}

// Own chooses the party's edges, once (nil for S): what Start sends.
func (b *Binning) Own() (map[int][]float64, error) {
	if b.started || b.choose == nil {
		return b.own, nil
	}
	b.started = true
	own, err := b.choose()
	if err != nil {
		return nil, err
	}
	for a, e := range own {
		if err := checkEdges(a, e); err != nil {
			return nil, err
		}
	}
	b.own = own
	return own, nil
}

// Start chooses a party's edges and sends them to the coordinator.
func (b *Binning) Start() ([]protocol.Envelope, error) {
	if b.choose == nil {
		return nil, nil
	}
	if b.started {
		return nil, fmt.Errorf("pdpmvds: %s has already chosen its bins", b.id)
	}
	own, err := b.Own()
	if err != nil {
		return nil, err
	}
	e, err := protocol.Seal("", b.id, b.coordinator, &Cuts{Edges: own})
	if err != nil {
		return nil, err
	}
	return []protocol.Envelope{e}, nil
}

// Begin builds the next role on every party's edges (what the
// coordinator sends; in one process, the caller gives them) and hands it
// the messages held so far. A party checks that its own edges came back
// unchanged: the domain it encodes its columns on is the one it chose.
func (b *Binning) Begin(all map[int][]float64) ([]protocol.Envelope, error) {
	return b.Prelude.Begin(func() (protocol.Role, error) {
		if b.choose != nil && !b.started {
			return nil, fmt.Errorf("pdpmvds: %s was told the bins before it chose its own", b.id)
		}
		for a, e := range b.own {
			if !slices.Equal(all[a], e) {
				return nil, fmt.Errorf("pdpmvds: %s chose bin edges %v for attribute %d, the coordinator sent %v", b.id, e, a, all[a])
			}
		}
		return b.next(all)
	})
}

// Gathering is the coordinator's bins phase: it waits for every party's
// edges, checks that each sent exactly those of its own numeric
// attributes (Expect), tells all of them to every member (Notify), and
// then runs the role Next builds on them.
type Gathering struct {
	id     string
	expect map[string][]int
	notify []string
	next   func(all map[int][]float64) (protocol.Role, error)
	got    map[string]bool
	all    map[int][]float64
	inner  protocol.Role
}

// NewGathering waits for the edges of the parties in expect (role ID →
// the attributes whose edges it must send, possibly none).
func NewGathering(id string, expect map[string][]int, notify []string, next func(all map[int][]float64) (protocol.Role, error)) *Gathering {
	return &Gathering{id: id, expect: expect, notify: notify, next: next, got: map[string]bool{}, all: map[int][]float64{}}
}

// ID is the coordinator's.
func (g *Gathering) ID() string { return g.id }

// Done reports whether the next role is done.
func (g *Gathering) Done() bool { return g.inner != nil && g.inner.Done() }

// Unwrap is the next role once built, nil before.
func (g *Gathering) Unwrap() protocol.Role { return g.inner }

// Start sends nothing: the parties choose their bins first.
func (g *Gathering) Start() ([]protocol.Envelope, error) { return nil, nil }

// Handle collects the edges, then hands every message to the next role.
func (g *Gathering) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	if g.inner != nil {
		return g.inner.Handle(e)
	}
	if e.Type != TypeCuts {
		return nil, fmt.Errorf("pdpmvds: the coordinator got %s from %s before every party had sent its bins", e.Type, e.From)
	}
	var c Cuts
	if err := c.UnmarshalBinary(e.Payload); err != nil {
		return nil, err
	}
	return g.Add(e.From, c.Edges)
}

// Add takes one party's edges (Handle; in one process, the caller gives
// them) and, once every party's are in, starts the next role.
func (g *Gathering) Add(from string, edges map[int][]float64) ([]protocol.Envelope, error) {
	want, known := g.expect[from]
	switch {
	case !known:
		return nil, fmt.Errorf("pdpmvds: the coordinator got bin edges from %s, not a party of the session", from)
	case g.got[from]:
		return nil, fmt.Errorf("pdpmvds: %s sent its bin edges twice", from)
	case g.inner != nil:
		return nil, fmt.Errorf("pdpmvds: bin edges from %s after the domain was set", from)
	}
	if got := slices.Sorted(maps.Keys(edges)); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
		return nil, fmt.Errorf("pdpmvds: %s sent bin edges for attributes %v, its numeric attributes are %v", from, got, want)
	}
	g.got[from] = true
	for a, e := range edges {
		g.all[a] = e
	}
	if len(g.got) < len(g.expect) {
		return nil, nil
	}
	inner, err := g.next(g.all)
	if err != nil {
		return nil, err
	}
	out, err := protocol.Broadcast("", g.id, g.notify, &Cuts{Edges: g.all})
	if err != nil {
		return nil, err
	}
	g.inner = inner
	first, err := inner.Start()
	if err != nil {
		return nil, err
	}
	return append(out, first...), nil
}

// All is every party's edges once gathered (nil before).
func (g *Gathering) All() map[int][]float64 {
	if g.inner == nil {
		return nil
	}
	return g.all
}
