package transport

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"connectrpc.com/connect"
)

// ProtocolVersion is the version of the transport protocol this build
// speaks: the envelope and control messages' encodings and the session
// rules. Every request and response carries it; members of different
// versions refuse each other at once instead of misreading each other's
// messages. Version 2 added each participant's δ to Open.
const ProtocolVersion = 2

// versionHeader carries ProtocolVersion on every request and response.
const versionHeader = "Dppub-Transport-Version"

// versionError is a peer speaking another transport version ("" for a
// dppub that predates versioning).
type versionError struct {
	theirs, ours string
}

func (e *versionError) Error() string {
	return fmt.Sprintf("transport: the peer speaks transport version %s, this member %s", quoteVersion(e.theirs), quoteVersion(e.ours))
}

func quoteVersion(v string) string {
	if v == "" {
		return "none (a dppub from before transport versions)"
	}
	return strconv.Quote(v)
}

// checkVersion refuses a caller of another transport version. The caller
// reads this member's version from the response header as well, so it
// can name the mismatch even when this refusal's text is not read.
func (n *Node) checkVersion(h http.Header) error {
	if v := h.Get(versionHeader); v != n.version {
		return connect.NewError(connect.CodeFailedPrecondition,
			fmt.Errorf("the caller speaks dppub transport version %s; %s speaks %s", quoteVersion(v), n.self.Name, quoteVersion(n.version)))
	}
	return nil
}

// withVersion states this member's transport version on every response,
// refusals and errors included.
func (n *Node) withVersion(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(versionHeader, n.version)
		next.ServeHTTP(w, r)
	})
}

// versionInterceptor sends this member's transport version with every
// call and checks the version the server states in its answer. A server
// that answered without one, or with another, speaks another protocol.
// Failures that never reached the server (no header) are left as they are.
func (n *Node) versionInterceptor() connect.UnaryInterceptorFunc {
	return func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			req.Header().Set(versionHeader, n.version)
			resp, err := next(ctx, req)
			if err == nil {
				if v := resp.Header().Get(versionHeader); v != n.version {
					return nil, &versionError{theirs: v, ours: n.version}
				}
				return resp, nil
			}
			var ce *connect.Error
			if errors.As(err, &ce) {
				if v := ce.Meta().Get(versionHeader); v != "" && v != n.version {
					return nil, &versionError{theirs: v, ours: n.version}
				}
			}
			return resp, err
		}
	}
}

// failure is a delivery that failed for good: refused by the member, or
// failing for a reason no retry can change, or not delivered within the
// sender's patience. Its text is one line naming the member.
type failure struct {
	msg string
	err error
}

func (e *failure) Error() string { return e.msg }
func (e *failure) Unwrap() error { return e.err }

// unreachableError is a member no delivery attempt could connect to for
// a while: not listening (its server is down), or an address nobody
// answers at.
type unreachableError struct {
	member, addr string
	silent       time.Duration
	err          error
}

func (e *unreachableError) Error() string {
	return fmt.Sprintf("%s at %s is unreachable: no connection for %v (%s)", e.member, e.addr, e.silent.Round(100*time.Millisecond), describe(e.err))
}

func (e *unreachableError) Unwrap() error { return e.err }

// notConnected reports whether a delivery attempt failed before it
// reached the member: the connection could not be made (refused, no
// route, a dial timeout). Failures after the member was reached (a cut
// connection, a slow answer, a request to retry) say the member is there.
func notConnected(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// permanent tells a delivery failure that no retry can change from a
// transient one. Transient: the member is not listening (restarting), the
// connection was cut or timed out, the member asks to retry
// (Unavailable). Those are retried until the sender's patience or the
// coordinator's liveness check decides. Permanent, with the reason: a
// certificate that does not chain to the consortium CA, or that names
// another member (an impostor), a TLS handshake the member refused (it
// does not trust this member's certificate), another transport version,
// and every refusal the member states with a connect code (policy,
// budget, unsound settings, authentication, bad messages).
func (n *Node) permanent(err error) (reason string, refused, ok bool) {
	var ve *versionError
	var ce *certError
	var op *net.OpError
	var rh tls.RecordHeaderError
	var cv *tls.CertificateVerificationError
	var ua x509.UnknownAuthorityError
	var ci x509.CertificateInvalidError
	switch {
	case errors.As(err, &ve):
		return fmt.Sprintf("speaks dppub transport version %s; %s speaks %s (every member must run a dppub of the same transport version)",
			quoteVersion(ve.theirs), n.self.Name, quoteVersion(ve.ours)), false, true
	case errors.As(err, &ce):
		return ce.reason(), false, true
	case errors.As(err, &op) && op.Op == "remote error":
		// A TLS alert: the member ended the handshake. Alerts name
		// configuration faults (an unknown CA, a bad or expired
		// certificate, no common protocol), never a passing condition.
		if strings.Contains(op.Err.Error(), "certificate") {
			return fmt.Sprintf("refused %s's certificate (%v): the two do not trust the same consortium CA", n.self.Name, op.Err), false, true
		}
		return fmt.Sprintf("refused the TLS handshake (%v)", op.Err), false, true
	case errors.As(err, &rh):
		return "the server there does not speak TLS", false, true
	case strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		// net/http's own text for a RecordHeaderError that looks like
		// HTTP; it does not wrap the TLS error.
		return "the server there speaks plain HTTP, not TLS", false, true
	case errors.As(err, &cv), errors.As(err, &ua), errors.As(err, &ci):
		return fmt.Sprintf("its certificate is refused (%v)", err), false, true
	case errors.Is(err, io.ErrUnexpectedEOF):
		// A connection cut mid-reply (a member killed while it answers) is
		// reported as an internal error: it says nothing about the
		// member's will.
		return "", false, false
	}
	switch connect.CodeOf(err) {
	case connect.CodeUnavailable, connect.CodeDeadlineExceeded, connect.CodeAborted, connect.CodeUnknown, connect.CodeCanceled:
		return "", false, false
	}
	return describe(err), true, true
}

// describe renders a connect error as its message and code.
func describe(err error) string {
	var ce *connect.Error
	if errors.As(err, &ce) {
		return fmt.Sprintf("%s (%s)", ce.Message(), ce.Code())
	}
	return err.Error()
}
