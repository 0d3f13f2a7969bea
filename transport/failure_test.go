package transport

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/privacy"
)

// retryBudget is the step deadline of the tests of permanent failures: a
// failure that were retried would take at least this long.
const retryBudget = 30 * time.Second

// Each failure that no retry can change fails the session at once, with
// one line naming the member and the reason, well before the step
// deadline up to which transient failures are retried.
func TestPermanentFailuresFailAtOnce(t *testing.T) {
	SkipFaultsInShort(t)
	for _, tc := range []struct {
		name string
		// setup breaks spoke-2 and returns the address overrides to use.
		setup func(t *testing.T, n *testNet) map[string]string
		want  []string
	}{
		{"impostor", func(t *testing.T, n *testNet) map[string]string {
			a := n.addrs()
			a["spoke-2"] = a["spoke-1"]
			return a
		}, []string{"spoke-2 at ", "the server there is dppub://test/spoke/spoke-1, not dppub://test/spoke/spoke-2"}},
		{"certificate from another CA", func(t *testing.T, n *testNet) map[string]string {
			n.replace("spoke-2", NodeOptions{Credentials: otherCA(t, n.file, "spoke-2")})
			return n.addrs()
		}, []string{"spoke-2 at ", "its certificate is not signed by the consortium CA", "unknown authority"}},
		{"expired certificate", func(t *testing.T, n *testNet) map[string]string {
			n.replace("spoke-2", NodeOptions{Credentials: expired(t, n.file, "spoke-2")})
			return n.addrs()
		}, []string{"spoke-2 at ", "its certificate is refused", "expired"}},
		{"member trusts another CA", func(t *testing.T, n *testNet) map[string]string {
			// spoke-2's own certificate is the consortium's, but it trusts
			// another CA only: it refuses the hub in the TLS handshake.
			creds, err := consortium.LoadCredentials(n.file, "spoke-2")
			if err != nil {
				t.Fatal(err)
			}
			creds.CAs = otherCA(t, n.file, "spoke-2").CAs
			n.replace("spoke-2", NodeOptions{Credentials: creds})
			return n.addrs()
		}, []string{"spoke-2 at ", "refused hub's certificate", "unknown certificate authority"}},
		{"another transport version", func(t *testing.T, n *testNet) map[string]string {
			n.replace("spoke-2", NodeOptions{ProtocolVersion: ProtocolVersion + 1})
			return n.addrs()
		}, []string{"spoke-2 at ", fmt.Sprintf(`speaks dppub transport version "%d"; hub speaks "%d"`, ProtocolVersion+1, ProtocolVersion)}},
		{"plain HTTP server", func(t *testing.T, n *testNet) map[string]string {
			return fakeServer(t, n, "HTTP/1.1 400 Bad Request\r\n\r\n")
		}, []string{"spoke-2 at ", "speaks plain HTTP, not TLS"}},
		{"not TLS", func(t *testing.T, n *testNet) map[string]string {
			return fakeServer(t, n, "SSH-2.0-OpenSSH_9.6\r\n")
		}, []string{"spoke-2 at ", "does not speak TLS"}},
		{"budget refusal", func(t *testing.T, n *testNet) map[string]string {
			// The session asks for 0.25 of spoke-2's lifetime budget 1.
			if err := n.ledgers["spoke-2"].Spend("spoke-2", "earlier", chargeOf(0.9)); err != nil {
				t.Fatal(err)
			}
			return n.addrs()
		}, []string{"spoke-2 refused to join", "lifetime budget", "failed_precondition"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := newTestNetLimits(t, 3, nil, func(l *consortium.Limits) { l.StepTimeout.Duration = retryBudget })
			addrs := tc.setup(t, n)
			start := time.Now()
			_, err := n.runAt(0.25, 10, addrs)
			took := time.Since(start)
			t.Logf("%v: %v", took.Round(time.Millisecond), err)
			if err == nil {
				t.Fatal("the session ran")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q", w)
				}
			}
			if msg := err.Error(); strings.Contains(msg, "\n") || strings.Contains(msg, "spoke-3") {
				t.Errorf("want one line naming spoke-2 alone")
			}
			if took > retryBudget/6 {
				t.Errorf("took %v: retried a permanent failure (step deadline %v)", took, retryBudget)
			}
			for _, s := range []string{"spoke-1", "spoke-3"} {
				if b := n.balance(s); b.Entries != 0 {
					t.Errorf("%s spent although the session failed at the proposal: %+v", s, b)
				}
			}
		})
	}
}

// A member that is not listening yet (restarting) is retried until it
// listens, within unreachable_after (1.5 s here), and the session runs.
func TestRestartingMemberIsRetried(t *testing.T) {
	SkipFaultsInShort(t)
	n := newTestNetLimits(t, 2, nil, func(l *consortium.Limits) {
		l.StepTimeout.Duration, l.UnreachableAfter.Duration = 10*time.Second, 1500*time.Millisecond
	})
	addr := n.nodes["spoke-2"].Addr()
	if err := n.nodes["spoke-2"].Close(); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(500 * time.Millisecond)
		m, _ := n.file.Member("spoke-2")
		node, err := NewNode(NodeOptions{Consortium: n.file, Member: m.Name, Listen: addr, Ledger: n.ledgers["spoke-2"]})
		if err == nil {
			err = node.Start()
		}
		if err != nil {
			t.Error(err)
			return
		}
		t.Cleanup(func() { node.Close() })
	}()
	a := n.addrs()
	a["spoke-2"] = addr
	start := time.Now()
	if _, err := n.runAt(0.25, 10, a); err != nil {
		t.Fatal(err)
	}
	t.Logf("ran in %v with spoke-2 back after 0.5 s", time.Since(start).Round(time.Millisecond))
}

// A member that takes long to accept (building its role: reading a large
// dataset) is waited for up to the step deadline, and meanwhile the
// coordinator polls spoke-1, which accepted at once: without those polls
// spoke-1 would take the second of silence (over unreachable_after,
// 600 ms here) for a dead coordinator and abort.
func TestSlowJoinIsWaitedFor(t *testing.T) {
	SkipFaultsInShort(t)
	n := newTestNetLimits(t, 2, nil, func(l *consortium.Limits) { l.StepTimeout.Duration = 10 * time.Second })
	settings, _ := json.Marshal(echoSettings{Charge: 0.25, Payload: 10, SlowJoin: "spoke-2", JoinDelay: time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 2*retryBudget)
	defer cancel()
	start := time.Now()
	if _, err := n.nodes["hub"].Run(ctx, RunOptions{Method: "echo", Settings: settings, Addresses: n.addrs()}); err != nil {
		t.Fatal(err)
	}
	t.Logf("ran in %v with spoke-2 joining after 1 s", time.Since(start).Round(time.Millisecond))
}

// Members that are down (nothing listens at their addresses: connection
// refused on loopback) fail the session after unreachable_after (600 ms
// here), far within the step deadline (30 s), with one error naming
// every one of them; while it waits the coordinator says whom it waits
// for. The member that accepted spends nothing.
func TestUnreachableMembersFailSoon(t *testing.T) {
	n := newTestNetLimits(t, 3, nil, func(l *consortium.Limits) { l.StepTimeout.Duration = retryBudget })
	a := n.addrs()
	for _, name := range []string{"spoke-2", "spoke-3"} {
		if err := n.nodes[name].Close(); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	var notes []string
	settings, _ := json.Marshal(echoSettings{Charge: 0.25, Payload: 10})
	ctx, cancel := context.WithTimeout(context.Background(), 2*retryBudget)
	defer cancel()
	start := time.Now()
	_, err := n.nodes["hub"].Run(ctx, RunOptions{Method: "echo", Settings: settings, Addresses: a, Progress: func(s string) {
		mu.Lock()
		notes = append(notes, s)
		mu.Unlock()
	}})
	took := time.Since(start)
	t.Logf("failed after %v: %v", took.Round(time.Millisecond), err)
	want := fmt.Sprintf("2 members are unreachable: spoke-2 at %s, spoke-3 at %s: no connection for ", a["spoke-2"], a["spoke-3"])
	switch {
	case err == nil:
		t.Fatal("the session ran without two of its members")
	case !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "connection refused") || strings.Count(err.Error(), "\n") > 0:
		t.Errorf("error %q, want one line saying %q", err, want)
	case took > 5*time.Second:
		t.Errorf("took %v: retried for the step deadline, not unreachable_after", took)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, name := range []string{"spoke-2", "spoke-3"} {
		if !slices.ContainsFunc(notes, func(s string) bool { return strings.HasPrefix(s, "waiting for "+name+" at "+a[name]) }) {
			t.Errorf("no note that the coordinator waits for %s: %q", name, notes)
		}
	}
	// spoke-1 releases its reservation when the coordinator's end notice
	// arrives (at most a few ping intervals later).
	b := n.balance("spoke-1")
	for deadline := time.Now().Add(2 * time.Second); b.Running != 0 && time.Now().Before(deadline); b = n.balance("spoke-1") {
		time.Sleep(20 * time.Millisecond)
	}
	if b.Entries != 0 || b.Running != 0 {
		t.Errorf("spoke-1 spent or still holds budget: %+v", b)
	}
}

func TestPermanentClassification(t *testing.T) {
	n := &Node{self: consortium.Member{Name: "hub"}}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"connection refused", connect.NewError(connect.CodeUnavailable, &net.OpError{Op: "dial", Err: errors.New("connect: connection refused")}), false},
		{"rpc timeout", connect.NewError(connect.CodeDeadlineExceeded, context.DeadlineExceeded), false},
		{"cut mid-reply", connect.NewError(connect.CodeInternal, io.ErrUnexpectedEOF), false},
		{"member busy opening", connect.NewError(connect.CodeUnavailable, errors.New("session is being opened")), false},
		{"refused", connect.NewError(connect.CodeFailedPrecondition, errors.New("budget")), true},
		{"not allowed", connect.NewError(connect.CodePermissionDenied, errors.New("role")), true},
		{"bad message", connect.NewError(connect.CodeInvalidArgument, errors.New("garbage")), true},
		{"unauthenticated", connect.NewError(connect.CodeUnauthenticated, errors.New("no certificate")), true},
		{"impostor", connect.NewError(connect.CodeUnavailable, &certError{}), true},
		{"remote alert", connect.NewError(connect.CodeUnavailable, &net.OpError{Op: "remote error", Err: errors.New("tls: bad certificate")}), true},
		{"not TLS", connect.NewError(connect.CodeUnavailable, tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}), true},
		{"version", &versionError{theirs: "2", ours: "1"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reason, _, got := n.permanent(tc.err)
			if got != tc.want {
				t.Fatalf("permanent(%v) = %v (%q), want %v", tc.err, got, reason, tc.want)
			}
		})
	}
}

// fakeServer listens in place of spoke-2 and answers every connection
// with greeting; it returns the address overrides.
func fakeServer(t *testing.T, n *testNet, greeting string) map[string]string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_, _ = c.Write([]byte(greeting))
				_, _ = io.Copy(io.Discard, c)
			}()
		}
	}()
	a := n.addrs()
	a["spoke-2"] = ln.Addr().String()
	return a
}

func (n *testNet) runAt(charge float64, payload int, addrs map[string]string) (*Result, error) {
	settings, _ := json.Marshal(echoSettings{Charge: charge, Payload: payload})
	ctx, cancel := context.WithTimeout(context.Background(), 2*retryBudget)
	defer cancel()
	return n.nodes["hub"].Run(ctx, RunOptions{Method: "echo", Settings: settings, Addresses: addrs})
}

// otherCA returns member name's credentials from another CA of the same
// consortium: the same identity, certified by a stranger.
func otherCA(t *testing.T, f *consortium.File, name string) *consortium.Credentials {
	t.Helper()
	other := *f
	other.Certs = "other-certs"
	if _, err := consortium.Init(&other, consortium.InitOptions{}); err != nil {
		t.Fatal(err)
	}
	creds, err := consortium.LoadCredentials(&other, name)
	if err != nil {
		t.Fatal(err)
	}
	return creds
}

// expired returns member name's credentials certified by the consortium
// CA, but expired.
func expired(t *testing.T, f *consortium.File, name string) *consortium.Credentials {
	t.Helper()
	other := *f
	other.Certs = "expired-certs"
	if err := os.MkdirAll(other.Path(other.Certs), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{consortium.CACertFile, consortium.CAKeyFile} {
		b, err := os.ReadFile(filepath.Join(f.Path(f.Certs), file))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(other.Path(other.Certs), file), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	past := func() time.Time { return time.Now().Add(-48 * time.Hour) }
	if _, err := consortium.Init(&other, consortium.InitOptions{Now: past, Validity: 2 * time.Hour}); err != nil {
		t.Fatal(err)
	}
	pair, err := tls.LoadX509KeyPair(other.CertFile(name), other.KeyFile(name))
	if err != nil {
		t.Fatal(err)
	}
	creds, err := consortium.LoadCredentials(f, name)
	if err != nil {
		t.Fatal(err)
	}
	creds.Certificate = pair
	return creds
}

func chargeOf(eps float64) privacy.Charge {
	return privacy.Charge{Purpose: "earlier", Spec: dp.Spec{Guarantee: dp.Pure(eps)}}
}
