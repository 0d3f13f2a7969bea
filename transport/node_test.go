package transport

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/privacy"
)

func TestEchoSessionChargesAndReceipts(t *testing.T) {
	n := newTestNet(t, 3, nil)
	res, err := n.run(0.25, 1000)
	if err != nil {
		t.Fatal(err)
	}
	pongs := res.Artifact.(map[string]any)["pongs"].(map[string]int)
	if len(pongs) != 3 || pongs["spoke-2"] != 1000 {
		t.Fatalf("pongs %v", pongs)
	}
	for _, s := range []string{"spoke-1", "spoke-2", "spoke-3"} {
		r := res.Receipts[s]
		if len(r.Charges) != 1 || *r.Budget != dp.Pure(0.25) || r.Remaining == nil || !near(r.Remaining.Epsilon, 0.75) {
			t.Fatalf("%s receipt %+v", s, r)
		}
		if b := n.balance(s); b.Entries != 1 || !near(b.Spent.Epsilon, 0.25) {
			t.Fatalf("%s ledger %+v", s, b)
		}
		if got := handled(res.Session, s).Load(); got != 1 {
			t.Fatalf("%s handled the ping %d times", s, got)
		}
	}
	// The members retire the session and remember it.
	time.Sleep(100 * time.Millisecond)
	for name, node := range n.nodes {
		node.mu.Lock()
		active, c := len(node.sessions), node.closed[res.Session]
		node.mu.Unlock()
		if active != 0 || c == nil || c.state != stateDone {
			t.Fatalf("%s: %d active sessions, closed entry %+v", name, active, c)
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }

// A member whose remaining lifetime budget is too small refuses at Open,
// and then nobody, not even the members who accepted, releases anything.
func TestBudgetRefusalStopsEveryone(t *testing.T) {
	n := newTestNet(t, 3, nil)
	if err := n.ledgers["spoke-2"].Spend("spoke-2", "earlier", privacy.Charge{Purpose: "earlier", Spec: dp.Spec{Guarantee: dp.Pure(0.9)}}); err != nil {
		t.Fatal(err)
	}
	res, err := n.run(0.25, 10)
	if err == nil {
		t.Fatalf("session ran: %+v", res)
	}
	t.Log(err)
	msg := err.Error()
	if !strings.Contains(msg, "spoke-2 refused to join") || !strings.Contains(msg, "lifetime budget") || strings.Contains(msg, "spoke-1") {
		t.Fatalf("error should name spoke-2 and the budget: %v", err)
	}
	for _, s := range []string{"spoke-1", "spoke-3"} {
		if b := n.balance(s); b.Entries != 0 {
			t.Fatalf("%s spent although the session was refused: %+v", s, b)
		}
	}
	// Reservations were released: a session that fits runs.
	if _, err := n.run(0.1, 10); err != nil {
		t.Fatal(err)
	}
}

// The session budget is enforced by the in-memory accountant; the
// lifetime budget by the ledger at commit time, before anything is sent.
func TestLedgerRefusalSendsNothing(t *testing.T) {
	n := newTestNet(t, 2, nil)
	// Another process... no: another session spent between Open and the
	// spoke's step. Emulate by spending from the test right after Open.
	orig := n.nodes["spoke-1"].opts.HandleDelay
	n.nodes["spoke-1"].opts.HandleDelay = 300 * time.Millisecond
	defer func() { n.nodes["spoke-1"].opts.HandleDelay = orig }()
	done := make(chan error, 1)
	go func() { _, err := n.run(0.5, 10); done <- err }()
	time.Sleep(150 * time.Millisecond) // the spoke is now delaying its step
	if err := n.ledgers["spoke-1"].Spend("spoke-1", "concurrent", privacy.Charge{Purpose: "other", Spec: dp.Spec{Guarantee: dp.Pure(0.6)}}); err != nil {
		t.Fatal(err)
	}
	err := <-done
	t.Log(err)
	if err == nil || !strings.Contains(err.Error(), "spoke-1") || !strings.Contains(err.Error(), "nothing was sent") {
		t.Fatalf("want spoke-1's ledger refusal, got %v", err)
	}
	if b := n.balance("spoke-1"); b.Entries != 1 {
		t.Fatalf("spoke-1 ledger %+v", b)
	}
}

func TestSlowMemberMissesTheStepDeadline(t *testing.T) {
	SkipFaultsInShort(t)
	n := newTestNet(t, 3, map[string]NodeOptions{"spoke-3": {HandleDelay: 5 * time.Second}})
	start := time.Now()
	_, err := n.run(0.1, 10)
	took := time.Since(start)
	t.Log(err)
	if err == nil || !strings.Contains(err.Error(), "spoke-3 has been handling echo/ping") || !strings.Contains(err.Error(), "step deadline") {
		t.Fatalf("want spoke-3 named for the step deadline, got %v", err)
	}
	t.Logf("aborted after %v (step deadline 0.8 s, handle delay 5 s)", took.Round(time.Millisecond))
}

func TestMemberShutdownAbortsTheSession(t *testing.T) {
	n := newTestNet(t, 3, map[string]NodeOptions{"spoke-2": {HandleDelay: 3 * time.Second}})
	go func() {
		time.Sleep(200 * time.Millisecond)
		n.nodes["spoke-2"].Close()
	}()
	_, err := n.run(0.1, 10)
	t.Log(err)
	if err == nil || !strings.Contains(err.Error(), "spoke-2") {
		t.Fatalf("want spoke-2 named, got %v", err)
	}
}

// A role that panics while handling a message ends its session with an
// error naming the member and its role, instead of crashing the node (and
// every other session it serves); the charge the role recorded before it
// panicked is in the budget ledger and the error says so. Before the
// role loop recovered panics, the spoke's node process died here (the
// whole test binary with it).
func TestRolePanicIsAnErrorWithItsCharges(t *testing.T) {
	if testing.Short() {
		t.Skip("a session between nodes over loopback TLS (seconds); runs without -short")
	}
	n := newTestNet(t, 1, nil)
	settings, _ := json.Marshal(echoSettings{Charge: 0.25, Payload: 3, Panic: true})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := n.nodes["hub"].Run(ctx, RunOptions{Method: "echo", Settings: settings, Addresses: n.addrs()})
	if err == nil {
		t.Fatal("the session succeeded although the spoke panicked")
	}
	t.Log(err)
	for _, want := range []string{"spoke-1 (spoke) panicked while handling echo/ping from hub", "index out of range", "charges recorded: 1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q", want)
		}
	}
	if b := n.balance("spoke-1"); b.Entries != 1 {
		t.Errorf("spoke-1's ledger holds %d entries, want the 1 charge made before the panic", b.Entries)
	}
	// The node still serves: an honest session runs after the panic.
	if _, err := n.run(0.25, 3); err != nil {
		t.Errorf("the node no longer serves after a role panicked: %v", err)
	}
}

func TestSeededSessionsNeedConsent(t *testing.T) {
	n := newTestNet(t, 1, nil)
	o := Open{Method: "echo", Coordinator: "hub", Participants: []Participant{{Name: "spoke-1", Role: "spoke", Budget: ptr(dp.Pure(0.1)), Seed: ptr(uint64(7))}}}
	_, err := n.nodes["spoke-1"].accept(n.file.Identity(mustMember(t, n, "hub")), "seeded", o)
	if err == nil || !strings.Contains(err.Error(), "seeded session is refused") {
		t.Fatalf("seed accepted: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }

// A retried or replayed envelope of a live session is acknowledged and
// not handed to the role again; a gap in the sequence is refused.
func TestReplayInLiveSessionIsIgnored(t *testing.T) {
	n := newTestNet(t, 2, map[string]NodeOptions{"spoke-1": {HandleDelay: 500 * time.Millisecond}})
	done := make(chan *Result, 1)
	go func() {
		res, err := n.run(0.1, 10)
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	spoke := n.nodes["spoke-1"]
	var s *session
	for deadline := time.Now().Add(5 * time.Second); s == nil; time.Sleep(5 * time.Millisecond) {
		spoke.mu.Lock()
		for _, cand := range spoke.sessions {
			cand.mu.Lock()
			if cand.lastSeq["hub"] == 3 { // open, start, ping
				s = cand
			}
			cand.mu.Unlock()
		}
		spoke.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatal("the ping never reached spoke-1")
		}
	}
	c, err := n.nodes["hub"].client("spoke-1", spoke.Addr())
	if err != nil {
		t.Fatal(err)
	}
	ping := envelope{Session: s.id, From: "hub", To: "spoke-1", Seq: 3, Type: "echo/ping", Payload: make([]byte, 10)}
	resp, err := c.Deliver(t.Context(), connect.NewRequest(toProto(ping)))
	if err != nil || !resp.Msg.GetDuplicate() {
		t.Fatalf("replayed ping: %v, %v", resp, err)
	}
	ping.Seq = 5
	_, err = c.Deliver(t.Context(), connect.NewRequest(toProto(ping)))
	if connect.CodeOf(err) != connect.CodeFailedPrecondition {
		t.Fatalf("gap in sequence: %v", err)
	}
	res := <-done
	if res == nil {
		return
	}
	if got := handled(res.Session, "spoke-1").Load(); got != 1 {
		t.Fatalf("spoke-1 handled the ping %d times", got)
	}
}

// A message over the limit is refused by its sender, naming the limit.
func TestOversizedMessageIsNotSent(t *testing.T) {
	n := newTestNet(t, 1, nil)
	_, err := n.run(0.1, 1<<20)
	if err == nil || !strings.Contains(err.Error(), "max_message_bytes") {
		t.Fatalf("want the size limit named, got %v", err)
	}
}
