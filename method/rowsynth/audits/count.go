package audits

import (
	"cmp"
	"context"
	"fmt"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/method/rowsynth"
	proto "github.com/dppub/dppub/method/rowsynth/roles"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// addCount audits the add/remove record count of owners of rows. Each
// run is a whole protocol run (keys, masks, shares; about 5 ms on 2
// cores), hence the few runs; the exact noise mode, whose claim is its
// exact profile, runs in the long suite.
func addCount(fam *audit.Family) {
	fam.Add(audit.Method{Name: "record-count-add-remove-" + rowsynth.Name, Summary: "synthesize-rows --neighbours add-remove: the owners' total record count, released by secure aggregation with distributed discrete Gaussian noise (Δ₂ = 1, σ = 1 at ρ = 1/2, every role and share of the protocol in one process), stated as the exact (ε = 1, δ) profile; in D' owner 1 has one record more",
		Calibrations: []string{"sound"}, FastRuns: 1_500, LongRuns: 20_000,
		Build: func(o audit.MethodOptions) (audit.Mechanism, error) {
			if err := checkNoiseMode("record count", o.Mechanism); err != nil {
				return audit.Mechanism{}, err
			}
			return RecordCountRows(proto.NoiseMode(o.Mechanism), 1)
		}},
		audit.Case{Method: "record-count-add-remove-" + rowsynth.Name, Expect: audit.Pass},
		audit.Case{Method: "record-count-add-remove-" + rowsynth.Name, Options: audit.MethodOptions{Mechanism: string(proto.NoiseExact)}, Expect: audit.Pass, Long: true})
}

// RecordCountRows audits Measurer.ReleaseRecords, the first release of
// synthesize-rows under add/remove, run through the whole protocol
// (three owners' hellos without counts, keys, one KindCount request
// answered with masks and noise shares, the coordinator's sum) at ρ =
// 1/2 (σ = 1 for sensitivity 1) in noise mode mode (default
// insider-safe), against the exact (ε = 1, δ) profile of the central
// Gaussian of σ = 1 on a sensitivity of 1 (insider-safe adds a share on
// top, and the grid's plan slightly more: both only help). The
// statistic is the Gaussian log-likelihood ratio of the released total
// (20 against 21). added > 1 gives owner 1 that many more records in D'
// instead, a change the claim does not cover (the audit's own check).
func RecordCountRows(mode proto.NoiseMode, added int) (audit.Mechanism, error) {
	const rho = 0.5
	mode = cmp.Or(mode, proto.NoiseInsiderSafe)
	noise, err := measurement.Calibrate(measurement.Gaussian, measurement.CountL1AddRemove, measurement.CountL2AddRemove, rho)
	if err != nil {
		return audit.Mechanism{}, fmt.Errorf("audit: %w", err)
	}
	sizes := [2][]int{{7, 6, 7}, {7 + added, 6, 7}}
	fD, fD2 := []float64{20}, []float64{float64(20 + added)}
	return audit.Mechanism{
		Name:        fmt.Sprintf("record count of owners of rows, add/remove (Δ₂=1, σ=%g, %s noise)", noise.Scale, mode),
		Claim:       audit.GaussianProfile(noise.Scale, measurement.CountL2AddRemove),
		Pair:        fmt.Sprintf("three owners of 7, 6 and 7 records; in D' owner 1 has %d more", added),
		Dim:         1,
		Statistic:   audit.GaussianLLR(fD, fD2, []float64{noise.Scale}),
		Truth:       audit.SideTruth(fD, fD2),
		ReplayBound: measurement.CountL2AddRemove,
		Release: func(side audit.Side, src *randx.Source, out []float64) error {
			n, err := releaseRowsCount(sizes[side], mode, rho, src)
			out[0] = float64(n)
			return err
		},
	}, nil
}

// releaseRowsCount runs the protocol's record count release over owners
// of the given sizes and returns the released total.
func releaseRowsCount(sizes []int, mode proto.NoiseMode, rho float64, src *randx.Source) (int, error) {
	schema := data.Schema{Attributes: []data.Attribute{{Name: "a", Kind: data.Categorical, Categories: []string{"x", "y"}}}}
	p := proto.Params{Session: "audit-count", Owners: len(sizes), Schema: schema, Noise: mode, Neighbours: dp.NeighboursAddRemove}
	names := make([]string, len(sizes))
	for k := range names {
		names[k] = proto.OwnerID(k)
	}
	peers, err := method.LocalPeers(names)
	if err != nil {
		return 0, err
	}
	var roles []protocol.Role
	for k, n := range sizes {
		acct, err := privacy.NewAccountant(privacy.AccountantOptions{Party: names[k], Budget: dp.Concentrated(rho)})
		if err != nil {
			return 0, err
		}
		t := &data.Table{Schema: schema, Rows: make([][]float64, n)}
		for i := range t.Rows {
			t.Rows[i] = []float64{float64(i % 2)}
		}
		o, err := proto.NewOwner(proto.OwnerOptions{Params: p, Index: k, Table: t, Accountant: acct, Source: src.Child(), Auth: rowsynth.OwnerAuth(peers[names[k]], names)})
		if err != nil {
			return 0, err
		}
		roles = append(roles, o)
	}
	var total int
	engine := func(ctx context.Context, m *proto.Measurer) (err error) {
		total, err = m.ReleaseRecords(ctx, rho)
		return err
	}
	c, err := proto.NewCoordinator(context.Background(), p, engine, src.Child())
	if err != nil {
		return 0, err
	}
	defer c.Stop()
	if _, err := protocol.RunLocal(context.Background(), append(roles, c)...); err != nil {
		return 0, err
	}
	return total, nil
}
