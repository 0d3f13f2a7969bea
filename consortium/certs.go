package consortium

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/big"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/dppub/dppub/internal/fsutil"
)

// InitOptions configure Init.
type InitOptions struct {
	// Validity of new member certificates (default one year); the CA's is
	// five times longer.
	Validity time.Duration
	// Now is the issuing time (default time.Now); tests set it.
	Now func() time.Time
}

// InitResult lists what Init wrote.
type InitResult struct {
	CreatedCA bool
	Issued    []string // members given a new certificate and key
	Kept      []string // members whose certificate already existed
}

// File names inside the certificate directory.
const (
	CACertFile = "ca.pem"
	CAKeyFile  = "ca-key.pem"
)

// CertFile is the certificate path of member name.
func (f *File) CertFile(name string) string { return filepath.Join(f.Path(f.Certs), name+".pem") }

// KeyFile is the private-key path of member name.
func (f *File) KeyFile(name string) string { return filepath.Join(f.Path(f.Certs), name+"-key.pem") }

// Init creates the consortium's CA (unless it exists) and a certificate
// and key for every member that lacks one, so that members added to the
// file later are issued certificates by the same CA. Keys are ECDSA P-256
// written with mode 0600; a member's certificate carries its identity
// dppub://<consortium>/<role>/<name> as its only URI SAN.
//
// Issuing every key in one place suits a walkthrough or one organisation's
// test bed; in a real consortium each member would generate its own key
// and have the CA sign a request.
func Init(f *File, o InitOptions) (*InitResult, error) {
	if o.Validity == 0 {
		o.Validity = 365 * 24 * time.Hour
	}
	if o.Validity < time.Hour {
		return nil, fmt.Errorf("consortium: certificate validity %v is shorter than an hour", o.Validity)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	dir := f.Path(f.Certs)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("consortium: %w", err)
	}
	res := &InitResult{}
	caCert, caKey, err := loadCA(f)
	if errors.Is(err, fs.ErrNotExist) {
		caCert, caKey, err = createCA(f, o)
		res.CreatedCA = true
	}
	if err != nil {
		return nil, err
	}
	for _, m := range f.Members {
		if _, err := os.Stat(f.CertFile(m.Name)); err == nil {
			if err := checkIssued(f, m, caCert); err != nil {
				return nil, err
			}
			res.Kept = append(res.Kept, m.Name)
			continue
		}
		if err := issue(f, m, caCert, caKey, o); err != nil {
			return nil, err
		}
		res.Issued = append(res.Issued, m.Name)
	}
	return res, nil
}

func newKey() (*ecdsa.PrivateKey, error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("consortium: generate key: %w", err)
	}
	return k, nil
}

func serial() (*big.Int, error) {
	s, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("consortium: serial number: %w", err)
	}
	return s, nil
}

func createCA(f *File, o InitOptions) (*x509.Certificate, crypto.Signer, error) {
	key, err := newKey()
	if err != nil {
		return nil, nil, err
	}
	sn, err := serial()
	if err != nil {
		return nil, nil, err
	}
	now := o.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          sn,
		Subject:               pkix.Name{CommonName: "dppub consortium " + f.Name + " CA", Organization: []string{f.Name}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(5 * o.Validity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
		// The CA may only name members of this consortium.
		PermittedURIDomains: []string{f.Name},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, nil, fmt.Errorf("consortium: create CA: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, fmt.Errorf("consortium: %w", err)
	}
	if err := writePEM(f.KeyFile("ca"), 0o600, key); err != nil {
		return nil, nil, err
	}
	if err := writeCertPEM(filepath.Join(f.Path(f.Certs), CACertFile), der); err != nil {
		return nil, nil, err
	}
	return cert, key, nil
}

func loadCA(f *File) (*x509.Certificate, crypto.Signer, error) {
	certPEM, err := os.ReadFile(filepath.Join(f.Path(f.Certs), CACertFile))
	if err != nil {
		return nil, nil, err
	}
	cert, err := parseCert(certPEM)
	if err != nil {
		return nil, nil, err
	}
	keyPEM, err := os.ReadFile(filepath.Join(f.Path(f.Certs), CAKeyFile))
	if err != nil {
		return nil, nil, fmt.Errorf("consortium: the CA certificate exists but its key cannot be read: %w", err)
	}
	key, err := parseKey(keyPEM)
	if err != nil {
		return nil, nil, err
	}
	return cert, key, nil
}

func issue(f *File, m Member, ca *x509.Certificate, caKey crypto.Signer, o InitOptions) error {
	key, err := newKey()
	if err != nil {
		return err
	}
	sn, err := serial()
	if err != nil {
		return err
	}
	id := f.Identity(m)
	now := o.Now()
	tmpl := &x509.Certificate{
		SerialNumber: sn,
		Subject:      pkix.Name{CommonName: m.Name, Organization: []string{f.Name}, OrganizationalUnit: []string{m.Role}},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(o.Validity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		URIs:         []*url.URL{id.URI()},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, key.Public(), caKey)
	if err != nil {
		return fmt.Errorf("consortium: issue certificate for %q: %w", m.Name, err)
	}
	if err := writePEM(f.KeyFile(m.Name), 0o600, key); err != nil {
		return err
	}
	return writeCertPEM(f.CertFile(m.Name), der)
}

// checkIssued makes sure a kept certificate still matches the file: a
// member whose role changed needs a new certificate.
func checkIssued(f *File, m Member, ca *x509.Certificate) error {
	b, err := os.ReadFile(f.CertFile(m.Name))
	if err != nil {
		return fmt.Errorf("consortium: %w", err)
	}
	cert, err := parseCert(b)
	if err != nil {
		return err
	}
	if err := cert.CheckSignatureFrom(ca); err != nil {
		return fmt.Errorf("consortium: %s was not issued by this consortium's CA (remove it to issue a new one): %w", f.CertFile(m.Name), err)
	}
	id, err := IdentityOf(cert)
	if err != nil {
		return err
	}
	if id != f.Identity(m) {
		return fmt.Errorf("consortium: %s names %v but the file says %v (remove it to issue a new one)", f.CertFile(m.Name), id, f.Identity(m))
	}
	return nil
}

func writePEM(path string, perm os.FileMode, key *ecdsa.PrivateKey) error {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return fmt.Errorf("consortium: %w", err)
	}
	return fsutil.WriteFileAtomic(path, perm, func(w io.Writer) error {
		return pem.Encode(w, &pem.Block{Type: "PRIVATE KEY", Bytes: der})
	})
}

func writeCertPEM(path string, der []byte) error {
	return fsutil.WriteFileAtomic(path, 0o644, func(w io.Writer) error {
		return pem.Encode(w, &pem.Block{Type: "CERTIFICATE", Bytes: der})
	})
}

func parseCert(b []byte) (*x509.Certificate, error) {
	return parsePEM(b, "CERTIFICATE", "certificate", x509.ParseCertificate)
}

func parseKey(b []byte) (crypto.Signer, error) {
	k, err := parsePEM(b, "PRIVATE KEY", "private key", x509.ParsePKCS8PrivateKey)
	if err != nil {
		return nil, err
	}
	s, ok := k.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("consortium: private key of type %T cannot sign", k)
	}
	return s, nil
}

// parsePEM parses with parse the first PEM block of b, which must be of
// type typ (a what, in the error).
func parsePEM[T any](b []byte, typ, what string, parse func([]byte) (T, error)) (T, error) {
	var zero T
	blk, _ := pem.Decode(b)
	if blk == nil || blk.Type != typ {
		return zero, fmt.Errorf("consortium: no PEM %s found", what)
	}
	v, err := parse(blk.Bytes)
	if err != nil {
		return zero, fmt.Errorf("consortium: %w", err)
	}
	return v, nil
}

// Credentials are what a member needs to speak mutual TLS.
type Credentials struct {
	Identity    Identity
	Certificate tls.Certificate
	// CAs holds the consortium's CA, the only root a peer may chain to.
	CAs *x509.CertPool
}

// LoadCredentials reads member name's certificate and key and the CA, and
// checks that the certificate was issued by the CA for the identity the
// file gives the member.
func LoadCredentials(f *File, name string) (*Credentials, error) {
	m, err := f.Member(name)
	if err != nil {
		return nil, err
	}
	return LoadCredentialsFiles(filepath.Join(f.Path(f.Certs), CACertFile), f.CertFile(name), f.KeyFile(name), f.Identity(m))
}

// LoadCredentialsFiles is LoadCredentials for explicit paths.
func LoadCredentialsFiles(caPath, certPath, keyPath string, want Identity) (*Credentials, error) {
	caPEM, err := os.ReadFile(caPath)
	if err != nil {
		return nil, fmt.Errorf("consortium: CA certificate: %w (run `dppub consortium init` first)", err)
	}
	ca, err := parseCert(caPEM)
	if err != nil {
		return nil, err
	}
	pair, err := tls.LoadX509KeyPair(certPath, keyPath)
	if err != nil {
		return nil, fmt.Errorf("consortium: member %q: %w (run `dppub consortium init` first)", want.Name, err)
	}
	leaf := pair.Leaf
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth}}); err != nil {
		return nil, fmt.Errorf("consortium: %s does not chain to the consortium CA: %w", certPath, err)
	}
	id, err := IdentityOf(leaf)
	if err != nil {
		return nil, err
	}
	if id != want {
		return nil, fmt.Errorf("consortium: %s is the certificate of %v, not of %v", certPath, id, want)
	}
	return &Credentials{Identity: id, Certificate: pair, CAs: pool}, nil
}
