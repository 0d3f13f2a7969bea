package roles_test

import (
	"context"
	"fmt"
	"math"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/measurement"
	pdpmvds "github.com/dppub/dppub/method/pdpmvds/roles"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// Two owners hold different columns of the same six records: owner 1 a
// binary "smoker", owner 2 a three-valued "region". They measure the joint
// 2 × 3 count table through the commodity suite without showing each other
// their columns. The budget is huge so that the noise vanishes in the
// rounding; a real release would use ρ around 1.
func Example() {
	smoker := []uint16{0, 1, 1, 0, 0, 1}
	region := []uint16{2, 0, 0, 1, 2, 2}
	s := pdpmvds.Session{Parties: 2, Records: 6, Sizes: []int{2, 3}, Owners: []int{0, 1}}
	src := randx.NewSeeded(1) // INSECURE: reproducible output for the example only
	var parties []*pdpmvds.Party
	for k, col := range [][]uint16{smoker, region} {
		acct, _ := privacy.NewAccountant(privacy.AccountantOptions{Party: pdpmvds.PartyID(k), Budget: dp.Concentrated(1e12)})
		p, err := pdpmvds.NewParty(pdpmvds.PartyOptions{Session: s, Index: k, Columns: map[int][]uint16{k: col},
			Accountant: acct, Source: src.Child()})
		if err != nil {
			panic(err)
		}
		parties = append(parties, p)
	}
	third, _ := pdpmvds.NewThirdParty(pdpmvds.ThirdPartyOptions{Session: s, Source: src.Child()})
	m, _ := pdpmvds.NewMeasurer(pdpmvds.MeasurerOptions{Parties: parties, ThirdParty: third})
	noise, _ := measurement.Calibrate(measurement.Gaussian, measurement.CountL1, measurement.CountL2, 1e12)
	counts, err := m.Marginal(context.Background(), []int{0, 1}, measurement.Release{Purpose: "smoker × region", Parties: []int{0, 1}, Noise: noise})
	if err != nil {
		panic(err)
	}
	for i := range 2 {
		fmt.Println(int(math.Round(counts[3*i])), int(math.Round(counts[3*i+1])), int(math.Round(counts[3*i+2])))
	}
	// Output:
	// 0 1 2
	// 2 0 1
}
