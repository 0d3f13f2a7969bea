package audits

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/engine/marginal/infer"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/method/synthesize"
	"github.com/dppub/dppub/randx"
)

// addReplay adds the same-seed replay audit.
func addReplay(fam *audit.Family) {
	fam.Add(audit.Method{Name: "replay-" + synthesize.Name, Summary: fmt.Sprintf("same seed on D and D': every noisy release of the whole `%s` pipeline (one owner, ρ = %g, the canary tables; the default, auto, runs the adaptive method there, whose selections are compared by their outcome) within its charge's sensitivity (with --greybox; without, the black-box audit of its one-way marginals); --mechanism picks its option (%s)",
		synthesize.Name, audit.PipelineRho, synthesizeOptionNames()),
		Calibrations: audit.ReplayVariants, FastRuns: 1_000, LongRuns: 10_000,
		Build: func(o audit.MethodOptions) (audit.Mechanism, error) {
			return ReplaySynthesize(o.Calibration, o.Mechanism)
		}})
}

// ReplaySynthesize is the replay audit of `synthesize` (synthesize.Publish,
// one owner, ρ = 0.04, the canary tables) with the selection or inference
// option named by option ("" for the default) and the variant named
// (VariantSound or VariantDuplicated). Its releases, in the order of the
// owner's accountant charges, are the engine's plan: the one-way
// marginals, the pair scores (scalars) and the measured marginals.
func ReplaySynthesize(variant, option string) (audit.Mechanism, error) {
	set, err := synthesizeOption("replay-"+synthesize.Name, option)
	if err != nil {
		return audit.Mechanism{}, err
	}
	tables, err := audit.ReplayTables(variant)
	if err != nil {
		return audit.Mechanism{}, err
	}
	run := func(side audit.Side, src *randx.Source) (*synthesize.Result, error) {
		o := synthesize.Options{Table: tables[side], Rho: audit.PipelineRho, Source: src}
		set(&o)
		return synthesize.Publish(context.Background(), o)
	}
	sound, err := run(audit.D, randx.NewSeeded(0))
	if err != nil {
		return audit.Mechanism{}, fmt.Errorf("audit: replay-%s: %w", synthesize.Name, err)
	}
	var probe synthesize.Options
	set(&probe)
	iindif := probe.Score == "" || probe.Score == measurement.IInDif
	charges, err := synthesizeReleases(sound)
	if err != nil {
		return audit.Mechanism{}, err
	}
	name := synthesize.Name
	if option != "" {
		name += " " + option
	}
	if variant != "" && variant != audit.VariantSound {
		name += " (" + variant + ")"
	}
	dim := len(audit.OneWayTruth(tables[audit.D]))
	return audit.ReplayMechanism(name, tables, sound.Report, charges[0].Charge().Spec.Scale,
		func(side audit.Side, src *randx.Source, out []float64) error {
			res, err := run(side, src)
			if err != nil {
				return err
			}
			v, err := audit.OneWays(res.Engine, dim)
			copy(out, v)
			return err
		},
		func(seed uint64) (audit.PairReplay, error) {
			var runs [2]*synthesize.Result
			var rel [2][]audit.Replayed
			for _, side := range []audit.Side{audit.D, audit.DPrime} {
				if runs[side], err = run(side, randx.NewSeeded(seed)); err != nil {
					return audit.PairReplay{}, err
				}
				if rel[side], err = synthesizeReleases(runs[side]); err != nil {
					return audit.PairReplay{}, err
				}
			}
			var adaptive func(int) (float64, error)
			if iindif {
				adaptive = func(i int) (float64, error) {
					return iindifMove(runs[audit.D], runs[audit.DPrime], i, tables[audit.D].Len())
				}
			}
			return audit.CompareRuns(rel[audit.D], rel[audit.DPrime], adaptive)
		})
}

// synthesizeReleases pairs the owner's charges with the engine's plan and
// the released values: one-way marginals, scores, measured marginals.
func synthesizeReleases(res *synthesize.Result) ([]audit.Replayed, error) {
	if len(res.Report.Parties) != 1 {
		return nil, fmt.Errorf("audit: synthesize reported %d parties, want one owner", len(res.Report.Parties))
	}
	charges := res.Report.Parties[0].Charges
	if res.Method == marginal.MethodAdaptive {
		return audit.AdaptiveReleases(res.Engine, charges)
	}
	eng := res.Engine
	plan := eng.Plan
	d, c := len(eng.OneWays), len(eng.Candidates)
	if len(charges) != len(plan) || len(plan) != d+c+len(eng.Measured) {
		return nil, fmt.Errorf("audit: %d charges for %d planned releases (%d one-way, %d scores, %d marginals)", len(charges), len(plan), d, c, len(eng.Measured))
	}
	out := make([]audit.Replayed, len(plan))
	for i, p := range plan {
		if charges[i].Purpose != p.Release.Purpose {
			return nil, fmt.Errorf("audit: charge %d is for %q, the plan's release %d for %q", i+1, charges[i].Purpose, i+1, p.Release.Purpose)
		}
		var err error
		switch {
		case i < d:
			out[i], err = audit.MeasuredRelease(i, p, eng.OneWays[p.Attrs[0]], charges[i])
		case i < d+c:
			out[i] = audit.ReplayedRelease(p.Release.Purpose, p.Attrs, charges[i], []float64{eng.Candidates[i-d].Score})
		default:
			out[i], err = audit.MeasuredRelease(i, p, eng.Measured[i-d-c], charges[i])
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// iindifMove is how far the IInDif score of release i, Σ_ij |a_i b_j/n −
// N_ij| with a and b the reference one-way counts (the published one-way
// marginals, normalised to n by infer.NormSub as the engine does),
// may move because its references did: Σ_ij |a_i b_j − a'_i b'_j|/n, by
// the triangle inequality. Its sensitivity, 2, holds for fixed
// references. Releases other than scores move with their data alone.
func iindifMove(a, b *synthesize.Result, i, n int) (float64, error) {
	d, c := len(a.Engine.OneWays), len(a.Engine.Candidates)
	if i < d || i >= d+c {
		return 0, nil
	}
	ca, cb := a.Engine.Candidates[i-d], b.Engine.Candidates[i-d]
	if ca.A != cb.A || ca.B != cb.B {
		return 0, fmt.Errorf("audit: score %d is over (%d, %d) on D and (%d, %d) on D'", i-d+1, ca.A, ca.B, cb.A, cb.B)
	}
	ref := func(r *synthesize.Result, j int) []float64 {
		v := slices.Clone(r.Engine.OneWays[j].Counts)
		infer.NormSub(v, float64(n))
		return v
	}
	aA, aB, bA, bB := ref(a, ca.A), ref(a, ca.B), ref(b, ca.A), ref(b, ca.B)
	s := 0.0
	for x := range aA {
		for y := range aB {
			s += math.Abs(aA[x]*aB[y] - bA[x]*bB[y])
		}
	}
	return s / float64(n), nil
}
