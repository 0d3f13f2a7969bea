package audittest

import (
	"math"
	"testing"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/randx"
)

// FloatPathCase is a grey-box audit of the suite, real or with the old
// float path planted back as a test double, and the verdict it must give
// at every seed.
type FloatPathCase struct {
	Name string
	M    func(t *testing.T) audit.Mechanism
	Want audit.Verdict
	// Long cases are skipped in short mode.
	Long bool
}

// CheckFloatPaths runs each case's grey-box audit at the given runs per
// dataset over seeds 1 to seeds and requires its verdict at each.
func CheckFloatPaths(t *testing.T, runs int, seeds uint64, cases []FloatPathCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if c.Long && testing.Short() {
				t.Skip("a long case: its leak is caught only at the runs of long mode")
			}
			m := c.M(t)
			for seed := uint64(1); seed <= seeds; seed++ {
				r, err := audit.GreyBox(m, audit.GreyBoxOptions{Runs: runs, Source: randx.NewSeeded(seed), Workers: 2})
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("seed %d: %s", seed, r)
				if r.Verdict != c.Want {
					t.Errorf("seed %d: %s, want %s", seed, r.Verdict, c.Want)
				}
			}
		})
	}
}

// MustMechanism builds fam's audit name at options o.
func MustMechanism(t *testing.T, fam audit.Family, name string, o audit.MethodOptions) audit.Mechanism {
	t.Helper()
	var m audit.Mechanism
	meth, err := fam.Lookup(name)
	if err == nil {
		m, err = meth.Mechanism(o)
	}
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// GridNoise is g·K with K one draw of the plan's discrete noise: the
// real noise, as a test double adds it to a value not rounded to g.
func GridNoise(src *randx.Source, g dp.GridNoise) float64 {
	out := []float64{0}
	dp.NewNoiser(src).Release(g, out)
	return out[0]
}

// ContinuousGaussian is the old dp.Noiser.Gaussian on a seeded source.
func ContinuousGaussian(sigma float64) func(*randx.Source) float64 {
	return func(src *randx.Source) float64 { return sigma * src.NormFloat64() }
}

// ContinuousLaplace is the old dp.Noiser.Laplace on a seeded source: the
// inverse CDF of a 53-bit uniform.
func ContinuousLaplace(b float64) func(*randx.Source) float64 {
	return func(src *randx.Source) float64 {
		u := src.Float64() - 0.5
		return -b * math.Copysign(1, u) * math.Log1p(-2*math.Abs(u))
	}
}

// GranularLaplace is the old dp.Noiser.Laplace on a secure source (Google's
// noise.Laplace at x = 0): Laplace noise on the grid 2^⌈log₂(b/2^40)⌉, here
// rounded from the continuous sampler, which gives the same lattice.
func GranularLaplace(b float64) func(*randx.Source) float64 {
	g := math.Ldexp(1, int(math.Ceil(math.Log2(b/(1<<40)))))
	next := ContinuousLaplace(b)
	return func(src *randx.Source) float64 { return math.Round(next(src)/g) * g }
}
