package paillier_test

import (
	"crypto/rand"
	"fmt"

	"github.com/dppub/dppub/crypto/paillier"
)

// Two parties hold additive shares of the decryption key (the paper's
// λ_{x,y}, λ_{y,x}); an encrypted sum is decrypted only with both.
func Example() {
	// 512 bits: an INSECURE test key, to keep the example fast.
	pk, shares, err := paillier.DealInsecureTest(rand.Reader, 512, 2)
	if err != nil {
		panic(err)
	}
	enc := paillier.Encoder{FracBits: 16}
	a, _ := enc.Encode(pk, 2.5)
	b, _ := enc.Encode(pk, -4.25)
	ca, _ := pk.Encrypt(rand.Reader, a)
	cb, _ := pk.Encrypt(rand.Reader, b)
	sum := pk.Add(ca, cb)

	var parts []*paillier.PartialDecryption
	for _, ks := range shares {
		p, _ := ks.PartialDecrypt(nil, sum)
		parts = append(parts, p)
	}
	m, err := paillier.Combine(pk, shares[0].Sharing, sum, parts)
	if err != nil {
		panic(err)
	}
	x, _ := enc.Decode(pk, m)
	fmt.Println(x)

	_, err = paillier.Combine(pk, shares[0].Sharing, sum, parts[:1])
	fmt.Println(err != nil)
	// Output:
	// -1.75
	// true
}
