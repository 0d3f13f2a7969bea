package audits

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/method/rowsynth"
	proto "github.com/dppub/dppub/method/rowsynth/roles"
	"github.com/dppub/dppub/randx"
)

// addReplay adds the same-seed replay audit.
func addReplay(fam *audit.Family) {
	fam.Add(audit.Method{Name: "replay-" + rowsynth.Name, Summary: fmt.Sprintf("same seed on D and D': every noisy release of a whole synthesize-rows session (%d owners of rows, ρ = %g each, the canary in owner 1's rows) within its charge's sensitivity (with --greybox; without, the black-box audit of its one-way marginals); --mechanism exact for the exact noise mode",
		audit.PipelineOwners, audit.PipelineRho),
		Calibrations: audit.ReplayVariants, FastRuns: 1_000, LongRuns: 10_000,
		Build: func(o audit.MethodOptions) (audit.Mechanism, error) { return ReplayRows(o.Calibration, o.Mechanism) }})
	fam.Add(audit.Method{Name: "replay-" + rowsynth.Name + "-adaptive", Summary: fmt.Sprintf("replay-synthesize-rows with --method adaptive forced (the audit's 24-row tables keep auto on paper): every noisy release, the owners' select scores of each round's candidates (Δ₂ = 2√C) among them, within its charge's sensitivity plus its reference's move (with --greybox); %d owners of rows, ρ = %g each; --mechanism exact for the exact noise mode",
		audit.PipelineOwners, audit.PipelineRho),
		Calibrations: audit.ReplayVariants, FastRuns: 1_000, LongRuns: 10_000,
		Build: func(o audit.MethodOptions) (audit.Mechanism, error) {
			return ReplayRowsMethod(o.Calibration, o.Mechanism, marginal.MethodAdaptive)
		}})
}

// ReplayRows is the replay audit of synthesize-rows (3 owners of rows,
// ρ = 0.04 each, the canary tables split in row order) in the noise mode
// named by mode ("" for insider-safe, or "exact") and the variant named.
// Its releases are the requests in order, each paired with owner 1's
// charge for it (the other owners' must be the same) and valued by the
// sum of the owners' words the coordinator received (protocol.Recorder),
// the pooled counts plus the owners' noise shares on the release's grid:
// the published value minus the coordinator's share in insider-safe mode,
// which the same tape makes the same on both sides.
func ReplayRows(variant, mode string) (audit.Mechanism, error) {
	return ReplayRowsMethod(variant, mode, "")
}

// ReplayRowsMethod is ReplayRows with the engine's method forced to meth
// ("" for auto, the paper method on these tables). With
// marginal.MethodAdaptive the releases include every round's select
// request: the owners' scores of its candidates, compared between the
// runs as long as both offered the same candidates (a different offer
// ends the pair's comparison, as a different choice does).
func ReplayRowsMethod(variant, mode string, meth marginal.Method) (audit.Mechanism, error) {
	if err := checkNoiseMode("replay", mode); err != nil {
		return audit.Mechanism{}, err
	}
	tables, err := audit.ReplayTables(variant)
	if err != nil {
		return audit.Mechanism{}, err
	}
	h, sound, err := soundRun("replay", proto.NoiseMode(mode), meth, tables)
	if err != nil {
		return audit.Mechanism{}, err
	}
	rel, err := sound.releases()
	if err != nil {
		return audit.Mechanism{}, err
	}
	name := fmt.Sprintf("%s (%s noise", rowsynth.Name, h.mode)
	if meth != "" {
		name += ", method " + string(meth)
	}
	if variant != "" && variant != audit.VariantSound {
		name += ", " + variant
	}
	name += ")"
	dim := len(audit.OneWayTruth(tables[audit.D]))
	return audit.ReplayMechanism(name, tables, sound.report, rel[0].Charge().Spec.Scale,
		func(side audit.Side, src *randx.Source, out []float64) error {
			tr, err := h.run(side, src, nil)
			if err != nil {
				return err
			}
			v, err := audit.OneWays(tr.result.Engine, dim)
			copy(out, v)
			return err
		},
		func(seed uint64) (audit.PairReplay, error) {
			var rel [2][]audit.Replayed
			var trs [2]*rowsTrace
			for _, side := range []audit.Side{audit.D, audit.DPrime} {
				tr, err := h.run(side, randx.NewSeeded(seed), nil)
				if err != nil {
					return audit.PairReplay{}, err
				}
				if rel[side], err = tr.releases(); err != nil {
					return audit.PairReplay{}, err
				}
				trs[side] = tr
			}
			if err := alignSelects(trs[audit.D], trs[audit.DPrime], rel[audit.DPrime]); err != nil {
				return audit.PairReplay{}, err
			}
			return audit.CompareRuns(rel[audit.D], rel[audit.DPrime], func(i int) (float64, error) { return rowsScoreMove(trs[audit.D], trs[audit.DPrime], i) })
		})
}

// rowsScoreMove is how far pair score i may move because its public
// reference did (the pooled noisy one-ways it is computed against differ
// between the runs): each owner's summand Σ_ij |N_ij − r_ij| moves by at
// most Σ_ij |r_ij − r'_ij| by the triangle inequality, with r the
// reference on the release's grid (proto.Request.ScoreReference), summed
// over the owners. A select request's scores move likewise with their
// references, the model's estimates, which alignSelects takes out
// exactly. Other releases move with their data alone.
func rowsScoreMove(a, b *rowsTrace, i int) (float64, error) {
	qa, qb := a.requests[i], b.requests[i]
	if qa.Kind != proto.KindScore {
		return 0, nil
	}
	plan, err := qa.Release.Noise.Plan(1)
	if err != nil {
		return 0, fmt.Errorf("audit: %w", err)
	}
	g := plan.Grid
	s := 0.0
	for k := range a.h.names {
		n := float64(a.h.data[audit.D][k].Len())
		if m := float64(a.h.data[audit.DPrime][k].Len()); m != n {
			return 0, fmt.Errorf("audit: %s holds %v records on D and %v on D'", a.h.names[k], n, m)
		}
		ra, err := qa.ScoreReference(int(n), g)
		if err != nil {
			return 0, fmt.Errorf("audit: %w", err)
		}
		rb, err := qb.ScoreReference(int(n), g)
		if err != nil || len(rb) != len(ra) {
			return 0, fmt.Errorf("audit: score %d's references on D and D' differ in shape (%v)", i, err)
		}
		for c := range ra {
			s += math.Abs(ra[c] - rb[c])
		}
	}
	return s, nil
}

// alignSelects rewrites the D' run's select releases (rel, of trace b)
// as if b's owners had been asked a's request: each owner's exact scores
// against a's references replace those against b's, on the grid, the
// noise staying (the same tape draws the same shares on both sides, and
// it depends on the candidates' number only). A select's references are
// the model's estimates, which move with every earlier noisy release, so
// bounding their effect by the triangle inequality (Σ_k ‖r_k − r'_k‖₁
// per candidate) would hide any excess of the data's own move under it;
// aligned, the comparison sees the data's move alone, which must be
// within the charge's 2√C plus the grid's rounding. Only selects that
// offered the same candidates are aligned; a different offer ends the
// comparison anyway.
func alignSelects(a, b *rowsTrace, rel []audit.Replayed) error {
	for i := range min(len(a.requests), len(b.requests), len(rel)) {
		qa, qb := a.requests[i], b.requests[i]
		if qa.Kind != proto.KindSelect || qb.Kind != proto.KindSelect || fmt.Sprint(qa.Sets) != fmt.Sprint(qb.Sets) {
			continue
		}
		plan, err := qb.Release.Noise.Plan(len(qb.Sets))
		if err != nil {
			return fmt.Errorf("audit: %w", err)
		}
		v := make([]float64, len(qb.Sets))
		for c, x := range sumWords(b.words[i]) {
			v[c] = float64(x) * plan.Grid
		}
		for k := range b.h.names {
			asked, err := b.counts(k, qa)
			if err != nil {
				return err
			}
			got, err := b.counts(k, qb)
			if err != nil {
				return err
			}
			for c := range v {
				v[c] += (plan.Snap(asked[c]) - plan.Snap(got[c])) * plan.Grid
			}
		}
		rel[i] = audit.ReplayedRelease(releaseQuery(qb), qb.Attrs, rel[i].Charge(), v)
	}
	return nil
}

// releaseQuery names what q asks for the replay's comparison: its kind,
// and a select's candidates (equal queries offered the same).
func releaseQuery(q *proto.Request) string {
	if q.Kind == proto.KindSelect {
		return q.Kind + fmt.Sprint(q.Sets)
	}
	return q.Kind
}

// releases pairs the run's requests with owner 1's charges (every owner
// charges the same releases) and values them by the sum of the words.
func (tr *rowsTrace) releases() ([]audit.Replayed, error) {
	charges := tr.accts[0].Charges()
	for k, a := range tr.accts {
		if n := len(a.Charges()); n != len(charges) {
			return nil, fmt.Errorf("audit: %s was charged %d releases, %s %d", tr.h.names[k], n, tr.h.names[0], len(charges))
		}
	}
	if len(charges) != len(tr.requests) {
		return nil, fmt.Errorf("audit: %d charges for %d requests", len(charges), len(tr.requests))
	}
	out := make([]audit.Replayed, len(charges))
	for i, q := range tr.requests {
		c := charges[i]
		want := q.Release.Noise.Spec()
		if c.Spec.Norm != want.Norm || c.Spec.Sensitivity != want.Sensitivity || c.Purpose != q.Release.Purpose {
			return nil, fmt.Errorf("audit: charge %d (%s: %v) is not request %d's release (%s: %v)", i+1, c.Purpose, c.Spec, q.ID, q.Release.Purpose, want)
		}
		plan, err := q.Release.Noise.Plan(len(tr.words[i][0]))
		if err != nil {
			return nil, fmt.Errorf("audit: %w", err)
		}
		s := sumWords(tr.words[i])
		v := make([]float64, len(s))
		for j, x := range s {
			v[j] = float64(x) * plan.Grid
		}
		out[i] = audit.ReplayedRelease(releaseQuery(q), q.Attrs, c, v)
	}
	return out, nil
}
