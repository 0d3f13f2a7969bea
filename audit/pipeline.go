package audit

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// Pipeline audits run a whole publication pipeline — encoding, every noisy
// release, selection, post-processing, sampling and decoding, through the
// method's public entry point (its <method>.Publish) — on two neighbouring
// tables D and D' that differ in one crafted canary record, and bound ε
// from below with the same machinery as the mechanism audits (Run). They
// see everything a bug between the mechanisms could leak into the
// published table (an unnoised value feeding a calibration, a decoder
// reading the private rows), which the per-mechanism audits cannot.
//
// The canary: every attribute of the small canary table is categorical
// with two common categories and one rare one; no record of D holds a rare
// value, and D' replaces record 0 by the record that holds the rare value
// of every attribute. That combination is the outlier every measured
// marginal (one-way, pair, family, moment) moves on, so it is the most
// visible record a single replacement can make.
//
// The distinguisher is a count on the synthetic table (canaryStatistic):
// rows equal to the canary first, rows' rare values as a tie-break.
//
// Power. A black-box test of N releases per dataset can never show more
// than ε ≥ ln(p_lo(N of N)/p_hi(0 of N)) (PipelinePower's Ceiling), and
// whole pipelines spread a record's influence over many noisy releases,
// so a count on the synthetic rows reaches only a fraction of the ε the
// accountant charges. A PASS here says the published table did not let
// this distinguisher tell D from D' beyond the claim; it is weak evidence
// about calibration and strong evidence against gross leaks (an unnoised
// statistic, a copied row), which the tests show are caught.

// Variants of a pipeline audit (the Calibration of its MethodOptions):
// the sound pipeline, and deliberately broken ones built inside this
// package, without touching the method, for tests of the audit's power.
const (
	// VariantSound runs the pipeline as published.
	VariantSound = "sound"
	// VariantUnnoised releases one statistic without noise: the synthetic
	// table is made to hold exactly as many copies of the canary as the
	// private table (a decoder or post-processing step that reads the
	// private rows).
	VariantUnnoised = "unnoised"
	// VariantNoiseHalved runs the pipeline with half the noise (its budget
	// scaled so that every noise scale halves) while the claim stays.
	VariantNoiseHalved = "noise-halved"
	// VariantNoiseTenth runs it with a tenth of the noise.
	VariantNoiseTenth = "noise-tenth"
)

// The pipeline audits' budgets: small enough that the claimed ε (about 1
// to 1.5 at δ = 1/n²) lies well below the ceiling of their run counts
// (PipelinePower), so that a leak would show.
const (
	PipelineRho     = 0.04 // synthesize, per party for pdp-mvds (zCDP)
	PipelineEpsilon = 1.0  // ppca-dp-mh and dp-subn3, per owner (pure DP)
	PipelineOwners  = 3
	PipelineAttrs   = 3
	// PipelineParties of columns for pdp-mvds: party 1 holds a1, party 2
	// a2 and a3 (two parties cost 6 ms a run, three 10 ms).
	PipelineParties = 2
)

// pipelineVariants are the variants every pipeline audit accepts, sound
// first.
var pipelineVariants = []string{VariantSound, VariantUnnoised, VariantNoiseHalved, VariantNoiseTenth}

// PipelineMethod is the named audit of a whole pipeline built by build:
// it takes every variant of pipelineVariants and the extra ones, and
// runs 1,000 times per batch in fast mode, 10,000 in long mode.
func PipelineMethod(name, summary string, build func(MethodOptions) (Mechanism, error), extra ...string) Method {
	return Method{Name: name, Summary: summary, Calibrations: append(slices.Clone(pipelineVariants), extra...),
		FastRuns: 1_000, LongRuns: 10_000, Build: build}
}

// noiseDivisor is the factor by which a variant divides every noise scale.
func noiseDivisor(variant string) float64 {
	switch variant {
	case VariantNoiseHalved:
		return 2
	case VariantNoiseTenth:
		return 10
	}
	return 1
}

// CanaryRecords is the size of the canary tables: small, so that one run
// of a pipeline costs milliseconds, and so that one record is a large
// share of every marginal.
const CanaryRecords = 24

// canaryCategories of every canary attribute: two common, one rare.
var canaryCategories = []string{"common-0", "common-1", "rare"}

// canaryRare is the index of the rare category.
const canaryRare = 2

// CanaryTables returns the neighbouring pair over d categorical
// attributes a1..ad and n records: in D record i holds common categories
// (bit j of i, so that the common combinations are spread evenly); in D'
// record 0 holds the rare category of every attribute.
func CanaryTables(d, n int) (dTab, dPrime *data.Table, canary []float64) {
	s := data.Schema{}
	for j := range d {
		s.Attributes = append(s.Attributes, data.Attribute{Name: fmt.Sprintf("a%d", j+1), Kind: data.Categorical, Categories: canaryCategories})
	}
	dTab, dPrime = &data.Table{Schema: s}, &data.Table{Schema: s}
	canary = make([]float64, d)
	for j := range canary {
		canary[j] = canaryRare
	}
	for i := range n {
		row := make([]float64, d)
		for j := range row {
			row[j] = float64((i >> j) & 1)
		}
		dTab.Rows = append(dTab.Rows, row)
		if i == 0 {
			row = canary
		}
		dPrime.Rows = append(dPrime.Rows, append([]float64(nil), row...))
	}
	return dTab, dPrime, canary
}

// canaryStatistic is the distinguisher: the number of synthetic rows equal
// to the canary, then, as a tie-break within the same count, the number
// of rare values anywhere (a lexicographic order packed in one float64:
// full matches count (rows·d + 1) each).
func canaryStatistic(t *data.Table, canary []float64) float64 {
	full, partial := 0, 0
	for _, row := range t.Rows {
		k := 0
		for j, c := range canary {
			if row[j] == c {
				k++
			}
		}
		partial += k
		if k == len(canary) {
			full++
		}
	}
	return float64(full*(len(t.Rows)*len(canary)+1) + partial)
}

// canaryCount is the number of rows of t equal to the canary.
func canaryCount(t *data.Table, canary []float64) int {
	n := 0
	for _, row := range t.Rows {
		if equalRow(row, canary) {
			n++
		}
	}
	return n
}

func equalRow(a, b []float64) bool {
	for j := range b {
		if a[j] != b[j] {
			return false
		}
	}
	return true
}

// plantExact is VariantUnnoised's breakage: it makes the synthetic table
// hold exactly want copies of the canary (rows equal to it lose their
// first rare value; then the first want rows become the canary), as if
// the canary's count had been released without noise.
func plantExact(synth *data.Table, canary []float64, want int) {
	for _, row := range synth.Rows {
		if equalRow(row, canary) {
			row[0] = 0
		}
	}
	for i := range min(want, len(synth.Rows)) {
		copy(synth.Rows[i], canary)
	}
}

// PipelineRun runs one whole pipeline on table t with every noise scale
// divided by noiseDiv, drawing all its randomness from src, and returns
// the published synthetic table and privacy report.
type PipelineRun func(ctx context.Context, t *data.Table, noiseDiv float64, src *randx.Source) (*data.Table, *privacy.Report, error)

// PipelineSpec describes one pipeline audit.
type PipelineSpec struct {
	// Name is the method's name in the audit's name and errors.
	Name string
	// Attrs is the number of canary attributes.
	Attrs int
	Run   PipelineRun
	// Claim picks the guarantee the audited change is covered by from the
	// sound run's report (default: Actual if stated, else Claimed).
	Claim func(r *privacy.Report) dp.Guarantee
	// Delta converts a zCDP claim to (ε, δ) (default 1/n²).
	Delta float64
	// Pair describes the neighbouring tables (default: the canary pair).
	Pair string
}

// PipelineMechanism builds the audited mechanism of spec for a variant:
// one sound run (seeded, at construction) reads the claim off the report;
// every release then runs the pipeline on D or D' and reduces its
// synthetic table to canaryStatistic.
func PipelineMechanism(spec PipelineSpec, variant string) (Mechanism, error) {
	if variant == "" {
		variant = VariantSound
	}
	found := false
	for _, v := range pipelineVariants {
		found = found || v == variant
	}
	if !found {
		return Mechanism{}, fmt.Errorf("audit: %s has no variant %q (want one of %v)", spec.Name, variant, pipelineVariants)
	}
	dTab, dPrime, canary := CanaryTables(spec.Attrs, CanaryRecords)
	tables := [2]*data.Table{D: dTab, DPrime: dPrime}
	_, report, err := spec.Run(context.Background(), dTab, 1, randx.NewSeeded(0))
	if err != nil {
		return Mechanism{}, fmt.Errorf("audit: %s: %w", spec.Name, err)
	}
	claim, delta, err := pipelineClaim(spec, report)
	if err != nil {
		return Mechanism{}, err
	}
	div := noiseDivisor(variant)
	release := func(side Side, src *randx.Source, out []float64) error {
		synth, _, err := spec.Run(context.Background(), tables[side], div, src)
		if err != nil {
			return err
		}
		if variant == VariantUnnoised {
			plantExact(synth, canary, canaryCount(tables[side], canary))
		}
		out[0] = canaryStatistic(synth, canary)
		return nil
	}
	pair := spec.Pair
	if pair == "" {
		pair = fmt.Sprintf("%d records over %d categorical attributes of 3 categories; D' replaces record 0 by the canary holding the rare category of every attribute", CanaryRecords, spec.Attrs)
	}
	return Mechanism{
		Name:    fmt.Sprintf("pipeline %s (%s)", spec.Name, variant),
		Claim:   claim,
		Delta:   delta,
		Pair:    pair,
		Dim:     1,
		Release: release,
	}, nil
}

// pipelineClaim is the guarantee the report states for the audited
// change, and the δ at which a zCDP one is also tested as (ε, δ).
func pipelineClaim(spec PipelineSpec, r *privacy.Report) (dp.Guarantee, float64, error) {
	g := r.Claimed
	if r.Actual != nil {
		g = *r.Actual
	}
	if spec.Claim != nil {
		g = spec.Claim(r)
	}
	delta := spec.Delta
	if delta == 0 {
		delta = dp.DefaultDelta(CanaryRecords)
	}
	if _, err := g.ToApprox(delta); err != nil {
		return dp.Guarantee{}, 0, fmt.Errorf("audit: %s: claim %v: %w", spec.Name, g, err)
	}
	return g, delta, nil
}

// Power is what an audit of a given size can show.
type Power struct {
	// Runs per dataset in the test batch and the confidence.
	Runs       int     `json:"runs"`
	Confidence float64 `json:"confidence"`
	// Ceiling is the largest lower bound these runs can ever report: the
	// bound of an event seen in every release on one dataset and in none
	// on the other.
	Ceiling float64 `json:"ceiling"`
	// Detectable is the smallest true ε of a randomized-response-shaped
	// leak (an event of probability e^ε/(1+e^ε) on one dataset and
	// 1/(1+e^ε) on the other, the shape that makes a given ε most visible)
	// whose expected counts give a bound above Claimed: the lowest ε this
	// audit can detect as a VIOLATION. +Inf when even a perfect
	// distinguisher cannot (Ceiling ≤ Claimed).
	Claimed    float64 `json:"claimed_epsilon"`
	Detectable float64 `json:"detectable_epsilon"`
}

// PipelinePower computes the power of an audit with runs releases per
// dataset at the given confidence against a claim of (claimed, delta).
func PipelinePower(runs int, confidence, claimed, delta float64) Power {
	alpha := (1 - confidence) / 4
	p := Power{Runs: runs, Confidence: confidence, Claimed: claimed, Detectable: math.Inf(1)}
	p.Ceiling = EpsilonLower(runs, runs, 0, runs, delta, alpha)
	if p.Ceiling <= claimed {
		return p
	}
	bound := func(eps float64) float64 {
		q := 1 / (1 + math.Exp(eps))
		return EpsilonLower(int(math.Round((1-q)*float64(runs))), runs, int(math.Round(q*float64(runs))), runs, delta, alpha)
	}
	lo, hi := claimed, claimed+1
	for bound(hi) <= claimed && hi < 50 {
		lo, hi = hi, 2*hi
	}
	for hi-lo > 1e-3 {
		mid := (lo + hi) / 2
		if bound(mid) > claimed {
			hi = mid
		} else {
			lo = mid
		}
	}
	p.Detectable = hi
	return p
}

// Power is the power of the (ε, δ) test of this audit, at its runs and
// confidence: with a zCDP claim the Rényi test shares the error rate, so
// each Clopper–Pearson bound is at (1 − confidence)/8 instead of /4.
func (r *Result) Power() Power {
	c := r.Confidence
	if r.ClaimedRho > 0 {
		c = (1 + c) / 2 // (1 − c')/4 = (1 − c)/8
	}
	p := PipelinePower(r.Runs, c, r.ClaimedEpsilon, r.Delta)
	p.Confidence = r.Confidence
	return p
}

func (p Power) String() string {
	if math.IsInf(p.Detectable, 1) {
		return fmt.Sprintf("at %d runs and %g confidence no bound above ε = %.3g is possible (ceiling %.3g): the claim cannot be refuted", p.Runs, p.Confidence, p.Claimed, p.Ceiling)
	}
	return fmt.Sprintf("at %d runs and %g confidence: ceiling ε ≥ %.3g; a leak of true ε ≥ %.3g (randomized-response shape) is detected against the claim ε = %.3g",
		p.Runs, p.Confidence, p.Ceiling, p.Detectable, p.Claimed)
}

// SplitRows gives each of k owners a contiguous block of t's records, the
// first owner the first block (which holds the canary record 0).
func SplitRows(t *data.Table, k int) []*data.Table {
	n := t.Len()
	out := make([]*data.Table, k)
	for i := range k {
		rows := make([]int, 0, n/k+1)
		for r := i * n / k; r < (i+1)*n/k; r++ {
			rows = append(rows, r)
		}
		out[i] = t.Subset(rows)
	}
	return out
}
