package bayesnet

import (
	"cmp"
	"fmt"
	"math"

	"github.com/dppub/dppub/randx"
)

// Options configure one PrivBayes release.
type Options struct {
	// Epsilon is the total budget ε (pure DP).
	Epsilon float64
	// Beta is the share of ε spent on the structure (default 0.3, the
	// TODS paper's recommendation).
	Beta float64
	// Theta is the usefulness threshold θ of the adaptive degree
	// (default 4, the paper's).
	Theta float64
	// K > 0 fixes the degree of the network instead.
	K     int
	Score Score // default R
	// MaxCells caps the cells of any family (default 1<<20).
	MaxCells int
	// FixRoot and Root fix the first attribute (default: random).
	FixRoot bool
	Root    int
}

func (o *Options) defaults() {
	o.Beta = cmp.Or(o.Beta, 0.3)
	o.Theta = cmp.Or(o.Theta, 4)
	o.Score = cmp.Or(o.Score, R)
	o.MaxCells = cmp.Or(o.MaxCells, 1<<20)
}

// WithDefaults returns o with every unset parameter at its default.
func (o Options) WithDefaults() Options {
	o.defaults()
	return o
}

// Validate checks the options after defaults.
func (o Options) Validate() error {
	if !(o.Epsilon > 0) || math.IsInf(o.Epsilon, 0) {
		return fmt.Errorf("privbayes: ε = %v, want positive and finite", o.Epsilon)
	}
	if !(o.Beta > 0 && o.Beta < 1) {
		return fmt.Errorf("privbayes: β = %v, want in (0, 1)", o.Beta)
	}
	if !(o.Theta > 0) || math.IsInf(o.Theta, 0) {
		return fmt.Errorf("privbayes: θ = %v, want positive and finite", o.Theta)
	}
	return o.Score.validate()
}

// Budgets returns ε1 = βε (structure) and ε2 = ε − ε1 (parameters).
func (o Options) Budgets() (eps1, eps2 float64) {
	o.defaults()
	eps1 = o.Beta * o.Epsilon
	return eps1, o.Epsilon - eps1
}

// Structure returns the structure options of a release over n rows of d
// attributes: ε1, τ = UsefulDomain(n, ε2, d, θ) and the rest of o.
func (o Options) Structure(n float64, d int) StructureOptions {
	o.defaults()
	eps1, eps2 := o.Budgets()
	return StructureOptions{Score: o.Score, K: o.K, Tau: UsefulDomain(n, eps2, d, o.Theta),
		MaxCells: o.MaxCells, Epsilon: eps1, FixRoot: o.FixRoot, Root: o.Root}
}

// Run is PrivBayes on d: GreedyBayes with ε1, noisy marginals of the
// maximal families with ε2, conditionals read off them. It charges sp
// twice (ε1, then ε2), each time before the noisy result exists.
func Run(d *Data, o Options, sp Spender, src *randx.Source) (*Model, error) {
	o.defaults()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	net, err := LearnStructure(d, o.Structure(d.N, d.Dims()), sp, src)
	if err != nil {
		return nil, err
	}
	_, eps2 := o.Budgets()
	margs, err := NoisyMarginals(d, MaximalFamilies(net), eps2, sp, src)
	if err != nil {
		return nil, err
	}
	return Fit(d.Cards, net, margs)
}
