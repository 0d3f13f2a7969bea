package transport

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"sort"
	"sync"

	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// Method adapts one multi-party protocol to the network. Its roles are
// the same step objects RunLocal drives in one process; a Method only
// says how to build them from a consortium and what to publish at the end.
type Method struct {
	// Name is the method's name on the command line, e.g. "ppca-dp-mh".
	Name string
	// CoordinatorRole is the consortium role that starts sessions and
	// publishes the result, e.g. "curator". Members with any other role
	// are refused when they try to open a session of this method.
	CoordinatorRole string
	// Prepare runs at the coordinator: it reads the settings, chooses the
	// participants and returns the session's setup.
	Prepare func(PrepareInput) (*Setup, error)
	// Join runs at each participant when the coordinator proposes a
	// session: it checks the proposal against the member's own data and
	// policy and returns the member's role, whose ID must be the member's
	// name. An error refuses the session; its text is sent to the
	// coordinator.
	Join func(JoinInput) (protocol.Role, error)
}

// PrepareInput is what the coordinator knows when preparing a session.
type PrepareInput struct {
	Consortium *consortium.File
	Self       consortium.Member
	// Settings are the method's settings (JSON), from the consortium
	// file's methods section or the command line.
	Settings json.RawMessage
	// Source is the coordinator's randomness; a seeded Source makes the
	// session reproducible and should hand seeds to participants.
	Source *randx.Source
	// Attach is the method-specific attachment of the coordinator's role
	// (method.Session.Coordinate's attach), from RunOptions.
	Attach any
}

// Setup is a prepared session.
type Setup struct {
	// Session is the session ID, unique per run.
	Session string
	// Role is the coordinator's own role (ID: the coordinator's name).
	Role protocol.Role
	// Participants are the other members, in the method's order.
	Participants []Participant
	// Finish builds the published result once every role is done, from
	// the participants' receipts (keyed by member name).
	Finish func(receipts map[string]Receipt) (*Outcome, error)
	// Cleanup, if set, runs when the session ends, successful or not
	// (e.g. to stop a goroutine the coordinator's role runs).
	Cleanup func()
}

// JoinInput is what a participant knows when asked to join.
type JoinInput struct {
	Consortium  *consortium.File
	Self        consortium.Member
	Session     string
	Coordinator string
	// Participants lists every participant, this member included.
	Participants []Participant
	// Params is the coordinator's setup for this member.
	Params []byte
	// Accountant is charged by the role before any noisy value leaves;
	// it holds the session's budget and is committed to the member's
	// ledger after every step. Nil for members that hold no data.
	Accountant *privacy.Accountant
	// Source is the member's own randomness (secure unless the session is
	// seeded and the member accepts seeds).
	Source *randx.Source
	Log    *slog.Logger
	// Credentials are the member's own certificate and the consortium's
	// CA: the role signs its statements with them and checks the other
	// members' (consortium.Peers).
	Credentials *consortium.Credentials
}

// Outcome is what a session publishes: a method's outcome, built as the
// one-process run builds it.
type Outcome = method.Outcome

// OutputFile is one further published file.
type OutputFile = method.OutputFile

var (
	registryMu sync.RWMutex
	registry   = map[string]Method{}
)

// Register adds a method. It panics on a duplicate or incomplete method:
// registration happens in init functions, where that is a programming
// error.
func Register(m Method) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if m.Name == "" || m.CoordinatorRole == "" || m.Prepare == nil || m.Join == nil {
		panic(fmt.Sprintf("transport: incomplete method %q", m.Name))
	}
	if _, dup := registry[m.Name]; dup {
		panic(fmt.Sprintf("transport: method %q registered twice", m.Name))
	}
	registry[m.Name] = m
}

// Lookup returns the method called name.
func Lookup(name string) (Method, error) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	m, ok := registry[name]
	if !ok {
		return Method{}, fmt.Errorf("transport: unknown method %q (registered: %v)", name, methodNamesLocked())
	}
	return m, nil
}

// Methods lists the registered method names.
func Methods() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	return methodNamesLocked()
}

func methodNamesLocked() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
