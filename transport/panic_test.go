package transport

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

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
