package marginal

import (
	"fmt"
	"math"
	"testing"

	"github.com/dppub/dppub/engine/marginal/domain"
)

// TestOptionsRefuseUnknownWords checks that the engine's options refuse a
// score, method or inference it does not know, naming the bad word and
// listing the known ones, and that a refinement is checked the same way.
func TestOptionsRefuseUnknownWords(t *testing.T) {
	cases := []struct {
		name string
		set  func(*Options)
		want string
	}{
		{"score", func(o *Options) { o.Score = "tvd" }, `marginal: unknown score "tvd" (want iindif or indif)`},
		{"method", func(o *Options) { o.Method = "mst" }, `marginal: unknown method "mst" (want paper or adaptive)`},
		{"inference", func(o *Options) { o.Inference = "gibbs" }, `marginal: unknown inference "gibbs" (want gum or pgm)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := Options{Domain: &domain.Domain{}, Records: 10}
			c.set(&o)
			if err := o.defaults(); err == nil || err.Error() != c.want {
				t.Fatalf("defaults() = %v, want %q", err, c.want)
			}
		})
	}
	for r, want := range map[domain.Refinement]string{"": "", domain.RefineDecoded: "", "fine": `unknown refinement "fine" (want measured or decoded)`} {
		if err := r.Validate(); (err == nil) != (want == "") || (err != nil && err.Error() != want) {
			t.Errorf("Refinement(%q).Validate() = %v, want %q", r, err, want)
		}
	}
}

// TestNoiseVariance checks that the engine refuses a noise variance below
// the calibrated one (a release cannot carry less noise than it was
// calibrated for) and that its rules on noise read the ρ at which one
// owner's release would carry the real noise: ρ/v for a variance of v
// times the calibrated, ρ itself for 0 or 1.
func TestNoiseVariance(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0.5, "marginal: noise variance 0.5 times the calibrated, need at least 1"},
		{math.Inf(1), "marginal: noise variance +Inf times the calibrated, need at least 1"},
		{math.NaN(), "marginal: noise variance NaN times the calibrated, need at least 1"},
	} {
		t.Run(fmt.Sprint(c.v), func(t *testing.T) {
			o := Options{Domain: &domain.Domain{}, Records: 10, NoiseVariance: c.v}
			if err := o.defaults(); err == nil || err.Error() != c.want {
				t.Fatalf("defaults() = %v, want %q", err, c.want)
			}
		})
	}
	for _, c := range []struct{ v, want float64 }{{0, 0.3}, {1, 0.3}, {4.0 / 3, 0.225}} {
		o := Options{NoiseVariance: c.v}
		if got := o.noiseRho(0.3); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("noise variance %v: noiseRho(0.3) = %v, want %v", c.v, got, c.want)
		}
	}
}
