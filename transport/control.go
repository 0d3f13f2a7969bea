package transport

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/internal/wire"
	"github.com/dppub/dppub/privacy"
)

// Control message types, exchanged by the transport itself around a
// method's own messages. No method type may start with "dppub/".
const (
	// TypeOpen (coordinator → member, seq 1) proposes a session; the
	// member checks it, reserves budget and builds its role, or refuses.
	TypeOpen = "dppub/open"
	// TypeStart (coordinator → member, seq 2) starts the member's role once
	// every member has accepted, so no statistic leaves anyone before all
	// have agreed.
	TypeStart = "dppub/start"
	// TypeReceipt (member → coordinator) follows the member's last message:
	// what the session charged to its budget.
	TypeReceipt = "dppub/receipt"
	// TypeAbort (member → coordinator, seq 0) reports a member's failure.
	TypeAbort = "dppub/abort"
	// TypeEnd (coordinator → member, seq 0) closes a session, successfully
	// or not.
	TypeEnd = "dppub/end"
)

const controlPrefix = "dppub/"

// Participant is a member taking part in a session other than its
// coordinator, as the coordinator describes it in the Open message.
type Participant struct {
	Name    string
	Role    string
	Address string
	// Budget is what the session may spend of the member's data; nil for
	// members that hold none.
	Budget *dp.Guarantee
	// Delta, for a ρ-zCDP Budget, is the δ at which the member's ledger
	// counts the session against an (ε, δ) lifetime budget
	// (method.Member.Delta); 0 for none.
	Delta float64
	// Seed, when set, seeds the member's randomness: INSECURE, for tests
	// and reproducible experiments; members refuse it unless started with
	// AcceptSeed.
	Seed *uint64
	// Params is the method's own setup for this member.
	Params []byte
}

// Open proposes a session.
type Open struct {
	Method             string
	Coordinator        string
	CoordinatorAddress string
	Participants       []Participant
}

// MarshalBinary encodes the message.
func (o Open) MarshalBinary() ([]byte, error) {
	var w wire.Writer
	w.String(o.Method)
	w.String(o.Coordinator)
	w.String(o.CoordinatorAddress)
	w.Int(len(o.Participants))
	for _, p := range o.Participants {
		w.String(p.Name)
		w.String(p.Role)
		w.String(p.Address)
		writeGuarantee(&w, p.Budget)
		w.Float64(p.Delta)
		if p.Seed != nil {
			w.Uint64(1)
			w.Uint64(*p.Seed)
		} else {
			w.Uint64(0)
			w.Uint64(0)
		}
		w.Bytes(p.Params)
	}
	return w.Data(), nil
}

// maxParticipants bounds a session's size, so a malformed count cannot
// make a decoder loop for long.
const maxParticipants = 1024

// UnmarshalBinary decodes and checks what MarshalBinary wrote.
func (o *Open) UnmarshalBinary(b []byte) error {
	r := wire.NewReader(b)
	o.Method, o.Coordinator, o.CoordinatorAddress = r.String(), r.String(), r.String()
	n := r.Int()
	if r.Err() == nil && (n < 1 || n > maxParticipants) {
		return fmt.Errorf("transport: open: %d participants outside [1, %d]", n, maxParticipants)
	}
	o.Participants = nil
	for i := 0; i < n && r.Err() == nil; i++ {
		var p Participant
		p.Name, p.Role, p.Address = r.String(), r.String(), r.String()
		p.Budget = readGuarantee(r)
		p.Delta = r.Float64()
		if hasSeed, seed := r.Uint64(), r.Uint64(); hasSeed == 1 {
			p.Seed = &seed
		} else if hasSeed != 0 {
			return fmt.Errorf("transport: open: bad seed flag %d", hasSeed)
		}
		p.Params = r.Bytes()
		o.Participants = append(o.Participants, p)
	}
	if err := r.Finish(); err != nil {
		return fmt.Errorf("transport: open: %w", err)
	}
	return o.validate()
}

func (o *Open) validate() error {
	if o.Method == "" || len(o.Method) > 64 {
		return fmt.Errorf("transport: open: method name %q", o.Method)
	}
	if err := consortium.CheckName("member", o.Coordinator); err != nil {
		return fmt.Errorf("transport: open: coordinator: %w", err)
	}
	seen := map[string]bool{o.Coordinator: true}
	for _, p := range o.Participants {
		if err := consortium.CheckName("member", p.Name); err != nil {
			return fmt.Errorf("transport: open: %w", err)
		}
		if err := consortium.CheckName("role", p.Role); err != nil {
			return fmt.Errorf("transport: open: %w", err)
		}
		if seen[p.Name] {
			return fmt.Errorf("transport: open: member %q listed twice", p.Name)
		}
		seen[p.Name] = true
		if p.Budget != nil {
			if err := p.Budget.Validate(); err != nil {
				return fmt.Errorf("transport: open: budget of %q: %w", p.Name, err)
			}
		}
		if p.Delta != 0 && !(p.Delta > 0 && p.Delta < 1 && p.Budget != nil && p.Budget.Notion == dp.ZCDP) {
			return fmt.Errorf("transport: open: δ %v of %q with budget %s: a δ goes with a zCDP budget and lies in (0, 1)", p.Delta, p.Name, budgetText(p.Budget))
		}
	}
	return nil
}

// participant returns the entry for name.
func (o *Open) participant(name string) (Participant, bool) {
	for _, p := range o.Participants {
		if p.Name == name {
			return p, true
		}
	}
	return Participant{}, false
}

func writeGuarantee(w *wire.Writer, g *dp.Guarantee) {
	if g == nil {
		w.Int(0)
		w.Float64(0)
		w.Float64(0)
		w.Float64(0)
		return
	}
	w.Int(int(g.Notion))
	w.Float64(g.Epsilon)
	w.Float64(g.Delta)
	w.Float64(g.Rho)
}

func readGuarantee(r *wire.Reader) *dp.Guarantee {
	n := r.Int()
	g := dp.Guarantee{Epsilon: r.Float64(), Delta: r.Float64(), Rho: r.Float64()}
	if n == 0 || n < 0 || n > math.MaxInt8 {
		return nil
	}
	g.Notion = dp.Notion(n)
	return &g
}

// Receipt is what a member reports to the coordinator after its last
// message: the session's budget and charges against its data, and its
// dataset's lifetime budget after the session.
type Receipt struct {
	Budget    *dp.Guarantee    `json:"budget,omitempty"`
	Charges   []privacy.Charge `json:"charges,omitempty"`
	Lifetime  *dp.Guarantee    `json:"lifetime,omitempty"`
	Remaining *dp.Guarantee    `json:"remaining,omitempty"`
}

// MarshalBinary encodes the receipt (JSON: it is small and carries the
// charges' free-text purposes and notes).
func (r Receipt) MarshalBinary() ([]byte, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("transport: receipt: %w", err)
	}
	return b, nil
}

// UnmarshalBinary decodes and checks a receipt.
func (r *Receipt) UnmarshalBinary(b []byte) error {
	*r = Receipt{}
	if err := json.Unmarshal(b, r); err != nil {
		return fmt.Errorf("transport: receipt: %w", err)
	}
	for _, g := range []*dp.Guarantee{r.Budget, r.Lifetime} {
		if g != nil {
			if err := g.Validate(); err != nil {
				return fmt.Errorf("transport: receipt: %w", err)
			}
		}
	}
	for _, c := range r.Charges {
		if err := c.Spec.Guarantee.Validate(); err != nil {
			return fmt.Errorf("transport: receipt: charge %q: %w", c.Purpose, err)
		}
	}
	if len(r.Charges) > 0 && r.Budget == nil {
		return fmt.Errorf("transport: receipt: %d charges without a session budget", len(r.Charges))
	}
	return nil
}

// Notice is the body of Abort and End: whether the session succeeded and
// why not.
type Notice struct {
	OK     bool
	Reason string
}

// maxReason bounds a reason, so one failure cannot flood a log.
const maxReason = 4096

// MarshalBinary encodes the notice.
func (n Notice) MarshalBinary() ([]byte, error) {
	var w wire.Writer
	if n.OK {
		w.Uint64(1)
	} else {
		w.Uint64(0)
	}
	w.String(truncate(n.Reason, maxReason))
	return w.Data(), nil
}

// UnmarshalBinary decodes a notice.
func (n *Notice) UnmarshalBinary(b []byte) error {
	r := wire.NewReader(b)
	ok := r.Uint64()
	n.Reason = r.String()
	if err := r.Finish(); err != nil {
		return fmt.Errorf("transport: notice: %w", err)
	}
	if ok > 1 || len(n.Reason) > maxReason {
		return fmt.Errorf("transport: notice: bad flag %d or reason of %d bytes", ok, len(n.Reason))
	}
	n.OK = ok == 1
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n-3], "") + "..."
}
