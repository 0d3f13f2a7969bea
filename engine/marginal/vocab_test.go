package marginal

import (
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
