package roles

import (
	"context"
	"testing"

	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// testData draws n correlated records over small domains held by three
// parties: attribute j's value depends on attribute j−1's.
func testData(n int, sizes []int, src *randx.Source) *domain.Dataset {
	ds := domain.NewDataset(sizes, n)
	for r := range n {
		prev := 0
		for j, s := range sizes {
			v := src.IntN(s)
			if j > 0 && src.Float64() < 0.6 {
				v = prev % s
			}
			ds.Cols[j][r] = uint16(v)
			prev = v
		}
	}
	return ds
}

type fixture struct {
	session Session
	data    *domain.Dataset
	m       *Measurer
	accts   []*privacy.Accountant
	parties []*Party
	third   *ThirdParty
}

var (
	testSizes  = []int{3, 4, 2, 5, 2, 3, 6}
	testOwners = []int{0, 0, 1, 1, 1, 2, 2}
)

// newFixture builds parties, S and a measurer over testData with INSECURE
// 512-bit keys, and runs the setup.
func newFixture(t testing.TB, suite Suite, noise NoiseMode, n int, rho float64, seed uint64) *fixture {
	t.Helper()
	f := newRoles(t, suite, noise, n, rho, seed)
	if err := f.m.Setup(context.Background()); err != nil {
		t.Fatal(err)
	}
	return f
}

// forEachSetup runs check as a subtest (suite/mode) on a fixture of n
// records at ρ = rho drawn from seed, for both suites and both noise
// modes.
func forEachSetup(t *testing.T, n int, rho float64, seed uint64, check func(t *testing.T, f *fixture)) {
	for _, suite := range []Suite{SuiteCommodity, SuitePaillier} {
		for _, mode := range []NoiseMode{NoiseInsiderSafe, NoiseExact} {
			t.Run(string(suite)+"/"+string(mode), func(t *testing.T) {
				check(t, newFixture(t, suite, mode, n, rho, seed))
			})
		}
	}
}

// newRoles builds the fixture without running the setup.
func newRoles(t testing.TB, suite Suite, noise NoiseMode, n int, rho float64, seed uint64) *fixture {
	t.Helper()
	src := randx.NewSeeded(seed)
	ds := testData(n, testSizes, src)
	s := Session{Parties: 3, Records: n, Sizes: testSizes, Owners: testOwners, Suite: suite, Noise: noise,
		KeyBits: 512, InsecureTestKeys: true, StatBits: 40}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	var files []*KeyFile
	var pk *paillier.PublicKey
	if suite == SuitePaillier {
		var err error
		pk, files, err = DealInsecureTestKeys(paillier.NewReader(src.Child()), 512, 3)
		if err != nil {
			t.Fatal(err)
		}
	}
	f := &fixture{session: s, data: ds}
	for k := range 3 {
		cols := map[int][]uint16{}
		for _, a := range s.attrsOf(k) {
			cols[a] = ds.Cols[a]
		}
		a, err := privacy.NewAccountant(privacy.AccountantOptions{Party: PartyID(k), Budget: dp.Concentrated(rho)})
		if err != nil {
			t.Fatal(err)
		}
		o := PartyOptions{Session: s, Index: k, Columns: cols, Accountant: a, Source: src.Child(), Workers: 2}
		if files != nil {
			o.Keys = files[k]
		}
		p, err := NewParty(o)
		if err != nil {
			t.Fatal(err)
		}
		f.parties = append(f.parties, p)
		f.accts = append(f.accts, a)
	}
	third, err := NewThirdParty(ThirdPartyOptions{Session: s, PublicKey: pk, Source: src.Child(), Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	f.third = third
	if f.m, err = NewMeasurer(MeasurerOptions{Parties: f.parties, ThirdParty: third}); err != nil {
		t.Fatal(err)
	}
	return f
}

// release builds a release of the given attributes at ρ.
func (f *fixture) release(t testing.TB, attrs []int, mech measurement.Mechanism, l1, l2, rho float64) measurement.Release {
	t.Helper()
	noise, err := measurement.Calibrate(mech, l1, l2, rho)
	if err != nil {
		t.Fatal(err)
	}
	return measurement.Release{Purpose: "test", Parties: f.session.involved(attrs), Noise: noise}
}
