package sspp_test

import (
	"crypto/rand"
	"fmt"

	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/crypto/sspp"
)

// Alice and Bob count the records where both their indicators are 1, with
// each protocol; neither learns the other's vector, each ends with a share.
func Example() {
	x := []int64{1, 0, 1, 1, 0, 1}
	y := []int64{1, 1, 1, 0, 0, 1}

	// Goethals et al.: Alice's own Paillier key (512 bits: INSECURE, example only).
	key, _ := paillier.GenerateInsecureTestKey(rand.Reader, 512)
	alice, _ := sspp.NewGoethalsAlice(sspp.GoethalsAliceOptions{Key: key})
	bob, _ := sspp.NewGoethalsBob(sspp.GoethalsBobOptions{PublicKey: alice.PublicKey()})
	enc, _ := alice.EncryptVector(x) // once, reusable for every y
	reply, v, _ := bob.Respond(enc, y)
	u, _ := alice.Finish(reply)
	count, _ := sspp.SumModN(alice.PublicKey().N, u, v)
	fmt.Println("Goethals:", count)

	// Du–Atallah with the commodity server S.
	server, _ := sspp.NewCommodityServer(sspp.CommodityServerOptions{})
	ca, cb, _ := server.Deal(len(x))
	ca1, _ := sspp.NewCommodityAlice(ca)
	cb1, _ := sspp.NewCommodityBob(cb)
	toBob, _ := ca1.Mask(x)
	toAlice, _ := cb1.Mask(y)
	su, _ := ca1.Finish(toAlice)
	sv, _ := cb1.Finish(toBob)
	fmt.Println("commodity:", sspp.SumMod64(su, sv))
	// Output:
	// Goethals: 3
	// commodity: 3
}
