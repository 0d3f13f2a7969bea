package crdp

import (
	"fmt"
	"math"
	"slices"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method/mpcrdp/correlation"
	"github.com/dppub/dppub/privacy"
)

// MaxCandidates bounds MP-OP's candidate groups (C(|α|, b)).
const MaxCandidates = 100000

// Candidates returns every b-subset of adjusted, in lexicographic order of
// positions (all of adjusted as one group when it has at most b features).
func Candidates(adjusted []string, b int) ([][]string, error) {
	if len(adjusted) == 0 {
		return nil, nil
	}
	if len(adjusted) <= b {
		return [][]string{slices.Clone(adjusted)}, nil
	}
	if c := binomial(len(adjusted), b); c > MaxCandidates {
		return nil, fmt.Errorf("mpcrdp: C(%d, %d) = %d candidate groups exceed %d; raise b or shrink the adjusted set", len(adjusted), b, c, MaxCandidates)
	}
	var out [][]string
	idx := make([]int, b)
	for i := range idx {
		idx[i] = i
	}
	for {
		group := make([]string, b)
		for i, j := range idx {
			group[i] = adjusted[j]
		}
		out = append(out, group)
		i := b - 1
		for i >= 0 && idx[i] == len(adjusted)-b+i {
			i--
		}
		if i < 0 {
			return out, nil
		}
		idx[i]++
		for j := i + 1; j < b; j++ {
			idx[j] = idx[j-1] + 1
		}
	}
}

func binomial(n, k int) int64 {
	if k < 0 || k > n {
		return 0
	}
	r := 1.0
	for i := 1; i <= min(k, n-k); i++ {
		r = r * float64(n-min(k, n-k)+i) / float64(i)
	}
	return int64(math.Round(math.Min(r, math.MaxInt64/2)))
}

// UtilitySensitivity is Δu of the exponential mechanism: the paper's
// log₂C for u1 and 1/K for u2, or the sound b·InfoGainSensitivity(n, C)
// and 1 (see the package comment).
func UtilitySensitivity(u Utility, c Calibration, b, n, classes, k int) float64 {
	switch {
	case u == U1 && c == Paper:
		return math.Log2(float64(classes))
	case u == U1:
		return float64(b) * InfoGainSensitivity(n, classes)
	case c == Paper:
		return 1 / float64(max(k, 1))
	}
	return 1
}

// analyse runs the correlation analysis of the named features (table
// order) at threshold w0.
func (p *Pipeline) analyse(features []string, w0 float64) (*correlation.Result, error) {
	codes, err := p.codes.Select(p.inTableOrder(features)...)
	if err != nil {
		return nil, err
	}
	return correlation.Analyze(codes, correlation.Options{Threshold: w0})
}

// utilities scores the candidates (Algorithm 2, line 3).
func (p *Pipeline) utilities() error {
	cands, err := Candidates(p.res.Adjusted, p.cfg.B)
	if err != nil || len(cands) == 0 {
		return err
	}
	p.res.Candidates = cands
	p.res.Utilities = make([]float64, len(cands))
	y := column{codes: make([]uint32, len(p.y)), levels: p.classes}
	for i, v := range p.y {
		y.codes[i] = uint32(v)
	}
	ig := map[string]float64{}
	for c, group := range cands {
		u := 0.0
		if p.cfg.Utility == U1 {
			for _, f := range group {
				if _, ok := ig[f]; !ok {
					ig[f] = infoGain(y, p.column(f))
				}
				u += ig[f]
			}
		} else {
			r, err := p.analyse(append(slices.Clone(p.res.Best), group...), p.res.MCD)
			if err != nil {
				return err
			}
			u = p.res.MCD / r.Sensitivity
		}
		p.res.Utilities[c] = u
	}
	k := 0
	if p.cfg.Utility == U2 && p.cfg.Calibration == Paper {
		feats := p.res.Best
		if len(feats) == 0 {
			feats = p.res.Adjusted
		}
		r, err := p.analyse(feats, p.res.MCD)
		if err != nil {
			return err
		}
		k = r.K
	}
	p.res.UtilitySensitivity = UtilitySensitivity(p.cfg.Utility, p.cfg.Calibration, len(cands[0]), p.table.Len(), p.classes, k)
	return nil
}

func (p *Pipeline) selectionCharges() ([]privacy.Charge, error) {
	if err := p.utilities(); err != nil {
		return nil, err
	}
	if len(p.res.Candidates) < 2 || p.cfg.Calibration == None {
		return nil, nil
	}
	eps := p.budget.Selection
	ch := privacy.Charge{
		Purpose:     fmt.Sprintf("MP-OP: permute-and-flip (the paper's exponential mechanism's ε-DP replacement) over %d candidate groups of the adjusted set (utility %s)", len(p.res.Candidates), p.cfg.Utility),
		Spec:        dp.SelectionSpec(p.res.UtilitySensitivity, eps),
		Calibration: string(p.cfg.Calibration),
	}
	switch {
	case p.cfg.Utility == U2 && p.cfg.Calibration == Paper:
		actual := dp.Pure(eps / p.res.UtilitySensitivity)
		ch.Actual = &actual
		ch.Note = "the paper's Δu2 = 1/K; u2 = MCD/ΔCS_p lies in (0, 1] and one record can move ΔCS_p (and MCD) arbitrarily within it, so the true sensitivity is 1"
	case p.cfg.Utility == U2:
		ch.Note = "u2 = MCD/ΔCS_p lies in (0, 1] (MCD ≤ 1 ≤ ΔCS_p), so Δu2 = 1"
	case p.cfg.Calibration == Paper:
		ch.Note = "the paper's Δu1 = log₂C, the range of one information gain (valid but loose)"
	default:
		ch.Note = "each information gain H(Y)+H(X)−H(X,Y) moves by at most 3(log₂n + log₂e)/n"
	}
	return []privacy.Charge{ch}, nil
}

// selectCandidate picks a candidate (permute-and-flip, or the best
// for calibration none) and adds it to β (Algorithm 2, lines 4–6).
func (p *Pipeline) selectCandidate() error {
	chosen := -1
	switch {
	case len(p.res.Candidates) == 1:
		chosen = 0
	case len(p.res.Candidates) > 1 && p.cfg.Calibration == None:
		chosen = 0
		for c, u := range p.res.Utilities {
			if u > p.res.Utilities[chosen] {
				chosen = c
			}
		}
	case len(p.res.Candidates) > 1:
		var err error
		if chosen, err = dp.PermuteAndFlip(p.src, p.res.Utilities, p.res.UtilitySensitivity, p.budget.Selection); err != nil {
			return err
		}
	}
	p.res.Chosen = chosen
	final := slices.Clone(p.res.Best)
	if chosen >= 0 {
		final = append(final, p.res.Candidates[chosen]...)
	}
	p.res.Final = p.inTableOrder(final)
	if len(p.res.Final) == 0 {
		return fmt.Errorf("no feature selected")
	}
	return nil
}
