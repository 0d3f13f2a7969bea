package roles

import (
	"fmt"
	"math/big"

	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/crypto/sspp"
)

func (p *Party) newOwnKey() (*paillier.PrivateKey, error) {
	r := paillier.NewReader(p.src.Child())
	if p.session.KeyBits < paillier.MinBits {
		return paillier.GenerateInsecureTestKey(r, p.session.KeyBits)
	}
	return paillier.GenerateKey(r, p.session.KeyBits)
}

// precomputedCopy returns a private, precomputed copy of a public key.
func precomputedCopy(pk *paillier.PublicKey, p *Party) (*paillier.PublicKey, error) {
	c, err := paillier.NewPublicKey(pk.N)
	if err != nil {
		return nil, err
	}
	if err := c.Precompute(paillier.NewReader(p.src.Child())); err != nil {
		return nil, err
	}
	return c, nil
}

// paillierSetup: every party makes its own Paillier key for the scalar
// products and sends its public half to the others; every encrypting
// party encrypts the packed one-hot vectors of all its attributes once
// and sends them to every other party, who reuses them for every partner
// attribute and value.
func (p *Party) paillierSetup() func(*job) (bool, error) {
	started := false
	return func(j *job) (bool, error) {
		s := p.session
		enc, lays, err := s.encrypting()
		if err != nil {
			return false, err
		}
		if !started {
			started = true
			if err := p.startPaillierSetup(j, enc[p.index], lays[p.index]); err != nil {
				return false, err
			}
		}
		for q := range s.Parties {
			if q == p.index {
				continue
			}
			if !j.has("public-key", PartyID(q), 0, 0) {
				return false, nil
			}
			if enc[q] {
				for b := range lays[q].Blocks {
					if !j.has("vector", PartyID(q), 0, b) {
						return false, nil
					}
				}
			}
		}
		for q := range s.Parties {
			if q == p.index {
				continue
			}
			m := j.take("public-key", PartyID(q), 0, 0)
			if len(m.Blobs) != 1 {
				return false, fmt.Errorf("public key message with %d fields", len(m.Blobs))
			}
			pk, err := paillier.NewPublicKey(new(big.Int).SetBytes(m.Blobs[0]))
			if err != nil {
				return false, err
			}
			if pk.Bits() != s.KeyBits {
				return false, fmt.Errorf("party %d's key has %d bits, the session %d", q+1, pk.Bits(), s.KeyBits)
			}
			if err := pk.Precompute(paillier.NewReader(p.src.Child())); err != nil {
				return false, err
			}
			p.peers[q] = pk
			if !enc[q] {
				continue
			}
			blocks := make([][]*paillier.Ciphertext, lays[q].Blocks)
			for b := range blocks {
				v, err := readCiphers(j.take("vector", PartyID(q), 0, b), 0, pk, p.n)
				if err != nil {
					return false, err
				}
				blocks[b] = v
			}
			p.vectors[q] = blocks
		}
		p.setupOK = true
		return true, p.send(CoordinatorID, &Body{Kind: "ready", ID: j.req.ID})
	}
}

func (p *Party) startPaillierSetup(j *job, encrypts bool, lay sspp.Layout) error {
	s := p.session
	if p.own == nil {
		sk, err := p.newOwnKey()
		if err != nil {
			return err
		}
		p.own = sk
	}
	if !p.own.PublicKey.IsPrecomputed() {
		if err := p.own.PublicKey.Precompute(paillier.NewReader(p.src.Child())); err != nil {
			return err
		}
	}
	shared, err := precomputedCopy(p.o.Keys.PublicKey, p)
	if err != nil {
		return err
	}
	p.shared = shared
	for q := range s.Parties {
		if q != p.index {
			if err := p.send(PartyID(q), &Body{Kind: "public-key", ID: j.req.ID, Blobs: [][]byte{p.own.N.Bytes()}}); err != nil {
				return err
			}
		}
	}
	if !encrypts {
		return nil
	}
	cols := make([][]int32, len(p.attrs))
	for u, a := range p.attrs {
		cols[u] = p.column([]int{a})
	}
	blocks, err := sspp.EncryptOneHots(&p.own.PublicKey, lay, cols, p.src, p.o.Workers)
	if err != nil {
		return err
	}
	p.meter.enc.Add(int64(p.n * lay.Blocks))
	for b, cts := range blocks {
		raw := p.own.PublicKey.MarshalCiphertexts(cts)
		for q := range s.Parties {
			if q != p.index {
				if err := p.send(PartyID(q), &Body{Kind: "vector", ID: j.req.ID, Index: b, Blobs: [][]byte{raw}}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// readCiphers decodes count ciphertexts under pk from blob number blob of
// a body.
func readCiphers(m *Body, blob int, pk *paillier.PublicKey, count int) ([]*paillier.Ciphertext, error) {
	if m == nil || len(m.Blobs) <= blob {
		return nil, fmt.Errorf("missing ciphertexts")
	}
	cts, err := pk.UnmarshalCiphertexts(m.Blobs[blob])
	if err != nil {
		return nil, err
	}
	if len(cts) != count {
		return nil, fmt.Errorf("%s carries %d ciphertexts, want %d", m.Kind, len(cts), count)
	}
	return cts, nil
}
