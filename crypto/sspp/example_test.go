package sspp_test

import (
	"fmt"
	"math/big"

	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/crypto/sspp"
	"github.com/dppub/dppub/randx"
)

// Alice and Bob count the records on which Alice's attribute has value i
// and Bob's value j, ending with additive shares: Goethals et al. under
// Alice's key, and Du & Atallah with a commodity server.
func Example() {
	src := randx.NewSeeded(1)       // seeded for a reproducible example only
	alice := []int32{0, 1, 1, 0, 1} // 2 values
	bob := []int32{2, 0, 2, 1, 2}   // 3 values

	// Packed Goethals: Alice encrypts, Bob replies, Alice decrypts.
	sk, _ := paillier.GenerateInsecureTestKey(paillier.NewReader(src.Child()), 512) // INSECURE size
	p, _ := sspp.NewPacking(sk.Bits(), 50)
	l := sspp.NewLayout(p, []int{2})
	vec, _ := sspp.EncryptOneHots(&sk.PublicKey, l, [][]int32{alice}, src, 1)
	replies, bobShares, _ := sspp.Reply(&sk.PublicKey, p, vec[0], bob, 3, 48, src, 1)
	aliceShares, _ := sspp.DecryptReplies(sk, p, replies, 1)
	// Alice's value 1 sits in slot 1; Bob's value 2 is reply 2.
	fmt.Println("Goethals N(1, 2) =", new(big.Int).Add(aliceShares[2][1], bobShares[2][1]))

	// Commodity server: S deals, both mask, both compute their shares.
	sa, sb, srb := sspp.NewSeed(src), sspp.NewSeed(src), sspp.NewSeed(src)
	corr, _ := sspp.Correction(sspp.Sum, 2, 3, sspp.Expand(sa, 5*2), sspp.Expand(sb, 5*3), srb, 1)
	maskedAlice, _ := sspp.MaskOneHot(alice, 2, sa)
	maskedBob, _ := sspp.MaskOneHot(bob, 3, sb)
	u, _ := sspp.ShareA(sspp.Sum, 2, 3, sspp.Expand(sa, 5*2), corr, maskedBob, 1)
	v, _ := sspp.ShareB(sspp.Sum, 2, 3, maskedAlice, bob, srb, 1)
	sspp.AddInto(u, v)
	fmt.Println("commodity N(i, j) =", u)
	// Output:
	// Goethals N(1, 2) = 2
	// commodity N(i, j) = [0 1 1 1 0 2]
}
