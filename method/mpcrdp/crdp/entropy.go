package crdp

import (
	"math"
)

// EntropySensitivity bounds how far the empirical entropy (in bits) of any
// discrete attribute, or tuple of attributes, moves when one of n records
// is replaced: (log₂n + log₂e)/n. Proof: H = log₂n − Σ_v h(c_v)/n with
// h(c) = c·log₂c; a replacement lowers one count by one and raises
// another, and 0 ≤ h(c+1) − h(c) = log₂(c+1) + c·log₂(1 + 1/c) ≤ log₂n +
// log₂e for c + 1 ≤ n, so Σh moves by at most log₂n + log₂e.
func EntropySensitivity(n int) float64 {
	return (math.Log2(float64(n)) + math.Log2E) / float64(n)
}

// InfoGainSensitivity bounds the replace-one sensitivity of the
// information gain IG(Y; X) = H(Y) + H(X) − H(X, Y) of a label with
// classes classes: three entropies, each EntropySensitivity(n), and never
// more than IG's range log₂(classes).
func InfoGainSensitivity(n, classes int) float64 {
	return math.Min(3*EntropySensitivity(n), math.Log2(float64(classes)))
}

// entropy returns the entropy in bits of the empirical distribution with
// these counts over n records.
func entropy(counts []int, n int) float64 {
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / float64(n)
			h -= p * math.Log2(p)
		}
	}
	return h
}

// column is one discretised attribute: a code per record and its number of
// codes.
type column struct {
	codes  []uint32
	levels int
}

func (c column) entropy() float64 {
	counts := make([]int, c.levels)
	for _, v := range c.codes {
		counts[v]++
	}
	return entropy(counts, len(c.codes))
}

// jointEntropy is H(a, b).
func jointEntropy(a, b column) float64 {
	n := len(a.codes)
	if cells := a.levels * b.levels; cells <= 1<<22 {
		counts := make([]int, cells)
		for i, v := range a.codes {
			counts[int(v)*b.levels+int(b.codes[i])]++
		}
		return entropy(counts, n)
	}
	m := map[uint64]int{}
	for i, v := range a.codes {
		m[uint64(v)<<32|uint64(b.codes[i])]++
	}
	counts := make([]int, 0, len(m))
	for _, c := range m {
		counts = append(counts, c)
	}
	return entropy(counts, n)
}

// infoGain is IG(Y; X) = H(Y) + H(X) − H(X, Y), clipped at 0 against
// rounding.
func infoGain(y, x column) float64 {
	return math.Max(0, y.entropy()+x.entropy()-jointEntropy(x, y))
}

// nmi is I(a; b)/min(H(a), H(b)) clipped to [0, 1] (0 when either entropy
// is not positive), computed from (possibly noisy) entropies.
func nmi(ha, hb, hab float64) float64 {
	m := math.Min(ha, hb)
	if !(m > 0) {
		return 0
	}
	return math.Min(1, math.Max(0, (ha+hb-hab)/m))
}

// pearson is the correlation from sums over n records (possibly noisy):
// sx = Σx, sy = Σy, sxx = Σx², syy = Σy², sxy = Σxy; 0 when a variance
// is not positive, clipped to [−1, 1].
func pearson(n, sx, sy, sxx, syy, sxy float64) float64 {
	mx, my := sx/n, sy/n
	vx, vy := sxx/n-mx*mx, syy/n-my*my
	if !(vx > 0 && vy > 0) {
		return 0
	}
	return math.Min(1, math.Max(-1, (sxy/n-mx*my)/math.Sqrt(vx*vy)))
}

// InfoGain is IG(Y; X) in bits, the u1 utility of a single feature
// (Algorithm 2, Eq. 17), of labels y with classes classes and a feature's
// codes x with levels levels, record by record.
func InfoGain(y []int, classes int, x []uint32, levels int) float64 {
	yc := column{codes: make([]uint32, len(y)), levels: classes}
	for i, v := range y {
		yc.codes[i] = uint32(v)
	}
	return infoGain(yc, column{codes: x, levels: levels})
}

// Entropy is the empirical entropy in bits of a feature's codes (levels
// codes), as MP-FS releases it, with Laplace noise of scale
// EntropySensitivity(n)/ε per entropy, for the NMI of pairs with a
// categorical feature.
func Entropy(codes []uint32, levels int) float64 {
	return column{codes: codes, levels: levels}.entropy()
}
