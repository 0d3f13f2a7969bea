package utility

import (
	"math"
	"slices"

	"github.com/dppub/dppub/data"
)

// NumericDistance compares one numeric column of a synthetic table with
// the real one on the original values, which the bin-level TVD cannot see
// (values drawn uniformly inside a bin hold the bin's mass but not where
// it sits inside).
type NumericDistance struct {
	Name string
	// W1 is the Wasserstein-1 distance ∫|F − G| between the two empirical
	// distributions, in the column's units; W1Range divides it by the
	// declared range Max − Min.
	W1, W1Range float64
	// KS is the Kolmogorov–Smirnov distance sup|F − G|.
	KS float64
	// Mode is the column's most common real value (e.g. capital-gain's
	// zero); RealMass and SynthMass are the shares of real and synthetic
	// values equal to it.
	Mode                float64
	RealMass, SynthMass float64
}

// ValueCounts is a numeric column as its distinct values, increasing,
// and how many times each occurs: all W1 and KS need of the real side,
// in memory bounded by the distinct values rather than the rows.
type ValueCounts struct {
	Values []float64
	Counts []int
}

// Histogram counts the values of sorted c.
func Histogram(c []float64) ValueCounts {
	var h ValueCounts
	for i := 0; i < len(c); {
		k := i
		for k < len(c) && c[k] == c[i] {
			k++
		}
		h.Values = append(h.Values, c[i])
		h.Counts = append(h.Counts, k-i)
		i = k
	}
	return h
}

// Total is the number of values counted.
func (h ValueCounts) Total() int {
	n := 0
	for _, c := range h.Counts {
		n += c
	}
	return n
}

// NumericDistanceOf compares numeric attribute a's real values, counted in
// real, with synthetic values syn (sorted; neither empty).
func NumericDistanceOf(a data.Attribute, real ValueCounts, syn []float64) NumericDistance {
	d := NumericDistance{Name: a.Name}
	d.W1, d.KS = W1KS(real, syn)
	if a.Max > a.Min {
		d.W1Range = d.W1 / (a.Max - a.Min)
	}
	best := 0
	for p, c := range real.Counts {
		if c > real.Counts[best] {
			best = p
		}
	}
	d.Mode = real.Values[best]
	d.RealMass = float64(real.Counts[best]) / float64(real.Total())
	d.SynthMass = share(syn, d.Mode)
	return d
}

// W1KS returns the Wasserstein-1 distance ∫|F − G| and the
// Kolmogorov–Smirnov distance sup|F − G| between the empirical
// distributions of the values counted in a and of sorted sample b
// (neither empty). It walks both once: between consecutive distinct
// values both CDFs are constant.
func W1KS(a ValueCounts, b []float64) (w1, ks float64) {
	p, i, k := 0, 0, 0
	na, nb := float64(a.Total()), float64(len(b))
	prev := math.Min(a.Values[0], b[0])
	for p < len(a.Values) || k < len(b) {
		var x float64
		switch {
		case k == len(b) || (p < len(a.Values) && a.Values[p] <= b[k]):
			x = a.Values[p]
		default:
			x = b[k]
		}
		fa, fb := float64(i)/na, float64(k)/nb
		w1 += math.Abs(fa-fb) * (x - prev)
		if p < len(a.Values) && a.Values[p] == x {
			i += a.Counts[p]
			p++
		}
		for k < len(b) && b[k] == x {
			k++
		}
		ks = math.Max(ks, math.Abs(float64(i)/na-float64(k)/nb))
		prev = x
	}
	return w1, ks
}

// share is the fraction of sorted values c equal to v.
func share(c []float64, v float64) float64 {
	lo, _ := slices.BinarySearch(c, v)
	hi := lo
	for hi < len(c) && c[hi] == v {
		hi++
	}
	return float64(hi-lo) / float64(len(c))
}
