package marginal

import (
	"fmt"
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

// NumericDistances compares every numeric column of syn with real (same
// schema).
func NumericDistances(real, syn *data.Table) ([]NumericDistance, error) {
	if !real.Schema.Equal(syn.Schema) {
		return nil, fmt.Errorf("marginal: synthetic schema differs from the real one")
	}
	if real.Len() == 0 || syn.Len() == 0 {
		return nil, fmt.Errorf("marginal: numeric distances of empty tables")
	}
	var out []NumericDistance
	for j, a := range real.Schema.Attributes {
		if a.Kind != data.Numeric {
			continue
		}
		r, s := column(real, j), column(syn, j)
		d := NumericDistance{Name: a.Name}
		d.W1, d.KS = w1ks(r, s)
		if a.Max > a.Min {
			d.W1Range = d.W1 / (a.Max - a.Min)
		}
		d.Mode = mode(r)
		d.RealMass, d.SynthMass = share(r, d.Mode), share(s, d.Mode)
		out = append(out, d)
	}
	return out, nil
}

func column(t *data.Table, j int) []float64 {
	c := make([]float64, t.Len())
	for i, row := range t.Rows {
		c[i] = row[j]
	}
	slices.Sort(c)
	return c
}

// w1ks walks the merged sorted samples once: between consecutive
// distinct values both CDFs are constant.
func w1ks(a, b []float64) (w1, ks float64) {
	i, k := 0, 0
	na, nb := float64(len(a)), float64(len(b))
	prev := math.Min(a[0], b[0])
	for i < len(a) || k < len(b) {
		var x float64
		switch {
		case k == len(b) || (i < len(a) && a[i] <= b[k]):
			x = a[i]
		default:
			x = b[k]
		}
		fa, fb := float64(i)/na, float64(k)/nb
		w1 += math.Abs(fa-fb) * (x - prev)
		for i < len(a) && a[i] == x {
			i++
		}
		for k < len(b) && b[k] == x {
			k++
		}
		ks = math.Max(ks, math.Abs(float64(i)/na-float64(k)/nb))
		prev = x
	}
	return w1, ks
}

// mode is the most common value of sorted c.
func mode(c []float64) float64 {
	best, bestN := c[0], 0
	for i := 0; i < len(c); {
		k := i
		for k < len(c) && c[k] == c[i] {
			k++
		}
		if k-i > bestN {
			best, bestN = c[i], k-i
		}
		i = k
	}
	return best
}

func share(c []float64, v float64) float64 {
	lo, _ := slices.BinarySearch(c, v)
	hi := lo
	for hi < len(c) && c[hi] == v {
		hi++
	}
	return float64(hi-lo) / float64(len(c))
}
