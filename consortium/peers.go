package consortium

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/binary"
	"fmt"
)

// Peers signs a member's protocol statements with its consortium
// certificate's key and checks another member's with that member's
// certificate: the signature carries the signer's certificate, which must
// chain to the consortium's CA and name the identity this member's own
// consortium file gives the member. A coordinator that relays statements
// (the owners' key-agreement keys) can neither forge nor swap them unless
// it holds that member's key. It satisfies method.Peers.
type Peers struct {
	file  *File
	creds *Credentials
}

// NewPeers returns the signer and checker of the member whose credentials
// are creds, in consortium f.
func NewPeers(f *File, creds *Credentials) (*Peers, error) {
	if f == nil || creds == nil || creds.Certificate.Leaf == nil && len(creds.Certificate.Certificate) == 0 {
		return nil, fmt.Errorf("consortium: peers need the consortium file and the member's credentials")
	}
	if _, ok := creds.Certificate.PrivateKey.(crypto.Signer); !ok {
		return nil, fmt.Errorf("consortium: the key of %v cannot sign", creds.Identity)
	}
	return &Peers{file: f, creds: creds}, nil
}

// Sign signs SHA-256(msg) with the member's certificate key (ECDSA, ASN.1)
// and prefixes the certificate: uint32 length ‖ certificate DER ‖
// signature.
func (p *Peers) Sign(msg []byte) ([]byte, error) {
	digest := sha256.Sum256(msg)
	sig, err := p.creds.Certificate.PrivateKey.(crypto.Signer).Sign(rand.Reader, digest[:], crypto.SHA256)
	if err != nil {
		return nil, fmt.Errorf("consortium: signing as %v: %w", p.creds.Identity, err)
	}
	der := p.creds.Certificate.Certificate[0]
	out := binary.BigEndian.AppendUint32(nil, uint32(len(der)))
	out = append(out, der...)
	return append(out, sig...), nil
}

// Verify checks that sig is member's signature of msg: its certificate
// chains to the consortium CA and carries the identity the local
// consortium file gives member.
func (p *Peers) Verify(member string, msg, sig []byte) error {
	m, err := p.file.Member(member)
	if err != nil {
		return err
	}
	want := p.file.Identity(m)
	if len(sig) < 4 {
		return fmt.Errorf("consortium: a signature of %d bytes for %v", len(sig), want)
	}
	n := binary.BigEndian.Uint32(sig)
	if uint64(n) > uint64(len(sig)-4) {
		return fmt.Errorf("consortium: a signature for %v names a %d-byte certificate in %d bytes", want, n, len(sig))
	}
	cert, err := x509.ParseCertificate(sig[4 : 4+n])
	if err != nil {
		return fmt.Errorf("consortium: the certificate in %v's signature: %w", want, err)
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: p.creds.CAs, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}); err != nil {
		return fmt.Errorf("consortium: the certificate in %v's signature: %w", want, err)
	}
	got, err := IdentityOf(cert)
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("consortium: a signature by %v where %v's was due", got, want)
	}
	pub, ok := cert.PublicKey.(*ecdsa.PublicKey)
	if !ok {
		return fmt.Errorf("consortium: %v's certificate key is %T, not ECDSA", want, cert.PublicKey)
	}
	digest := sha256.Sum256(msg)
	if !ecdsa.VerifyASN1(pub, digest[:], sig[4+n:]) {
		return fmt.Errorf("consortium: the signature is not %v's", want)
	}
	return nil
}
