package crdp

import (
	"fmt"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/privacy"
)

// PairDecision is the redundancy test of two best features.
type PairDecision struct {
	A, B string
	// Kind is "pearson" (both numeric) or "nmi".
	Kind string
	// Value is the released (noisy, except for calibration none)
	// coefficient; Moved names the feature moved to the adjusted set.
	Value float64
	Moved string
}

// pairFeature is what the redundancy step reads of one best feature.
type pairFeature struct {
	name    string
	numeric bool
	unit    []float64 // numeric: the value encoded into [0, 1]
	col     column
}

// redundancyPlan lists the pairs of best features and the noisy vectors
// the sound calibration releases for them.
type redundancyPlan struct {
	feats   []pairFeature
	pairs   [][2]int
	numeric []int // features in a Pearson pair (sound: their moments)
	entropy []int // features in an NMI pair (sound: their entropies)
	nmi     int   // NMI pairs
	epsMom  float64
	epsEnt  float64
}

func newRedundancyPlan(feats []pairFeature, cal Calibration, eps float64) *redundancyPlan {
	p := &redundancyPlan{feats: feats}
	inNum, inEnt := map[int]bool{}, map[int]bool{}
	pearson := 0
	for a := range feats {
		for b := a + 1; b < len(feats); b++ {
			p.pairs = append(p.pairs, [2]int{a, b})
			if feats[a].numeric && feats[b].numeric {
				pearson++
				inNum[a], inNum[b] = true, true
			} else {
				p.nmi++
				inEnt[a], inEnt[b] = true, true
			}
		}
	}
	for f := range feats {
		if inNum[f] {
			p.numeric = append(p.numeric, f)
		}
		if inEnt[f] {
			p.entropy = append(p.entropy, f)
		}
	}
	if cal == Sound && len(p.pairs) > 0 {
		p.epsMom = eps * float64(pearson) / float64(len(p.pairs))
		p.epsEnt = eps - p.epsMom
	}
	return p
}

// momentSensitivity is the L1 sensitivity of (Σx_j, Σx_j·x_k for j ≤ k)
// over M numeric features in [0, 1].
func momentSensitivity(m int) float64 { return float64(m + m*(m+1)/2) }

// entropyCount is the number of entropies released: one per feature in an
// NMI pair, one per NMI pair.
func (p *redundancyPlan) entropyCount() int { return len(p.entropy) + p.nmi }

// charges are what the step spends.
func (p *redundancyPlan) charges(cal Calibration, eps float64, n int) []privacy.Charge {
	if len(p.pairs) == 0 || cal == None {
		return nil
	}
	if cal == Paper {
		worst := 0.0
		for _, pr := range p.pairs {
			if p.feats[pr[0]].numeric && p.feats[pr[1]].numeric {
				worst += 2 // a Pearson coefficient can cross [−1, 1]
			} else {
				worst++ // NMI lies in [0, 1]
			}
		}
		actual := dp.Pure(worst * eps)
		return []privacy.Charge{{
			Purpose:     fmt.Sprintf("MP-FS redundancy: %d Pearson/NMI coefficients of the best features, Laplace(1/ε1) each", len(p.pairs)),
			Spec:        dp.Spec{Mechanism: "laplace", Norm: "per coefficient (paper: ΔCS_per ≤ 1)", Sensitivity: 1, Scale: 1 / eps, Guarantee: dp.Pure(eps)},
			Calibration: string(Paper), Actual: &actual,
			Note: "the paper claims ΔCS_per ≤ 1 and ignores that every coefficient changes with one record: a Pearson coefficient can move by 2 and the coefficients compose, so the release is only (Σ sensitivities)·ε1-DP",
		}}
	}
	var out []privacy.Charge
	if m := len(p.numeric); m > 0 {
		s := momentSensitivity(m)
		out = append(out, privacy.Charge{
			Purpose:     fmt.Sprintf("MP-FS redundancy: sums and cross-products of %d numeric best features (Pearson by post-processing)", m),
			Spec:        dp.Spec{Mechanism: "laplace", Norm: "L1", Sensitivity: s, Scale: s / p.epsMom, Guarantee: dp.Pure(p.epsMom)},
			Calibration: string(Sound),
			Note:        "features encoded into [0,1] by their declared bounds: each of the M sums and M(M+1)/2 cross-products moves by at most 1 when a record is replaced",
		})
	}
	if k := p.entropyCount(); k > 0 {
		s := float64(k) * EntropySensitivity(n)
		out = append(out, privacy.Charge{
			Purpose:     fmt.Sprintf("MP-FS redundancy: %d entropies for the NMI of %d pairs with a categorical feature", k, p.nmi),
			Spec:        dp.Spec{Mechanism: "laplace", Norm: "L1", Sensitivity: s, Scale: s / p.epsEnt, Guarantee: dp.Pure(p.epsEnt)},
			Calibration: string(Sound),
			Note:        "each empirical entropy over n (public) records moves by at most (log₂n + log₂e)/n when a record is replaced",
		})
	}
	return out
}

// coefficients computes every pair's coefficient: exactly (none), exact
// plus Laplace(1/ε) (paper), or from noisy sufficient statistics (sound).
func (p *redundancyPlan) coefficients(cal Calibration, eps float64, noise *dp.Noiser) []float64 {
	n := 0
	if len(p.feats) > 0 {
		n = len(p.feats[0].col.codes)
	}
	mom := p.moments()
	ent := p.entropies()
	if cal == Sound {
		if len(mom) > 0 {
			mom = NoisyMoments(p.numericCols(), p.epsMom, noise) // the same sums, noised
		}
		if len(ent) > 0 {
			noise.ReleaseLaplace(float64(p.entropyCount())*EntropySensitivity(n), p.epsEnt, ent)
		}
	}
	out := make([]float64, len(p.pairs))
	nmiAt := 0
	for k, pr := range p.pairs {
		a, b := pr[0], pr[1]
		if p.feats[a].numeric && p.feats[b].numeric {
			out[k] = p.pearsonFrom(mom, a, b, float64(n))
		} else {
			ia, ib := p.entropyIndex(a), p.entropyIndex(b)
			out[k] = nmi(ent[ia], ent[ib], ent[len(p.entropy)+nmiAt])
			nmiAt++
		}
		if cal == Paper {
			noise.ReleaseLaplace(1, eps, out[k:k+1])
		}
	}
	return out
}

// moments packs Σx_j for the numeric features, then Σx_j·x_k (j ≤ k).
func (p *redundancyPlan) moments() []float64 { return PearsonMoments(p.numericCols()) }

// numericCols are the numeric features' columns encoded into [0, 1].
func (p *redundancyPlan) numericCols() [][]float64 {
	cols := make([][]float64, len(p.numeric))
	for j, f := range p.numeric {
		cols[j] = p.feats[f].unit
	}
	return cols
}

// PearsonMoments packs Σx_j, then Σx_j·x_k (j ≤ k), of the columns: the
// exact sufficient statistics of their Pearson coefficients.
func PearsonMoments(cols [][]float64) []float64 {
	m := len(cols)
	if m == 0 {
		return nil
	}
	out := make([]float64, m+m*(m+1)/2)
	for i := range cols[0] {
		at := m
		for j, col := range cols {
			v := col[i]
			out[j] += v
			for _, other := range cols[j:] {
				out[at] += v * other[i]
				at++
			}
		}
	}
	return out
}

// NoisyMoments is MP-FS's sound release of the sufficient statistics of
// the Pearson coefficients between numeric features encoded into [0, 1]
// (one column each, one value per record): Σx_j, then Σx_j·x_k (j ≤ k),
// each moving by at most 1 when a record is replaced, so Laplace of scale
// (M + M(M+1)/2)/ε on every entry is ε-DP (Dwork et al. 2006). The
// coefficients are post-processing. The pipeline releases exactly this.
func NoisyMoments(cols [][]float64, eps float64, noise *dp.Noiser) []float64 {
	mom := PearsonMoments(cols)
	if len(mom) > 0 {
		noise.ReleaseLaplace(momentSensitivity(len(cols)), eps, mom)
	}
	return mom
}

// momentAt indexes Σx_j·x_k (j ≤ k, positions among the numeric features).
func momentAt(m, j, k int) int {
	if j > k {
		j, k = k, j
	}
	return m + j*m - j*(j-1)/2 + (k - j)
}

func (p *redundancyPlan) pearsonFrom(mom []float64, a, b int, n float64) float64 {
	m := len(p.numeric)
	ja, jb := indexOf(p.numeric, a), indexOf(p.numeric, b)
	return pearson(n, mom[ja], mom[jb], mom[momentAt(m, ja, ja)], mom[momentAt(m, jb, jb)], mom[momentAt(m, ja, jb)])
}

// entropies packs H(f) for the NMI features, then H(f, g) per NMI pair.
func (p *redundancyPlan) entropies() []float64 {
	out := make([]float64, 0, p.entropyCount())
	for _, f := range p.entropy {
		out = append(out, p.feats[f].col.entropy())
	}
	for _, pr := range p.pairs {
		a, b := p.feats[pr[0]], p.feats[pr[1]]
		if !(a.numeric && b.numeric) {
			out = append(out, jointEntropy(a.col, b.col))
		}
	}
	return out
}

func (p *redundancyPlan) entropyIndex(f int) int { return indexOf(p.entropy, f) }

func indexOf(s []int, v int) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	panic("mpcrdp: index of a missing element")
}
