package paillier

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"math/big"

	"github.com/dppub/dppub/randx"
)

// NewReader adapts a randx.Source to the io.Reader this package takes. A
// secure Source maps to crypto/rand.Reader (safe for concurrent use); a
// seeded Source gives a deterministic, INSECURE byte stream for tests, which
// is not safe for concurrent use.
func NewReader(src *randx.Source) io.Reader {
	if src == nil {
		panic("paillier: NewReader(nil)")
	}
	if src.IsSecure() {
		return rand.Reader
	}
	return &sourceReader{src: src}
}

type sourceReader struct{ src *randx.Source }

func (r *sourceReader) Read(p []byte) (int, error) {
	var w [8]byte
	for i := 0; i < len(p); i += 8 {
		binary.LittleEndian.PutUint64(w[:], r.src.Uint64())
		copy(p[i:], w[:])
	}
	return len(p), nil
}

// randomInt returns a uniform integer in [0, max).
func randomInt(random io.Reader, max *big.Int) (*big.Int, error) {
	v, err := rand.Int(random, max)
	if err != nil {
		return nil, fmt.Errorf("paillier: reading randomness: %w", err)
	}
	return v, nil
}

// randomBits returns a uniform integer in [0, 2^bits).
func randomBits(random io.Reader, bits int) (*big.Int, error) {
	return randomInt(random, new(big.Int).Lsh(one, uint(bits)))
}

// randomUnit returns a uniform element of Z*_n.
func randomUnit(random io.Reader, n *big.Int) (*big.Int, error) {
	g := new(big.Int)
	for {
		r, err := randomInt(random, n)
		if err != nil {
			return nil, err
		}
		if r.Sign() > 0 && g.GCD(nil, nil, r, n).Cmp(one) == 0 {
			return r, nil
		}
	}
}

var (
	one = big.NewInt(1)
	two = big.NewInt(2)
)
