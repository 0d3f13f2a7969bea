package subn3

import (
	"cmp"
	"fmt"
	"slices"

	privbayes "github.com/dppub/dppub/method/privbayes/bayesnet"
	"github.com/dppub/dppub/randx"
)

// Options configure one party's turn.
type Options struct {
	// PrivBayes holds the party's budget ε (Epsilon) and PrivBayes'
	// parameters β, θ, k, score and MaxCells.
	PrivBayes privbayes.Options
	// Frontier is the number of prior-correlated attributes allowed as
	// each attribute's parents; 0 allows every attribute.
	Frontier int
}

// Validate checks o (unset PrivBayes parameters take their defaults).
func (o Options) Validate() error {
	if o.Frontier < 0 {
		return fmt.Errorf("dpsubn3: frontier width %d, want ≥ 0", o.Frontier)
	}
	return o.PrivBayes.WithDefaults().Validate()
}

// Prior is what the earlier parties published: the current model and the
// number of records it stands for.
type Prior struct {
	Model *privbayes.Model
	N     int
}

// Update is party i's turn (see the package comment): it returns the new
// model M_i. With a nil prior it is PrivBayes on own. sp is charged
// before each noisy release.
func Update(prior *Prior, own *privbayes.Data, o Options, sp privbayes.Spender, src *randx.Source) (*privbayes.Model, error) {
	pb := o.PrivBayes.WithDefaults()
	o.PrivBayes = pb
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if prior == nil {
		return privbayes.Run(own, pb, sp, src)
	}
	if err := checkPrior(prior, own.Cards); err != nil {
		return nil, err
	}
	rows := prior.Model.Sample(prior.N, src)
	s, err := privbayes.NewData(own.Cards, rows)
	if err != nil {
		return nil, err
	}
	merged, err := privbayes.Merge(s, own)
	if err != nil {
		return nil, err
	}
	so := pb.Structure(merged.N, own.Dims())
	so.FixRoot, so.Root = true, prior.Model.Net[0].Child
	if o.Frontier > 0 {
		so.Frontier = SearchFrontier(s, pb.Score, o.Frontier)
	}
	net, err := privbayes.LearnStructure(merged, so, sp, src)
	if err != nil {
		return nil, err
	}
	sets := privbayes.MaximalFamilies(net)
	_, eps2 := pb.Budgets()
	noisy, err := privbayes.NoisyMarginals(own, sets, eps2, sp, src)
	if err != nil {
		return nil, err
	}
	for i, set := range sets {
		if noisy[i], err = privbayes.AddCounts(noisy[i], s.Marginal(set)); err != nil {
			return nil, err
		}
	}
	return privbayes.Fit(own.Cards, net, noisy)
}

func checkPrior(p *Prior, cards []int) error {
	if p.Model == nil {
		return fmt.Errorf("dpsubn3: prior without a model")
	}
	if p.N < 1 {
		return fmt.Errorf("dpsubn3: prior stands for %d records, want ≥ 1", p.N)
	}
	if !slices.Equal(p.Model.Cards, cards) {
		return fmt.Errorf("dpsubn3: prior over domains %v, the party's data over %v", p.Model.Cards, cards)
	}
	return p.Model.Validate()
}

// SearchFrontier returns, for each attribute X, the width attributes with
// the highest pair score against X on s (ties by index).
func SearchFrontier(s *privbayes.Data, score privbayes.Score, width int) [][]int {
	d := s.Dims()
	pair := make([][]float64, d)
	for x := range d {
		pair[x] = make([]float64, d)
	}
	for x := range d {
		for y := x + 1; y < d; y++ {
			v := privbayes.ScoreOf(score, s.Marginal([]int{x, y}))
			pair[x][y], pair[y][x] = v, v
		}
	}
	out := make([][]int, d)
	for x := range d {
		var others []int
		for y := range d {
			if y != x {
				others = append(others, y)
			}
		}
		slices.SortStableFunc(others, func(a, b int) int { return cmp.Compare(pair[x][b], pair[x][a]) })
		out[x] = others[:min(width, len(others))]
	}
	return out
}
