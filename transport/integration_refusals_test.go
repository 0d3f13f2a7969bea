// Between real processes, bad callers and bad messages are refused and
// replayed messages acknowledged and ignored, and the owner keeps serving.

package transport_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/transport"
	"github.com/dppub/dppub/transport/gen/transportv1"
	"github.com/dppub/dppub/transport/gen/transportv1/transportv1connect"
)

// rawClient speaks to a member with the given certificate, without
// checking the server (the tests probe the server's checks).
func rawClient(t *testing.T, creds *consortium.Credentials, addr string) transportv1connect.TransportServiceClient {
	t.Helper()
	protocols := new(http.Protocols)
	protocols.SetHTTP2(true)
	hc := &http.Client{Transport: &http.Transport{Protocols: protocols,
		TLSClientConfig: &tls.Config{Certificates: []tls.Certificate{creds.Certificate}, InsecureSkipVerify: true, NextProtos: []string{"h2"}}}}
	t.Cleanup(hc.CloseIdleConnections)
	return transportv1connect.NewTransportServiceClient(hc, "https://"+addr, connect.WithGRPC(), connect.WithSendMaxBytes(64<<20),
		connect.WithInterceptors(sendVersion(transport.ProtocolVersion)))
}

// sendVersion states a transport version as members do, so that the
// probes reach the checks behind the version check.
func sendVersion(v int) connect.UnaryInterceptorFunc {
	return func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			req.Header().Set("Dppub-Transport-Version", strconv.Itoa(v))
			return next(ctx, req)
		}
	}
}

func deliver(c transportv1connect.TransportServiceClient, e *transportv1.Envelope) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := c.Deliver(ctx, connect.NewRequest(e))
	if err != nil {
		return false, err
	}
	return resp.Msg.GetDuplicate(), nil
}

func wantCode(t *testing.T, what string, err error, code connect.Code, text string) {
	t.Helper()
	if connect.CodeOf(err) != code || !strings.Contains(fmt.Sprint(err), text) {
		t.Fatalf("%s: want %v containing %q, got %v", what, code, text, err)
	}
}

// Bad callers and bad messages are refused and the owner keeps serving; a
// replayed message is acknowledged and ignored.
func TestRefusalsReplaysAndTheOwnerKeepsServing(t *testing.T) {
	c := newCluster(t, 3, 3000, func(l *consortium.Limits) { l.MaxMessageBytes = 2 << 20 })
	c.serveAll()
	owner1 := c.addrs["owner-1"]
	load := func(f *consortium.File, name string) *consortium.Credentials {
		cr, err := consortium.LoadCredentials(f, name)
		if err != nil {
			t.Fatal(err)
		}
		return cr
	}
	curator := rawClient(t, load(c.file, "curator"), owner1)
	asOwner2 := rawClient(t, load(c.file, "owner-2"), owner1)

	t.Run("certificate from another CA", func(t *testing.T) {
		// The same consortium and member names, but another CA.
		other := *c.file
		other.Certs = "other-certs"
		if _, err := consortium.Init(&other, consortium.InitOptions{}); err != nil {
			t.Fatal(err)
		}
		cl := rawClient(t, load(&other, "curator"), owner1)
		_, err := deliver(cl, &transportv1.Envelope{Session: "s", From: "curator", To: "owner-1", Seq: 1, Type: transport.TypeOpen})
		if err == nil {
			t.Fatal("a certificate from another CA was accepted")
		}
		t.Log(err)
	})
	t.Run("sender claims another member's name", func(t *testing.T) {
		_, err := deliver(asOwner2, &transportv1.Envelope{Session: "s", From: "curator", To: "owner-1", Seq: 1, Type: transport.TypeOpen})
		wantCode(t, "forged from", err, connect.CodePermissionDenied, "claims to come from")
	})
	t.Run("owner uses the curator's role", func(t *testing.T) {
		open := transport.Open{Method: "ppca-dp-mh", Coordinator: "owner-2", CoordinatorAddress: c.addrs["owner-2"],
			Participants: []transport.Participant{{Name: "owner-1", Role: "owner"}}}
		b, _ := open.MarshalBinary()
		_, err := deliver(asOwner2, &transportv1.Envelope{Session: "s2", From: "owner-2", To: "owner-1", Seq: 1, Type: transport.TypeOpen, Payload: b})
		wantCode(t, "owner as coordinator", err, connect.CodePermissionDenied, `only the "curator" role coordinates it`)
	})
	t.Run("caller of another transport version", func(t *testing.T) {
		cl := transportv1connect.NewTransportServiceClient(&http.Client{Transport: &http.Transport{Protocols: protocols(),
			TLSClientConfig: &tls.Config{Certificates: []tls.Certificate{load(c.file, "curator").Certificate}, InsecureSkipVerify: true, NextProtos: []string{"h2"}}}},
			"https://"+owner1, connect.WithGRPC(), connect.WithInterceptors(sendVersion(transport.ProtocolVersion+1)))
		_, err := deliver(cl, &transportv1.Envelope{Session: "s", From: "curator", To: "owner-1", Seq: 1, Type: transport.TypeOpen})
		wantCode(t, "another version", err, connect.CodeFailedPrecondition,
			fmt.Sprintf(`the caller speaks dppub transport version "%d"; owner-1 speaks "%d"`, transport.ProtocolVersion+1, transport.ProtocolVersion))
	})
	t.Run("oversized message", func(t *testing.T) {
		_, err := deliver(curator, &transportv1.Envelope{Session: "s3", From: "curator", To: "owner-1", Seq: 1, Type: transport.TypeOpen, Payload: make([]byte, 3<<20)})
		wantCode(t, "oversized", err, connect.CodeResourceExhausted, "")
	})
	t.Run("malformed messages", func(t *testing.T) {
		_, err := deliver(curator, &transportv1.Envelope{Session: "s4", From: "curator", To: "owner-1", Seq: 1, Type: transport.TypeOpen, Payload: []byte("garbage")})
		wantCode(t, "garbage open", err, connect.CodeInvalidArgument, "open")
		_, err = deliver(curator, &transportv1.Envelope{Session: "s 5", From: "curator", To: "owner-1", Seq: 1, Type: "x"})
		wantCode(t, "bad session", err, connect.CodeInvalidArgument, "session")
		_, err = deliver(curator, &transportv1.Envelope{Session: "s6", From: "curator", To: "owner-1", Seq: 4, Type: "ppca-dp-mh/model"})
		wantCode(t, "unknown session", err, connect.CodeNotFound, "no session")
		// Not a protobuf message at all, straight over HTTP/2.
		req, _ := http.NewRequest("POST", "https://"+owner1+transportv1connect.TransportServiceDeliverProcedure, strings.NewReader("\x00\x00\x00\x00\x05\xff\xff\xff\xff\xff"))
		req.Header.Set("Content-Type", "application/grpc")
		protocols := new(http.Protocols)
		protocols.SetHTTP2(true)
		hc := &http.Client{Transport: &http.Transport{Protocols: protocols, TLSClientConfig: &tls.Config{
			Certificates: []tls.Certificate{load(c.file, "curator").Certificate}, InsecureSkipVerify: true, NextProtos: []string{"h2"}}}}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body) // trailers arrive after the body
		resp.Body.Close()
		if st := resp.Header.Get("Grpc-Status") + resp.Trailer.Get("Grpc-Status"); st == "" || st == "0" {
			t.Fatalf("garbage protobuf accepted: status %q", st)
		}
	})

	c.servesAndIgnoresReplays(t, curator)
}

// servesAndIgnoresReplays runs a real session after the refusals, then
// replays its messages to owner-1 as the curator (acknowledged and
// ignored), and checks owner-1's ledger (the one session) and its log
// (the ignored duplicate, the refused handshake).
func (c *cluster) servesAndIgnoresReplays(t *testing.T, curator transportv1connect.TransportServiceClient) {
	// The owners still serve a real session.
	out := filepath.Join(c.dir, "synth.csv")
	r := c.run(out)
	if r.err != nil {
		t.Fatalf("session after the refusals: %v\n%s", r.err, r.stderr)
	}
	session := regexp.MustCompile(`session (ppca-dp-mh-[0-9a-f]+)`).FindStringSubmatch(r.stdout)
	if session == nil {
		t.Fatalf("no session ID in:\n%s", r.stdout)
	}
	t.Run("replayed messages", func(t *testing.T) {
		// The model (seq 3) of the finished session is acknowledged and
		// ignored; its Open never runs the session again.
		dup, err := deliver(curator, &transportv1.Envelope{Session: session[1], From: "curator", To: "owner-1", Seq: 3, Type: "ppca-dp-mh/model", Payload: []byte("x")})
		if err != nil || !dup {
			t.Fatalf("replayed model: duplicate=%v, %v", dup, err)
		}
		_, err = deliver(curator, &transportv1.Envelope{Session: session[1], From: "curator", To: "owner-1", Seq: 1, Type: transport.TypeOpen, Payload: []byte("x")})
		wantCode(t, "replayed open", err, connect.CodeAlreadyExists, "already ran")
		_, err = deliver(curator, &transportv1.Envelope{Session: session[1], From: "curator", To: "owner-1", Seq: 9, Type: "ppca-dp-mh/model"})
		wantCode(t, "new message in a finished session", err, connect.CodeFailedPrecondition, "over")
	})
	c.stop("owner-1")
	if b := c.ledger("owner-1"); b.Entries != 2 || b.Sessions != 1 {
		t.Fatalf("owner-1's ledger after refusals and replays: %+v", b)
	}
	if log := c.log("owner-1"); !strings.Contains(log, "ignored a duplicate") || !strings.Contains(log, "TLS handshake error") {
		t.Fatalf("owner-1's log lacks the replay or the refused handshake:\n%s", log)
	}
}

func protocols() *http.Protocols {
	p := new(http.Protocols)
	p.SetHTTP2(true)
	return p
}
