package audits

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/method/rowsynth"
	proto "github.com/dppub/dppub/method/rowsynth/roles"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// The audits of this file look at a synthesize-rows run from inside, as
// method/ppcadpmh/audits/view.go does for PPCA-DP-MH: what the coordinator receives, and what
// one owner that colludes (with nobody: it only knows its own part) can
// compute about another owner's rows. Both compare with what the privacy
// report states for that view.

// Variants of the view audits of synthesize-rows (the Calibration of
// their options): the sound protocol, and owners that break it, built by
// rewriting the shares at the coordinator's door (run.go) without
// touching the protocol. Both broken variants keep the release's law —
// the shares still sum to the pooled counts plus the calibrated noise —
// so the release and the synthetic table (pipeline-synthesize-rows) look
// the same as the sound protocol's; only a view shows them.
const (
	// VariantPlaintext: the owners send their counts in the clear, the
	// last owner adding the whole noise, as a protocol that trusts the
	// coordinator with the counts would. The coordinator reads owner 1's
	// exact counts.
	VariantPlaintext = "plaintext"
	// VariantDealer: owner 2 draws the whole noise and the others send
	// their bare counts (still masked), as a protocol that lets one
	// owner deal the noise would. In exact mode owner 2 then knows all of
	// it, and the release minus its own word is the other owners' exact
	// counts; in insider-safe mode the coordinator's share still hides
	// them (at ρ·K, a factor K = 3 below what these runs can detect).
	VariantDealer = "dealer"
)

// VariantSelectNoiseHalved: on the adaptive path, every owner halves its
// noise share of each select request (the scores of a round's
// candidates), rounded towards zero, by rewriting its word at the
// coordinator's door; counts keep theirs. The selects' noise has a
// quarter of its stated variance while every charge stays: the select
// noise test (SelectNoiseTest) sees it.
const VariantSelectNoiseHalved = "select-noise-halved"

// VariantNoiseHalved (audit/pipeline.go) also applies to these views: every
// noise share halves, the claim stays.

// viewRowsColluder is the index of the colluding owner (owner 2); the
// canary is in owner 1's rows.
const viewRowsColluder = 1

// addView adds the audit of a session from inside.
func addView(fam *audit.Family) {
	fam.Add(audit.Method{Name: "view-" + rowsynth.Name, Summary: fmt.Sprintf("synthesize-rows from inside: every share the coordinator receives (--view coordinator) or what owner 2 knows — its own words, the requests, the published marginals (colluder); %d owners of rows, ρ = %g each, canary in owner 1's rows; --mechanism exact for the exact noise mode; claim: the report's guarantee for that view",
		audit.PipelineOwners, audit.PipelineRho),
		Calibrations: []string{audit.VariantSound, VariantPlaintext, VariantDealer, audit.VariantNoiseHalved}, FastRuns: 300, LongRuns: 10_000,
		Build: func(o audit.MethodOptions) (audit.Mechanism, error) {
			return ViewRows(o.View, o.Mechanism, o.Calibration)
		}},
		audit.Case{Method: "view-" + rowsynth.Name, Options: audit.MethodOptions{View: audit.ViewCoordinator}, Expect: audit.Pass},
		audit.Case{Method: "view-" + rowsynth.Name, Options: audit.MethodOptions{View: audit.ViewCoordinator, Calibration: audit.VariantNoiseHalved}, Expect: audit.Violation},
		audit.Case{Method: "view-" + rowsynth.Name, Options: audit.MethodOptions{View: audit.ViewColluder, Mechanism: string(rowsynth.NoiseExact)}, Expect: audit.Pass},
		audit.Case{Method: "view-" + rowsynth.Name, Options: audit.MethodOptions{View: audit.ViewColluder}, Expect: audit.Pass, Long: true},
		audit.Case{Method: "view-" + rowsynth.Name, Options: audit.MethodOptions{View: audit.ViewCoordinator, Mechanism: string(rowsynth.NoiseExact)}, Expect: audit.Pass, Long: true})
	adaptive := "view-" + rowsynth.Name + "-adaptive"
	fam.Add(audit.Method{Name: adaptive, Summary: fmt.Sprintf("view-synthesize-rows with --method adaptive forced (the audit's 24-row tables keep auto on paper): the coordinator's (--view coordinator) or owner 2's view of the adaptive rounds, the owners' select scores among the releases; %d owners of rows, ρ = %g each; --mechanism exact for the exact noise mode; claim: the report's guarantee for that view",
		audit.PipelineOwners, audit.PipelineRho),
		Calibrations: []string{audit.VariantSound, VariantPlaintext, VariantDealer, audit.VariantNoiseHalved, VariantSelectNoiseHalved}, FastRuns: 300, LongRuns: 10_000,
		Build: func(o audit.MethodOptions) (audit.Mechanism, error) {
			return ViewRowsMethod(o.View, o.Mechanism, o.Calibration, marginal.MethodAdaptive)
		}},
		audit.Case{Method: adaptive, Options: audit.MethodOptions{View: audit.ViewCoordinator}, Expect: audit.Pass},
		audit.Case{Method: adaptive, Options: audit.MethodOptions{View: audit.ViewCoordinator, Calibration: audit.VariantNoiseHalved}, Expect: audit.Violation},
		audit.Case{Method: adaptive, Options: audit.MethodOptions{View: audit.ViewColluder, Mechanism: string(rowsynth.NoiseExact)}, Expect: audit.Pass, Long: true})
}

// ViewRows audits synthesize-rows (3 owners of rows at ρ = 0.04 each, the
// canary tables split in row order so that owner 1 holds the canary's
// record) from inside, in the noise mode mode ("" for insider-safe, or
// "exact") and the variant named (VariantSound, VariantPlaintext,
// VariantDealer).
//
// Views and distinguishers. Each release is one request, answered by
// every owner with its counts plus its noise share plus masks (words on
// the release's grid); the distinguisher is the Gaussian log-likelihood
// ratio of owner 1's pair summed over the releases the view holds (the
// likelihood of an adaptive run factorises over its releases, so this is
// the Neyman–Pearson statistic of the whole view):
//   - coordinator: the sum of the owners' words (the masks cancel) is the
//     pooled counts plus the owners' noise shares, K shares of variance
//     σ²/K, so σ² in both modes (its own share, in insider-safe mode, it
//     knows). A word of owner 1 that reads as a small integer (a masked
//     word does with probability 2^-23 per value) is taken as owner 1's
//     own counts plus its share, at variance σ²/K.
//   - colluder: owner 2 knows its own word before masking (its counts plus
//     its share), the requests it answered, and the published noisy
//     marginals (the engine's one-way and measured marginals); the release
//     minus its word leaves owners 1 and 3's counts plus the others'
//     shares: (K−1)σ²/K in exact mode, σ² in insider-safe mode (the
//     coordinator's share on top).
//
// Claims are the report's, read off the sound run at construction: the
// per-owner guarantee against the coordinator; against an owner that knows
// its own share, the threat-model sentence's — the per-owner ρ in
// insider-safe mode, ρ·K/(K−1) in exact mode — each as ρ-zCDP, tested
// both as (ε, δ) at δ = 1/n² and by the Rényi test, and by the noise test
// (noise.go): the residuals of the cells the canary moves, the view
// minus its known mean, give the noise's variance over the requests', and
// the canary's moves at that variance a lower bound on ρ. The threshold
// events see one bit a run; the noise test sees every moved cell (about
// 12 a run), which is what catches halved noise at 300 runs
// (TestViewRowsCatchesHalvedNoise) and the insider-safe dealer against
// the colluder.
func ViewRows(view audit.View, mode, variant string) (audit.Mechanism, error) {
	return ViewRowsMethod(view, mode, variant, "")
}

// ViewRowsMethod is ViewRows with the engine's method forced to meth (""
// for auto, the paper method on these tables). With
// marginal.MethodAdaptive the views hold every round's select scores too:
// owner 1's scores of the candidates on D and D' (against the request's
// references) are their means' move, and their residuals enter the LLR
// and the noise test like counts, the select request's stated variance
// each (the releases' variances differ: the test pools their ratios).
// Its selects' residuals alone also make the release's SelectNoise
// sample (SelectNoiseTest).
func ViewRowsMethod(view audit.View, mode, variant string, meth marginal.Method) (audit.Mechanism, error) {
	if view == "" {
		view = audit.ViewCoordinator
	}
	if variant == "" {
		variant = audit.VariantSound
	}
	if view != audit.ViewCoordinator && view != audit.ViewColluder {
		return audit.Mechanism{}, fmt.Errorf("audit: view-%s view must be %s or %s, got %q", rowsynth.Name, audit.ViewCoordinator, audit.ViewColluder, view)
	}
	if err := checkNoiseMode("view", mode); err != nil {
		return audit.Mechanism{}, err
	}
	rewrites := map[string]shareRewrite{audit.VariantSound: nil, VariantPlaintext: rewritePlaintext, VariantDealer: rewriteDealer, audit.VariantNoiseHalved: nil}
	if meth == marginal.MethodAdaptive {
		rewrites[VariantSelectNoiseHalved] = rewriteSelectNoiseHalved
	}
	rewrite, ok := rewrites[variant]
	if !ok {
		return audit.Mechanism{}, fmt.Errorf("audit: view-%s has no variant %q (want %s, %s, %s or %s; %s with the adaptive method)", rowsynth.Name, variant, audit.VariantSound, VariantPlaintext, VariantDealer, audit.VariantNoiseHalved, VariantSelectNoiseHalved)
	}
	dTab, dPrime, _ := audit.CanaryTables(audit.PipelineAttrs, audit.CanaryRecords)
	tables := [2]*data.Table{audit.D: dTab, audit.DPrime: dPrime}
	h, sound, err := soundRun("view", proto.NoiseMode(mode), meth, tables)
	if err != nil {
		return audit.Mechanism{}, err
	}
	claim := sound.report.Claimed
	if sound.report.Actual != nil {
		claim = *sound.report.Actual
	}
	if variant == audit.VariantNoiseHalved {
		// Every owner and the coordinator halve their noise (the session
		// runs at 4ρ) while the claim stays the sound run's.
		if h, err = newRowsHarness(proto.NoiseMode(mode), meth, 4*audit.PipelineRho, tables, audit.PipelineOwners); err != nil {
			return audit.Mechanism{}, err
		}
	}
	stat := (*rowsTrace).coordinatorLLR
	if view == audit.ViewColluder {
		stat = (*rowsTrace).colluderLLR
		if claim, err = rowsColluderClaim(sound.report); err != nil {
			return audit.Mechanism{}, err
		}
	}
	return audit.Mechanism{
		Name:  fmt.Sprintf("synthesize-rows, %s's view (%d owners, ρ=%g, %s noise, %s%s)", view, audit.PipelineOwners, audit.PipelineRho, h.mode, variant, methodSuffix(meth)),
		Claim: claim,
		Delta: dp.DefaultDelta(audit.CanaryRecords),
		Pair:  fmt.Sprintf("owner 1 of %d: its share of the canary tables (%d records over %d categorical attributes; D' replaces record 0 by the canary holding the rare category of every attribute)", audit.PipelineOwners, audit.CanaryRecords, audit.PipelineAttrs),
		Dim:   viewRowsDim,
		Release: func(side audit.Side, src *randx.Source, out []float64) error {
			tr, err := h.run(side, src, rewrite)
			if err != nil {
				return err
			}
			st, err := stat(tr)
			if err != nil {
				return err
			}
			st.write(out)
			return nil
		},
		Statistic: func(out []float64) float64 { return out[0] },
		Noise:     readViewNoise,
	}, nil
}

// rowsColluderClaim is the guarantee the report's threat model states
// against an owner that knows its own noise share: the per-owner one
// when the sentence says it holds against any single owner, ρ·K/(K−1)
// when it states that weaker bound.
func rowsColluderClaim(r *privacy.Report) (dp.Guarantee, error) {
	k := len(r.Parties)
	for _, s := range r.ThreatModel {
		if !strings.Contains(s, "own share") {
			continue
		}
		switch {
		case strings.Contains(s, "ρ·K/(K−1)"):
			if r.Claimed.Notion != dp.ZCDP || k < 2 {
				return dp.Guarantee{}, fmt.Errorf("audit: the report's claim %v over %d owners has no ρ·K/(K−1)", r.Claimed, k)
			}
			return dp.Concentrated(r.Claimed.Rho * float64(k) / float64(k-1)), nil
		case strings.Contains(s, "guarantee holds against the coordinator and against any single owner"):
			return r.Claimed, nil
		}
	}
	return dp.Guarantee{}, fmt.Errorf("audit: the report states no guarantee against an owner that knows its own share: %q", r.ThreatModel)
}

// methodSuffix names a forced method in a mechanism's name.
func methodSuffix(meth marginal.Method) string {
	if meth == "" {
		return ""
	}
	return ", method " + string(meth)
}

// viewStat accumulates a view's statistics over its releases: the LLR of
// owner 1's pair and the noise test's sample (noise.go), and the same
// sample over the select releases alone (selects).
type viewStat struct {
	side    audit.Side
	llr     float64
	noise   audit.NoiseSample
	selects audit.NoiseSample
	// inSelect says that the cells being added are a select's.
	inSelect bool
}

// add adds the cells of one release: y is what the view reads (grid
// steps), base its mean on D, delta the move of the mean on D', v the
// variance of the noise left on it. The cells the canary moves give the
// noise test its residuals, y minus the mean on the run's side.
func (s *viewStat) add(y []int64, base, delta []float64, v float64) {
	for c, d := range delta {
		r := float64(y[c]) - base[c]
		if s.side == audit.DPrime {
			r -= d
		}
		if s.inSelect {
			// The selects' calibration test reads every score's
			// residual, moved by the canary or not.
			s.selects.SumSq += r * r / v
			s.selects.Cells++
			s.selects.Loss += d * d / (2 * v)
		}
		if d == 0 {
			continue
		}
		s.llr += d * (float64(y[c]) - base[c] - d/2) / v
		s.noise.SumSq += r * r / v
		s.noise.Cells++
		s.noise.Loss += d * d / (2 * v)
	}
}

// viewRowsDim is the length of a view's release: the LLR, then the noise
// sample's SumSq, Cells and Loss, then the selects' (0 on the paper path).
const viewRowsDim = 7

func (s *viewStat) write(out []float64) {
	out[0], out[1], out[2], out[3] = s.llr, s.noise.SumSq, float64(s.noise.Cells), s.noise.Loss
	out[4], out[5], out[6] = s.selects.SumSq, float64(s.selects.Cells), s.selects.Loss
}

// SelectNoise reads a view release's sample over its select scores alone.
func SelectNoise(out []float64) audit.NoiseSample {
	return audit.NoiseSample{SumSq: out[4], Cells: int(out[5]), Loss: out[6]}
}

func readViewNoise(out []float64) audit.NoiseSample {
	return audit.NoiseSample{SumSq: out[1], Cells: int(out[2]), Loss: out[3]}
}

// pairMeans are, in grid steps, the move of owner 1's counts for q from D
// to D' and the counts on D of the owners in with (owner indices; owner 1
// is always counted).
func (tr *rowsTrace) pairMeans(i int, with []int) (base, delta []float64, v float64, err error) {
	q := tr.requests[i]
	plan, err := q.Release.Noise.Plan(len(tr.words[i][0]))
	if err != nil {
		return nil, nil, 0, fmt.Errorf("audit: %w", err)
	}
	cD, err := tr.h.counts(audit.D, 0, q)
	if err != nil {
		return nil, nil, 0, err
	}
	cDp, err := tr.h.counts(audit.DPrime, 0, q)
	if err != nil {
		return nil, nil, 0, err
	}
	base, delta = make([]float64, len(cD)), make([]float64, len(cD))
	for c := range cD {
		base[c] = plan.Snap(cD[c])
		delta[c] = plan.Snap(cDp[c]) - base[c]
	}
	for _, k := range with {
		ck, err := tr.counts(k, q)
		if err != nil {
			return nil, nil, 0, err
		}
		for c := range base {
			base[c] += plan.Snap(ck[c])
		}
	}
	return base, delta, plan.Units() * plan.Units(), nil
}

// coordinatorLLR is the coordinator's statistic over every release.
func (tr *rowsTrace) coordinatorLLR() (*viewStat, error) {
	k := len(tr.h.names)
	others := make([]int, 0, k-1)
	for j := 1; j < k; j++ {
		others = append(others, j)
	}
	st := &viewStat{side: tr.side}
	for i := range tr.requests {
		st.inSelect = tr.requests[i].Kind == proto.KindSelect
		if w, ok := smallWords(tr.words[i][0]); ok {
			base, delta, v, err := tr.pairMeans(i, nil)
			if err != nil {
				return nil, err
			}
			st.add(w, base, delta, v/float64(k))
			continue
		}
		base, delta, v, err := tr.pairMeans(i, others)
		if err != nil {
			return nil, err
		}
		st.add(sumWords(tr.words[i]), base, delta, v)
	}
	return st, nil
}

// colluderLLR is owner 2's statistic over the published marginals. In
// exact mode a published marginal is exactly the sum of the words on
// its grid, which is checked: it ties the engine's published values to
// the requests they answer.
func (tr *rowsTrace) colluderLLR() (*viewStat, error) {
	k := len(tr.h.names)
	var rest []int
	for j := 1; j < k; j++ {
		if j != viewRowsColluder {
			rest = append(rest, j)
		}
	}
	idx, vals, err := tr.published()
	if err != nil {
		return nil, err
	}
	st := &viewStat{side: tr.side}
	for m, i := range idx {
		q := tr.requests[i]
		plan, err := q.Release.Noise.Plan(len(vals[m]))
		if err != nil {
			return nil, fmt.Errorf("audit: %w", err)
		}
		// Owner 2's own word: the one it sent, unmasked (a variant whose
		// owners send unmasked words sent it as it is).
		own, plain := smallWords(tr.words[i][viewRowsColluder])
		if !plain {
			if own, err = tr.unmask(viewRowsColluder, q, tr.words[i][viewRowsColluder]); err != nil {
				return nil, err
			}
		}
		total := sumWords(tr.words[i])
		y := make([]int64, len(own))
		for c, r := range vals[m] {
			steps := r / plan.Grid
			if steps != math.Round(steps) {
				return nil, fmt.Errorf("audit: published value %v of request %d is off its grid %v", r, q.ID, plan.Grid)
			}
			if tr.h.mode == proto.NoiseExact && int64(steps) != total[c] {
				return nil, fmt.Errorf("audit: published value %v of request %d is not the sum of the shares (%d steps of %v)", r, q.ID, total[c], plan.Grid)
			}
			y[c] = int64(steps) - own[c]
		}
		base, delta, v, err := tr.pairMeans(i, rest)
		if err != nil {
			return nil, err
		}
		if tr.h.mode == proto.NoiseExact {
			v *= float64(k-1) / float64(k)
		}
		st.add(y, base, delta, v)
	}
	return st, nil
}

// rewritePlaintext is VariantPlaintext's owners: every word becomes its
// owner's bare counts, unmasked, the last owner's plus every owner's
// noise share (so the sum, and the release, are the sound protocol's).
func rewritePlaintext(tr *rowsTrace, q *proto.Request, words [][]uint64) error {
	shares, err := tr.noiseShares(q, words)
	if err != nil {
		return err
	}
	plan, err := q.Release.Noise.Plan(len(words[0]))
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	last := len(words) - 1
	for k := range words {
		c, err := tr.counts(k, q)
		if err != nil {
			return err
		}
		for i := range words[k] {
			words[k][i] = uint64(int64(plan.Snap(c[i])))
		}
	}
	for _, s := range shares {
		for i, v := range s {
			words[last][i] += uint64(v)
		}
	}
	return nil
}

// rewriteSelectNoiseHalved is VariantSelectNoiseHalved's owners: each
// takes half its noise share (rounded towards zero) out of its word of a
// select request.
func rewriteSelectNoiseHalved(tr *rowsTrace, q *proto.Request, words [][]uint64) error {
	if q.Kind != proto.KindSelect {
		return nil
	}
	shares, err := tr.noiseShares(q, words)
	if err != nil {
		return err
	}
	for k, s := range shares {
		for i, v := range s {
			words[k][i] -= uint64(v - v/2)
		}
	}
	return nil
}

// rewriteDealer is VariantDealer's owners: every owner but owner 2 sends
// its word without its noise share, owner 2 its own with everybody's.
func rewriteDealer(tr *rowsTrace, q *proto.Request, words [][]uint64) error {
	shares, err := tr.noiseShares(q, words)
	if err != nil {
		return err
	}
	for k, s := range shares {
		if k == viewRowsColluder {
			continue
		}
		for i, v := range s {
			words[k][i] -= uint64(v)
			words[viewRowsColluder][i] += uint64(v)
		}
	}
	return nil
}

// SelectCalibration is the outcome of SelectNoiseTest.
type SelectCalibration struct {
	// Cells is the number of select residuals; VarianceRatio their
	// Σ r²/v over Cells, the selects' noise variance over what their
	// requests state, and VarianceRatioUpper its upper bound at level
	// Alpha.
	Cells                             int
	VarianceRatio, VarianceRatioUpper float64
	Alpha                             float64
}

// Thinned reports that the selects' noise is below its calibration: the
// upper bound of its variance ratio is below 1.
func (c SelectCalibration) Thinned() bool { return c.VarianceRatioUpper < 1 }

// SelectNoiseTest tests the calibration of the select scores' noise in a
// view of the adaptive path from the runs' select samples (SelectNoise):
// their residuals r over the stated variances v make Σ r²/v ~ κ·χ²_M for
// M cells, κ the true variance over the stated one, so κ ≤ Σ r²/v /
// χ²_M⁻¹(alpha) with probability 1 − alpha, and a bound below 1 rejects
// the owners' calibration (Thinned) with false-rejection rate at most
// alpha. Unlike the view audit's noise test, which weighs the canary's
// moves against the whole session's claim, this compares the selects'
// noise with what their own charges state, so a thinning of the selects
// alone (a tenth of each round's budget) is seen; it relies on the
// stated sensitivity 2√C being the one that holds, which the replay
// audit checks.
func SelectNoiseTest(samples []audit.NoiseSample, alpha float64) (SelectCalibration, error) {
	c := SelectCalibration{Alpha: alpha}
	sum := 0.0
	for _, s := range samples {
		if s.Cells < 0 || !(s.SumSq >= 0) {
			return c, fmt.Errorf("audit: select noise sample %+v is not a sum of squares", s)
		}
		c.Cells += s.Cells
		sum += s.SumSq
	}
	if c.Cells == 0 {
		return c, fmt.Errorf("audit: no select residual in %d runs", len(samples))
	}
	c.VarianceRatio = sum / float64(c.Cells)
	c.VarianceRatioUpper = sum / distuv.ChiSquared{K: float64(c.Cells)}.Quantile(alpha)
	return c, nil
}
