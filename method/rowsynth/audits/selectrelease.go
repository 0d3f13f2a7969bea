package audits

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/method/rowsynth"
	proto "github.com/dppub/dppub/method/rowsynth/roles"
	"github.com/dppub/dppub/randx"
)

// Variants of the select-release audit: the owner's own calibration, and
// a planted one that sizes the noise for a sensitivity of 2 (one score's)
// instead of the vector's 2√C.
const (
	VariantForgedSelectSensitivity = "forged-sensitivity"
)

// Shape of the select-release audit: C candidates (the adaptive filter's
// default, roles.DefaultSelectCandidates) over selectAttrs binary
// attributes, selectRecords records, at ρ = selectRho, so that the
// Gaussian's Δ₂/σ = √(2ρ) = 1 and its exact profile at ε = 1 has δ =
// 0.127: a claim a few thousand runs can test.
const (
	selectAttrs   = 6
	selectRecords = 20
	selectRho     = 0.5
)

// addSelect adds the audit of one select answer.
func addSelect(fam *audit.Family) {
	name := "select-" + rowsynth.Name
	fam.Add(audit.Method{Name: name, Summary: fmt.Sprintf("synthesize-rows --method adaptive: one owner's answer to one select request (%d candidate sets, its scores ‖M_r(D_k) − (n_k/n)·M_r(p̂)‖₁ on the release grid with its discrete Gaussian noise at ρ = %g, Δ₂ = 2√C as the owner calibrates it: Request.OwnNoise), claimed as that Gaussian's exact (ε = 1, δ) profile; D' replaces one record of the owner's %d so that every score moves by 2; %s plants a calibration for Δ₂ = 2, %s halves the noise",
		proto.DefaultSelectCandidates, selectRho, selectRecords, VariantForgedSelectSensitivity, audit.VariantNoiseHalved),
		Calibrations: []string{audit.VariantSound, VariantForgedSelectSensitivity, audit.VariantNoiseHalved}, FastRuns: 20_000, LongRuns: 500_000,
		Build: func(o audit.MethodOptions) (audit.Mechanism, error) { return SelectRelease(o.Calibration) }},
		audit.Case{Method: name, Expect: audit.Pass},
		audit.Case{Method: name, Options: audit.MethodOptions{Calibration: VariantForgedSelectSensitivity}, Expect: audit.Violation},
		audit.Case{Method: name, Options: audit.MethodOptions{Calibration: audit.VariantNoiseHalved}, Expect: audit.Violation})
}

// selectTables are the select audit's neighbours: selectAttrs binary
// attributes; record i of D is all ones for i ≥ 5 and all zeros
// otherwise, and D' turns record 0 into all ones. Against a uniform
// reference every candidate (the six attributes, then pairs) has more
// records than its reference in the all-ones cell and fewer in the
// all-zeros one, so the replaced record moves each score by +2: the
// vector moves by the full Δ₂ = 2√C.
func selectTables() [2]*data.Table {
	s := data.Schema{}
	for j := range selectAttrs {
		s.Attributes = append(s.Attributes, data.Attribute{Name: fmt.Sprintf("a%d", j+1), Kind: data.Categorical, Categories: []string{"0", "1"}})
	}
	var out [2]*data.Table
	for _, side := range []audit.Side{audit.D, audit.DPrime} {
		t := &data.Table{Schema: s}
		for i := range selectRecords {
			v := 0.0
			if i >= 5 || (i == 0 && side == audit.DPrime) {
				v = 1
			}
			row := make([]float64, selectAttrs)
			for j := range row {
				row[j] = v
			}
			t.Rows = append(t.Rows, row)
		}
		out[side] = t
	}
	return out
}

// selectRequest is the audited request: the first C sets of the
// attributes and their pairs, each against the uniform reference, with
// the noise the owner itself calibrates (Request.OwnNoise).
func selectRequest() (*proto.Request, error) {
	var sets [][]int
	for a := range selectAttrs {
		sets = append(sets, []int{a})
	}
	for a := range selectAttrs {
		for b := a + 1; b < selectAttrs; b++ {
			sets = append(sets, []int{a, b})
		}
	}
	sets = sets[:proto.DefaultSelectCandidates]
	q := &proto.Request{Session: "audit", ID: 1, Kind: proto.KindSelect, Sets: sets}
	for _, set := range sets {
		cells := 1 << len(set)
		f := make([]float64, cells)
		for i := range f {
			f[i] = 1 / float64(cells)
		}
		q.Refs = append(q.Refs, f)
	}
	l1, l2 := proto.SelectSensitivity(len(sets))
	noise, err := measurement.Calibrate(measurement.Gaussian, l1, l2, selectRho)
	if err != nil {
		return nil, err
	}
	q.Release = measurement.Release{Purpose: "audit select", Parties: []int{0}, Noise: noise}
	if _, err := q.OwnNoise(); err != nil {
		return nil, err
	}
	return q, nil
}

// SelectRelease audits one select answer of one owner (the only one:
// its share is the whole noise, as in exact mode with one owner) in the
// variant named: the owner's scores (Request.SelectValues) snapped to the
// release grid plus its discrete Gaussian share (dp.Noiser.Shares, as the
// owner draws it), at the noise Request.OwnNoise accepts, or with
// VariantForgedSelectSensitivity at a calibration for Δ₂ = 2, σ √C
// times too small, or with audit.VariantNoiseHalved at σ/2. The claim is the sound noise's exact (1, δ) profile on
// Δ₂ = 2√C, what the charge at ρ states.
func SelectRelease(variant string) (audit.Mechanism, error) {
	if variant == "" {
		variant = audit.VariantSound
	}
	q, err := selectRequest()
	if err != nil {
		return audit.Mechanism{}, fmt.Errorf("audit: %w", err)
	}
	sound := q.Release.Noise
	noise, err := selectVariantNoise(q, variant)
	if err != nil {
		return audit.Mechanism{}, err
	}
	plan, err := noise.Plan(len(q.Sets))
	if err != nil {
		return audit.Mechanism{}, fmt.Errorf("audit: %w", err)
	}
	truth, steps, err := selectScores(q, noise, plan)
	if err != nil {
		return audit.Mechanism{}, err
	}
	_, l2 := proto.SelectSensitivity(len(q.Sets))
	if d := distance2(truth[audit.D], truth[audit.DPrime]); math.Abs(d-l2) > 1e-9 {
		return audit.Mechanism{}, fmt.Errorf("audit: the select neighbours move the scores by %v in L2, want the full Δ₂ = %v", d, l2)
	}
	sigma := make([]float64, len(q.Sets))
	for i := range sigma {
		sigma[i] = sound.Scale
	}
	return audit.Mechanism{
		Name:        fmt.Sprintf("synthesize-rows select answer (%d candidates, ρ = %g, %s)", len(q.Sets), selectRho, variant),
		Claim:       audit.GaussianProfile(sound.Scale, l2),
		Pair:        fmt.Sprintf("one owner's %d records over %d binary attributes; D' turns an all-zeros record into all ones, moving each of the %d scores by 2", selectRecords, selectAttrs, len(q.Sets)),
		Dim:         len(q.Sets),
		Statistic:   audit.GaussianLLR(truth[audit.D], truth[audit.DPrime], sigma),
		Truth:       audit.SideTruth(truth[audit.D], truth[audit.DPrime]),
		ReplayBound: l2 + plan.Grid*math.Sqrt(float64(len(q.Sets))),
		ReplayNorm:  2,
		Release: func(side audit.Side, src *randx.Source, out []float64) error {
			shares := make([]int64, len(out))
			dp.NewNoiser(src).Shares(plan, 1, shares)
			for i, s := range steps[side] {
				out[i] = float64(int64(s)+shares[i]) * plan.Grid
			}
			return nil
		},
	}, nil
}

// selectVariantNoise is the noise the variant's owner releases q at: its
// own calibration (sound), that calibration at 4ρ (noise halved, the
// charge and the claim still ρ's), or one for Δ₂ = 2 instead of 2√C
// (forged select sensitivity).
func selectVariantNoise(q *proto.Request, variant string) (measurement.Noise, error) {
	l1, l2 := proto.SelectSensitivity(len(q.Sets))
	var noise measurement.Noise
	var err error
	switch variant {
	case audit.VariantSound:
		return q.Release.Noise, nil
	case audit.VariantNoiseHalved:
		noise, err = measurement.Calibrate(measurement.Gaussian, l1, l2, 4*selectRho)
	case VariantForgedSelectSensitivity:
		noise, err = measurement.Calibrate(measurement.Gaussian, l1, 2, selectRho)
	default:
		return noise, fmt.Errorf("audit: select-%s has no variant %q (want %s, %s or %s)", rowsynth.Name, variant, audit.VariantSound, VariantForgedSelectSensitivity, audit.VariantNoiseHalved)
	}
	if err != nil {
		return noise, fmt.Errorf("audit: %w", err)
	}
	return noise, nil
}

// selectScores are the owner's exact scores of q's candidates on each
// side's table, as released values on plan's grid (truth) and in grid
// steps (steps).
func selectScores(q *proto.Request, noise measurement.Noise, plan dp.GridNoise) (truth, steps [2][]float64, err error) {
	tables := selectTables()
	for _, side := range []audit.Side{audit.D, audit.DPrime} {
		dom, err := domain.New(tables[side].Schema, domain.Options{})
		if err != nil {
			return truth, steps, fmt.Errorf("audit: %w", err)
		}
		ds, _, err := dom.Encode(tables[side])
		if err != nil {
			return truth, steps, fmt.Errorf("audit: %w", err)
		}
		counts := make([][]float64, len(q.Sets))
		for i, set := range q.Sets {
			m, err := domain.Count(ds, set)
			if err != nil {
				return truth, steps, fmt.Errorf("audit: %w", err)
			}
			counts[i] = m.Counts
		}
		qs := *q
		qs.Release.Noise = noise
		v, _, err := qs.SelectValues(counts, ds.Len())
		if err != nil {
			return truth, steps, fmt.Errorf("audit: %w", err)
		}
		for _, x := range v {
			s := plan.Snap(x)
			steps[side] = append(steps[side], s)
			truth[side] = append(truth[side], s*plan.Grid)
		}
	}
	return truth, steps, nil
}

// distance2 is the L2 distance of a and b.
func distance2(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s)
}
