package roles

import (
	"context"
	"testing"

	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// BenchmarkCrossPartyMarginal measures one whole cross-party marginal on
// Adult (45222 records): owner 1 holds education (16 values), owner 2
// occupation (14 values); setup (masked columns, or the packed encryption
// of owner 1's indicator vectors under its 2048-bit key) plus the 224-cell
// marginal with insider-safe Gaussian noise. Keys are made outside the
// timer. Reported: wall time per marginal, bytes sent, Paillier operations.
//
//	go test -run XXX -bench CrossPartyMarginal -benchtime 1x ./protocol/pdpmvds
func BenchmarkCrossPartyMarginal(b *testing.B) {
	t, err := datasets.Load("adult")
	if err != nil {
		b.Skip(err)
	}
	dom, err := domain.New(t.Schema, domain.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ds, _, err := dom.Encode(t)
	if err != nil {
		b.Fatal(err)
	}
	edu, _ := dom.Index("education")
	occ, _ := dom.Index("occupation")
	s := Session{Parties: 2, Records: ds.Len(), Sizes: []int{dom.Size(edu), dom.Size(occ)}, Owners: []int{0, 1}}
	cols := []map[int][]uint16{{0: ds.Cols[edu]}, {1: ds.Cols[occ]}}
	for _, suite := range []Suite{SuiteCommodity, SuitePaillier} {
		b.Run(string(suite), func(b *testing.B) {
			s.Suite = suite
			if err := s.Validate(); err != nil {
				b.Fatal(err)
			}
			var pk *paillier.PublicKey
			var files []*KeyFile
			var own []*paillier.PrivateKey
			if suite == SuitePaillier {
				r := paillier.NewReader(randx.NewSecure())
				if pk, files, err = DealKeys(r, 2048, 2); err != nil {
					b.Fatal(err)
				}
				for range 2 {
					k, err := paillier.GenerateKey(r, 2048)
					if err != nil {
						b.Fatal(err)
					}
					own = append(own, k)
				}
			}
			for b.Loop() {
				var parties []*Party
				for k := range 2 {
					a, _ := privacy.NewAccountant(privacy.AccountantOptions{Party: PartyID(k), Budget: dp.Concentrated(1)})
					o := PartyOptions{Session: s, Index: k, Columns: cols[k], Accountant: a}
					if files != nil {
						o.Keys, o.OwnKey = files[k], own[k]
					}
					p, err := NewParty(o)
					if err != nil {
						b.Fatal(err)
					}
					parties = append(parties, p)
				}
				third, err := NewThirdParty(ThirdPartyOptions{Session: s, PublicKey: pk})
				if err != nil {
					b.Fatal(err)
				}
				m, err := NewMeasurer(MeasurerOptions{Parties: parties, ThirdParty: third})
				if err != nil {
					b.Fatal(err)
				}
				noise, _ := measurement.Calibrate(measurement.Gaussian, measurement.CountL1, measurement.CountL2, 0.5)
				if _, err := m.Marginal(context.Background(), []int{0, 1}, measurement.Release{Purpose: "bench", Parties: []int{0, 1}, Noise: noise}); err != nil {
					b.Fatal(err)
				}
				bytes, ops := 0, Ops{}
				for _, ph := range m.Phases() {
					for _, v := range ph.Bytes {
						bytes += v
					}
					for _, o := range ph.Ops {
						ops = ops.Add(o)
					}
				}
				b.ReportMetric(float64(bytes)/(1<<20), "MiB")
				b.ReportMetric(float64(ops.Total()), "paillier-ops")
			}
		})
	}
}
