package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dppub/dppub/budgetstore"
	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
)

// The echo method: the hub pings every spoke; each spoke charges its
// budget, then answers. It exercises the transport without any real
// method's mathematics.

type echoSettings struct {
	Charge  float64 `json:"charge"`
	Payload int     `json:"payload"`
	// Panic makes every spoke panic after its charge (TestRolePanicIsAnErrorWithItsCharges).
	Panic bool `json:"panic,omitempty"`
	// SlowJoin names a spoke that takes JoinDelay to build its role (as
	// an owner reading a large dataset does) before it accepts.
	SlowJoin  string        `json:"slow_join,omitempty"`
	JoinDelay time.Duration `json:"join_delay,omitempty"`
}

type rawMsg struct {
	typ string
	b   []byte
}

func (m rawMsg) MessageType() string            { return m.typ }
func (m rawMsg) MarshalBinary() ([]byte, error) { return m.b, nil }

type hubRole struct {
	id, session string
	spokes      []string
	payload     int
	pongs       map[string]int
}

func (h *hubRole) ID() string { return h.id }
func (h *hubRole) Start() ([]protocol.Envelope, error) {
	var out []protocol.Envelope
	for _, s := range h.spokes {
		e, err := protocol.Seal(h.session, h.id, s, rawMsg{"echo/ping", make([]byte, h.payload)})
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}
func (h *hubRole) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	if e.Type != "echo/pong" {
		return nil, fmt.Errorf("hub cannot handle %q", e.Type)
	}
	h.pongs[e.From] = len(e.Payload)
	return nil, nil
}
func (h *hubRole) Done() bool { return len(h.pongs) == len(h.spokes) }

// spokeHandled counts pings handled, by session/member, across a test.
var spokeHandled sync.Map

func handled(session, member string) *atomic.Int32 {
	c, _ := spokeHandled.LoadOrStore(session+"/"+member, new(atomic.Int32))
	return c.(*atomic.Int32)
}

type spokeRole struct {
	id, hub, session string
	acct             *privacy.Accountant
	charge           float64
	panics           bool
	done             bool
}

func (s *spokeRole) ID() string                          { return s.id }
func (s *spokeRole) Start() ([]protocol.Envelope, error) { return nil, nil }
func (s *spokeRole) Done() bool                          { return s.done }
func (s *spokeRole) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	if e.Type != "echo/ping" || e.From != s.hub {
		return nil, fmt.Errorf("spoke cannot handle %q from %q", e.Type, e.From)
	}
	handled(s.session, s.id).Add(1)
	if s.acct != nil {
		if err := s.acct.Spend(privacy.Charge{Purpose: "pong", Spec: dp.Spec{Guarantee: dp.Pure(s.charge)}}); err != nil {
			return nil, err
		}
	}
	if s.panics {
		var counts []float64
		_ = counts[len(e.Payload)] // a bug after the charge: index out of range
	}
	s.done = true
	out, err := protocol.Seal(s.session, s.id, s.hub, rawMsg{"echo/pong", e.Payload})
	return []protocol.Envelope{out}, err
}

var sessionCounter atomic.Int64

func init() {
	Register(Method{Name: "echo", CoordinatorRole: "hub",
		Prepare: func(in PrepareInput) (*Setup, error) {
			var st echoSettings
			if err := json.Unmarshal(in.Settings, &st); err != nil {
				return nil, err
			}
			id := fmt.Sprintf("echo-%d-%d", os.Getpid(), sessionCounter.Add(1))
			h := &hubRole{id: in.Self.Name, session: id, payload: st.Payload, pongs: map[string]int{}}
			budget := dp.Pure(st.Charge)
			setup := &Setup{Session: id, Role: h}
			params, _ := json.Marshal(st)
			for _, m := range in.Consortium.WithRole("spoke") {
				h.spokes = append(h.spokes, m.Name)
				setup.Participants = append(setup.Participants, Participant{Name: m.Name, Role: "spoke", Budget: &budget, Params: params})
			}
			setup.Finish = func(r map[string]Receipt) (*Outcome, error) {
				return &Outcome{Artifact: map[string]any{"pongs": h.pongs, "receipts": r}}, nil
			}
			return setup, nil
		},
		Join: func(in JoinInput) (protocol.Role, error) {
			var st echoSettings
			if err := json.Unmarshal(in.Params, &st); err != nil {
				return nil, err
			}
			if in.Self.Name == st.SlowJoin {
				time.Sleep(st.JoinDelay)
			}
			return &spokeRole{id: in.Self.Name, hub: in.Coordinator, session: in.Session, acct: in.Accountant, charge: st.Charge, panics: st.Panic}, nil
		}})
}

// testNet is a hub and spokes served in this process over loopback TLS.
type testNet struct {
	t       testing.TB
	file    *consortium.File
	nodes   map[string]*Node
	ledgers map[string]*budgetstore.Store
}

func testLimits() consortium.Limits {
	l := consortium.DefaultLimits()
	l.PingInterval.Duration = 50 * time.Millisecond
	l.UnreachableAfter.Duration = 600 * time.Millisecond
	l.StepTimeout.Duration = 800 * time.Millisecond
	l.MaxMessageBytes = 1 << 20
	return l
}

func newTestNet(t testing.TB, spokes int, opts map[string]NodeOptions) *testNet {
	t.Helper()
	return newTestNetLimits(t, spokes, opts, nil)
}

// newTestNetLimits is newTestNet with limits changed from testLimits.
func newTestNetLimits(t testing.TB, spokes int, opts map[string]NodeOptions, limits func(*consortium.Limits)) *testNet {
	t.Helper()
	dir := t.TempDir()
	f := consortium.File{Name: "test", Limits: testLimits(),
		Members: []consortium.Member{{Name: "hub", Role: "hub", Address: "127.0.0.1:1"}}}
	if limits != nil {
		limits(&f.Limits)
	}
	for i := 1; i <= spokes; i++ {
		f.Members = append(f.Members, consortium.Member{Name: fmt.Sprintf("spoke-%d", i), Role: "spoke", Address: "127.0.0.1:1",
			Dataset: &consortium.Dataset{Path: "x.csv", Schema: "s.json"}, Budget: &consortium.Budget{Epsilon: 1}})
	}
	b, _ := json.Marshal(f)
	path := filepath.Join(dir, "consortium.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	file, err := consortium.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := consortium.Init(file, consortium.InitOptions{}); err != nil {
		t.Fatal(err)
	}
	n := &testNet{t: t, file: file, nodes: map[string]*Node{}, ledgers: map[string]*budgetstore.Store{}}
	for _, m := range file.Members {
		o := opts[m.Name]
		o.Consortium, o.Member, o.Listen = file, m.Name, "127.0.0.1:0"
		if m.Dataset != nil {
			st, err := budgetstore.Open(budgetstore.Options{Path: file.LedgerPath(m)})
			if err != nil {
				t.Fatal(err)
			}
			n.ledgers[m.Name] = st
			o.Ledger = st
			t.Cleanup(func() { st.Close() })
		}
		node, err := NewNode(o)
		if err != nil {
			t.Fatal(err)
		}
		if err := node.Start(); err != nil {
			t.Fatal(err)
		}
		n.nodes[m.Name] = node
		t.Cleanup(func() { node.Close() })
	}
	return n
}

// replace stops member name's node and starts another in its place, on a
// new port, with o (its consortium, member, listen address and ledger
// filled in).
func (n *testNet) replace(name string, o NodeOptions) *Node {
	n.t.Helper()
	if err := n.nodes[name].Close(); err != nil {
		n.t.Fatal(err)
	}
	o.Consortium, o.Member, o.Listen, o.Ledger = n.file, name, "127.0.0.1:0", n.ledgers[name]
	node, err := NewNode(o)
	if err != nil {
		n.t.Fatal(err)
	}
	if err := node.Start(); err != nil {
		n.t.Fatal(err)
	}
	n.nodes[name] = node
	n.t.Cleanup(func() { node.Close() })
	return node
}

func (n *testNet) addrs() map[string]string {
	out := map[string]string{}
	for name, node := range n.nodes {
		out[name] = node.Addr()
	}
	return out
}

func (n *testNet) run(charge float64, payload int) (*Result, error) {
	settings, _ := json.Marshal(echoSettings{Charge: charge, Payload: payload})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return n.nodes["hub"].Run(ctx, RunOptions{Method: "echo", Settings: settings, Addresses: n.addrs()})
}

func (n *testNet) balance(name string) budgetstore.Balance {
	n.t.Helper()
	m, _ := n.file.Member(name)
	b, err := n.ledgers[name].Balance(m.DatasetName())
	if err != nil {
		n.t.Fatal(err)
	}
	return b
}

func mustMember(t *testing.T, n *testNet, name string) consortium.Member {
	t.Helper()
	m, err := n.file.Member(name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
