package transport

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"

	"github.com/dppub/dppub/consortium"
)

// serverTLS demands a client certificate chaining to the consortium CA;
// the handler then reads the caller's identity from it.
func serverTLS(c *consortium.Credentials) *tls.Config {
	return &tls.Config{
		MinVersion:   tls.VersionTLS13,
		Certificates: []tls.Certificate{c.Certificate},
		ClientCAs:    c.CAs,
		ClientAuth:   tls.RequireAndVerifyClientCert,
		NextProtos:   []string{"h2"},
	}
}

// clientTLS verifies the server against the consortium CA and checks that
// its certificate names the member we meant to reach. Members are named by
// certificate identity, not by host name (addresses may be bare IPs or
// change per session), so the standard host-name check is replaced by an
// explicit chain verification and identity check in VerifyConnection.
// Both fail with a *certError, which deliveries do not retry.
func clientTLS(c *consortium.Credentials, want consortium.Identity) *tls.Config {
	return &tls.Config{
		MinVersion:   tls.VersionTLS13,
		Certificates: []tls.Certificate{c.Certificate},
		NextProtos:   []string{"h2"},
		// Not skipped: VerifyConnection below does the full verification.
		InsecureSkipVerify: true,
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return &certError{want: want, err: fmt.Errorf("no certificate presented")}
			}
			inter := x509.NewCertPool()
			for _, ic := range cs.PeerCertificates[1:] {
				inter.AddCert(ic)
			}
			leaf := cs.PeerCertificates[0]
			if _, err := leaf.Verify(x509.VerifyOptions{Roots: c.CAs, Intermediates: inter,
				KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
				return &certError{want: want, err: err}
			}
			id, err := consortium.IdentityOf(leaf)
			if err != nil {
				return &certError{want: want, err: err}
			}
			if id != want {
				return &certError{want: want, got: id}
			}
			return nil
		},
	}
}

// certError is a server certificate this member refuses: not certified by
// the consortium CA (err), or certifying another member than the one
// dialled (got: an impostor, or a wrong address). Retrying cannot change
// either, so the session fails at once.
type certError struct {
	want consortium.Identity
	got  consortium.Identity
	err  error
}

func (e *certError) Error() string {
	if e.err != nil {
		return fmt.Sprintf("transport: the server at the address of %s: %s", e.want.Name, e.reason())
	}
	return fmt.Sprintf("transport: expected %v but the server is %v", e.want, e.got)
}

func (e *certError) Unwrap() error { return e.err }

// reason says what is wrong, for a one-line failure that already names
// the member and its address.
func (e *certError) reason() string {
	var ua x509.UnknownAuthorityError
	switch {
	case e.err == nil:
		return fmt.Sprintf("the server there is %v, not %v (an impostor, or a wrong address)", e.got, e.want)
	case errors.As(e.err, &ua):
		return fmt.Sprintf("its certificate is not signed by the consortium CA (%v)", e.err)
	}
	return fmt.Sprintf("its certificate is refused (%v)", e.err)
}

type peerKey struct{}

// peerInfo is the caller's identity as its verified certificate states it,
// or why there is none.
type peerInfo struct {
	id  consortium.Identity
	err error
}

// withPeer reads the caller's identity from the verified client
// certificate into the request context. The TLS layer has already checked
// the chain; the handlers refuse calls whose identity is missing.
func withPeer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p peerInfo
		if r.TLS == nil || len(r.TLS.VerifiedChains) == 0 || len(r.TLS.VerifiedChains[0]) == 0 {
			p.err = fmt.Errorf("transport: no verified client certificate")
		} else {
			p.id, p.err = consortium.IdentityOf(r.TLS.VerifiedChains[0][0])
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), peerKey{}, p)))
	})
}

func peerFrom(ctx context.Context) peerInfo {
	p, ok := ctx.Value(peerKey{}).(peerInfo)
	if !ok {
		return peerInfo{err: fmt.Errorf("transport: no peer information")}
	}
	return p
}
