package method

import (
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
)

// Peers authenticates a member's own protocol statements (e.g. its
// key-agreement key) to the other members, so that a coordinator that
// relays them cannot substitute them: Sign signs as the local member,
// Verify checks another member's signature with that member's identity
// as the local member itself knows it — never with a key the coordinator
// sent. Across machines the consortium's certificates provide it
// (consortium.Peers); in one process, LocalPeers.
type Peers interface {
	Sign(msg []byte) ([]byte, error)
	Verify(member string, msg, sig []byte) error
}

// LocalPeers gives each named member of a run in one process a fresh
// Ed25519 key and the others' public keys. In one process every role
// already trusts the process; the keys keep the roles' code the same as
// across machines.
func LocalPeers(names []string) (map[string]Peers, error) {
	pub := make(map[string]ed25519.PublicKey, len(names))
	priv := make(map[string]ed25519.PrivateKey, len(names))
	for _, n := range names {
		if _, dup := pub[n]; dup {
			return nil, fmt.Errorf("member %q named twice", n)
		}
		p, k, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("member %q's signing key: %w", n, err)
		}
		pub[n], priv[n] = p, k
	}
	out := make(map[string]Peers, len(names))
	for _, n := range names {
		out[n] = localPeer{key: priv[n], known: pub}
	}
	return out, nil
}

type localPeer struct {
	key   ed25519.PrivateKey
	known map[string]ed25519.PublicKey
}

func (p localPeer) Sign(msg []byte) ([]byte, error) { return ed25519.Sign(p.key, msg), nil }

func (p localPeer) Verify(member string, msg, sig []byte) error {
	pub, ok := p.known[member]
	if !ok {
		return fmt.Errorf("no identity known for member %q", member)
	}
	if !ed25519.Verify(pub, msg, sig) {
		return fmt.Errorf("the signature is not %s's", member)
	}
	return nil
}
