package sspp

import (
	"fmt"
	"math/big"

	"github.com/dppub/dppub/crypto/internal/wire"
	"github.com/dppub/dppub/crypto/paillier"
)

// maxField bounds one length-prefixed field, so a hostile length cannot
// make a reader allocate without limit.
const maxField = 1 << 28

func newReader(b []byte, magic string) (*wire.Reader, error) {
	return wire.NewReader(b, magic, "sspp", maxField)
}

func readPublicKey(r *wire.Reader) (*paillier.PublicKey, error) {
	n := r.Field()
	if err := r.Err(); err != nil {
		return nil, err
	}
	pk, err := paillier.NewPublicKey(new(big.Int).SetBytes(n))
	if err != nil {
		return nil, fmt.Errorf("sspp: %w", err)
	}
	return pk, nil
}
