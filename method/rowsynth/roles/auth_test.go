package roles

import (
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"testing"
)

// testAuth gives each owner of a test session an Ed25519 key and every
// owner the others' public keys (the role of method.LocalPeers, which
// this package cannot import).
type testAuth struct {
	pub  []ed25519.PublicKey
	priv []ed25519.PrivateKey
}

func newTestAuth(owners int) *testAuth {
	a := &testAuth{}
	for range owners {
		p, k, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			panic(err)
		}
		a.pub, a.priv = append(a.pub, p), append(a.priv, k)
	}
	return a
}

func (a *testAuth) owner(k int) KeyAuth { return ownerKeyAuth{a: a, k: k} }

type ownerKeyAuth struct {
	a *testAuth
	k int
}

func (o ownerKeyAuth) Sign(msg []byte) ([]byte, error) { return ed25519.Sign(o.a.priv[o.k], msg), nil }

func (o ownerKeyAuth) Verify(k int, msg, sig []byte) error {
	if k < 0 || k >= len(o.a.pub) || !ed25519.Verify(o.a.pub[k], msg, sig) {
		return fmt.Errorf("not owner %d's signature", k+1)
	}
	return nil
}

// keys starts every owner of s and returns the Keys message an honest
// coordinator relays: their keys and signatures, in owner order.
func (s *setup) keys(t *testing.T) Keys {
	t.Helper()
	var m Keys
	for _, o := range s.owners {
		out, err := o.Start()
		if err != nil {
			t.Fatal(err)
		}
		var h Hello
		if err := h.UnmarshalBinary(out[0].Payload); err != nil {
			t.Fatal(err)
		}
		m.Keys, m.Sigs = append(m.Keys, h.Key), append(m.Sigs, h.Sig)
	}
	return m
}
