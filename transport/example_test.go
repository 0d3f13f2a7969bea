package transport_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/transport"
)

// note is a one-message protocol body.
type note string

func (note) MessageType() string              { return "hello/note" }
func (n note) MarshalBinary() ([]byte, error) { return []byte(n), nil }

// greeter sends one note to each listener and is done when all answered.
type greeter struct {
	id, session string
	to          []string
	got         []string
}

func (g *greeter) ID() string { return g.id }
func (g *greeter) Start() ([]protocol.Envelope, error) {
	var out []protocol.Envelope
	for _, l := range g.to {
		e, err := protocol.Seal(g.session, g.id, l, note("hello "+l))
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}
func (g *greeter) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	g.got = append(g.got, string(e.Payload))
	return nil, nil
}
func (g *greeter) Done() bool { return len(g.got) == len(g.to) }

// listener answers the greeting.
type listener struct {
	id   string
	done bool
}

func (l *listener) ID() string                          { return l.id }
func (l *listener) Start() ([]protocol.Envelope, error) { return nil, nil }
func (l *listener) Done() bool                          { return l.done }
func (l *listener) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	l.done = true
	r, err := protocol.Seal(e.Session, l.id, e.From, note(l.id+" heard "+string(e.Payload)))
	return []protocol.Envelope{r}, err
}

// A method plugs into the transport by registering its role constructors;
// the nodes then run it over mutual TLS.
func Example() {
	transport.Register(transport.Method{Name: "hello", CoordinatorRole: "greeter",
		Prepare: func(in transport.PrepareInput) (*transport.Setup, error) {
			g := &greeter{id: in.Self.Name, session: "hello-1"}
			setup := &transport.Setup{Session: g.session, Role: g}
			for _, m := range in.Consortium.WithRole("listener") {
				g.to = append(g.to, m.Name)
				setup.Participants = append(setup.Participants, transport.Participant{Name: m.Name, Role: m.Role})
			}
			setup.Finish = func(map[string]transport.Receipt) (*transport.Outcome, error) {
				return &transport.Outcome{Artifact: g.got}, nil
			}
			return setup, nil
		},
		Join: func(in transport.JoinInput) (protocol.Role, error) { return &listener{id: in.Self.Name}, nil },
	})

	dir, _ := os.MkdirTemp("", "hello")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "consortium.json")
	_ = os.WriteFile(path, []byte(`{"name": "hello", "members": [
	  {"name": "alice", "role": "greeter", "address": "127.0.0.1:0"},
	  {"name": "bob", "role": "listener", "address": "127.0.0.1:0"}]}`), 0o644)
	file, err := consortium.Load(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := consortium.Init(file, consortium.InitOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	nodes := map[string]*transport.Node{}
	for _, name := range []string{"alice", "bob"} {
		n, err := transport.NewNode(transport.NodeOptions{Consortium: file, Member: name, Listen: "127.0.0.1:0"})
		if err == nil {
			err = n.Start()
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		defer n.Close()
		nodes[name] = n
	}
	res, err := nodes["alice"].Run(context.Background(), transport.RunOptions{Method: "hello",
		Addresses: map[string]string{"bob": nodes["bob"].Addr()}})
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := json.Marshal(res.Artifact)
	fmt.Println(string(b))
	// Output:
	// ["bob heard hello bob"]
}
