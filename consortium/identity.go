package consortium

import (
	"crypto/x509"
	"fmt"
	"net/url"
	"strings"
)

// Scheme is the URI scheme of member identities.
const Scheme = "dppub"

// Identity names a member: its consortium, role and name.
type Identity struct {
	Consortium string
	Role       string
	Name       string
}

// URI returns dppub://<consortium>/<role>/<name>.
func (id Identity) URI() *url.URL {
	return &url.URL{Scheme: Scheme, Host: id.Consortium, Path: "/" + id.Role + "/" + id.Name}
}

func (id Identity) String() string { return id.URI().String() }

// ParseIdentity reads a dppub URI.
func ParseIdentity(u *url.URL) (Identity, error) {
	if u == nil || u.Scheme != Scheme || u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Port() != "" {
		return Identity{}, fmt.Errorf("consortium: %q is not a dppub://<consortium>/<role>/<name> identity", u)
	}
	parts := strings.Split(strings.TrimPrefix(u.Path, "/"), "/")
	if len(parts) != 2 {
		return Identity{}, fmt.Errorf("consortium: %q is not a dppub://<consortium>/<role>/<name> identity", u)
	}
	id := Identity{Consortium: u.Host, Role: parts[0], Name: parts[1]}
	for _, c := range []struct{ kind, v string }{{"consortium", id.Consortium}, {"role", id.Role}, {"member", id.Name}} {
		if err := CheckName(c.kind, c.v); err != nil {
			return Identity{}, fmt.Errorf("%w (in identity %q)", err, u)
		}
	}
	return id, nil
}

// IdentityOf reads the identity of a certificate: its one dppub URI SAN.
// The certificate must have been verified against the consortium's CA.
func IdentityOf(cert *x509.Certificate) (Identity, error) {
	var found []Identity
	for _, u := range cert.URIs {
		if u.Scheme != Scheme {
			continue
		}
		id, err := ParseIdentity(u)
		if err != nil {
			return Identity{}, err
		}
		found = append(found, id)
	}
	if len(found) != 1 {
		return Identity{}, fmt.Errorf("consortium: certificate %q carries %d dppub identities, want exactly 1", cert.Subject.CommonName, len(found))
	}
	return found[0], nil
}
