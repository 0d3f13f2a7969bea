package bayesnet

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// Family is one node of a Bayesian network: an attribute and its parents.
type Family struct {
	Child   int
	Parents []int
}

// Attrs is the family's attributes, child first.
func (f Family) Attrs() []int { return append([]int{f.Child}, f.Parents...) }

// Network lists families in sampling order: every parent is the child of
// an earlier family, and every attribute is a child exactly once.
type Network []Family

// Validate checks the order and coverage for d attributes.
func (n Network) Validate(d int) error {
	if len(n) != d {
		return fmt.Errorf("privbayes: network has %d families for %d attributes", len(n), d)
	}
	placed := make([]bool, d)
	for i, f := range n {
		if f.Child < 0 || f.Child >= d || placed[f.Child] {
			return fmt.Errorf("privbayes: family %d has child %d, out of range or repeated", i, f.Child)
		}
		for _, p := range f.Parents {
			if p < 0 || p >= d || !placed[p] {
				return fmt.Errorf("privbayes: family %d (child %d) has parent %d that is not placed before it", i, f.Child, p)
			}
		}
		if len(f.Parents) != len(unique(f.Parents)) {
			return fmt.Errorf("privbayes: family %d repeats a parent: %v", i, f.Parents)
		}
		placed[f.Child] = true
	}
	return nil
}

// Isolated lists, in increasing order, the attributes of a d-attribute
// network that have no parent and are no one's parent: in every model on
// this network, and so in every row sampled from it, such an attribute is
// independent of all the others. A label among them makes the synthetic
// data useless for learning it.
func (n Network) Isolated(d int) []int {
	linked := make([]bool, d)
	for _, f := range n {
		if len(f.Parents) > 0 {
			linked[f.Child] = true
		}
		for _, p := range f.Parents {
			linked[p] = true
		}
	}
	var out []int
	for j, l := range linked {
		if !l {
			out = append(out, j)
		}
	}
	return out
}

func unique(s []int) []int {
	c := slices.Clone(s)
	slices.Sort(c)
	return slices.Compact(c)
}

// Spender is charged before a noisy value leaves its owner;
// *privacy.Accountant is one.
type Spender interface {
	Spend(privacy.Charge) error
}

// StructureOptions configure GreedyBayes.
type StructureOptions struct {
	Score Score // default R
	// K > 0 fixes the degree (every subset of min(K, |V|) placed
	// attributes is a candidate); K = 0 uses maximal parent sets under
	// Tau.
	K   int
	Tau float64 // θ-useful domain bound τ (UsefulDomain), needed when K = 0
	// MaxCells caps the cells of any family (default 1<<20).
	MaxCells int
	// Epsilon is ε1, spent in d−1 equal permute-and-flip selections.
	Epsilon float64
	// FixRoot makes Root the first attribute; otherwise it is drawn
	// uniformly at random (the paper's choice, which costs no privacy).
	FixRoot bool
	Root    int
	// Frontier, if not nil, lists for each attribute the attributes allowed
	// as its parents (DP-SUBN's search frontier); nil allows every one.
	Frontier [][]int
}

func (o *StructureOptions) defaults() {
	o.Score = cmp.Or(o.Score, R)
	o.MaxCells = cmp.Or(o.MaxCells, 1<<20)
}

func (o StructureOptions) validate(d int) error {
	if err := o.Score.validate(); err != nil {
		return err
	}
	if o.K < 0 {
		return fmt.Errorf("privbayes: degree k = %d, want ≥ 0", o.K)
	}
	if o.K == 0 && !(o.Tau > 0) {
		return fmt.Errorf("privbayes: adaptive degree needs a positive τ, got %v", o.Tau)
	}
	if o.MaxCells < 2 {
		return fmt.Errorf("privbayes: MaxCells = %d, want ≥ 2", o.MaxCells)
	}
	if !(o.Epsilon > 0) || math.IsInf(o.Epsilon, 0) {
		return fmt.Errorf("privbayes: structure budget ε1 = %v, want positive and finite", o.Epsilon)
	}
	if o.FixRoot && (o.Root < 0 || o.Root >= d) {
		return fmt.Errorf("privbayes: root attribute %d outside [0, %d)", o.Root, d)
	}
	if o.Frontier != nil && len(o.Frontier) != d {
		return fmt.Errorf("privbayes: frontier lists %d attributes, want %d", len(o.Frontier), d)
	}
	return nil
}

type candidate struct {
	child   int
	parents []int
}

// LearnStructure is GreedyBayes: it charges ε1 to sp once, then places
// the attributes one by one, each step choosing (X, Π) by permute-and-flip
// (dp.PermuteAndFlip, ε-DP like the exponential mechanism of the paper,
// never worse in expected score) at ε1/(d−1) on the score over d. Every score is
// computed on all of d's N rows, so replacing one row moves it by at most
// the score's sensitivity at N (RSensitivity, MISensitivity) — whether
// the other rows are private or public (DP-SUBN's prior rows).
func LearnStructure(d *Data, o StructureOptions, sp Spender, src *randx.Source) (Network, error) {
	o.defaults()
	dims := d.Dims()
	if err := o.validate(dims); err != nil {
		return nil, err
	}
	if d.N < 2 {
		return nil, fmt.Errorf("privbayes: structure learning needs at least 2 rows, got %v", d.N)
	}
	root := o.Root
	if !o.FixRoot {
		root = src.IntN(dims)
	}
	net := Network{{Child: root}}
	if dims == 1 {
		return net, nil
	}
	eps := o.Epsilon / float64(dims-1)
	sens := o.Score.sensitivity(d.N, 3, 3) // the general bound; MI on binary domains is lower
	if o.Score == MI && allBinary(d.Cards) {
		sens = MISensitivity(d.N, true)
	}
	if err := sp.Spend(privacy.Charge{
		Purpose: fmt.Sprintf("network structure: %d permute-and-flip selections of (attribute, parents) at ε1/%d each, score %s", dims-1, dims-1, o.Score),
		Spec: dp.Spec{Mechanism: fmt.Sprintf("permute-and-flip ×%d", dims-1), Norm: "utility", Sensitivity: sens,
			Scale: 2 * sens / eps, Guarantee: dp.Pure(o.Epsilon)},
	}); err != nil {
		return nil, err
	}
	placed := []int{root}
	for len(placed) < dims {
		cands, scores, err := scoreCandidates(d, o, placed)
		if err != nil {
			return nil, err
		}
		pick, err := dp.PermuteAndFlip(src, scores, sens, eps)
		if err != nil {
			return nil, fmt.Errorf("privbayes: %w", err)
		}
		c := cands[pick]
		net = append(net, Family{Child: c.child, Parents: c.parents})
		placed = append(placed, c.child)
	}
	return net, nil
}

func allBinary(cards []int) bool {
	for _, c := range cards {
		if c > 2 {
			return false
		}
	}
	return true
}

// scoreCandidates lists every (X, Π) with X not yet placed and scores it.
func scoreCandidates(d *Data, o StructureOptions, placed []int) ([]candidate, []float64, error) {
	var cands []candidate
	var scores []float64
	for x := range d.Dims() {
		if slices.Contains(placed, x) {
			continue
		}
		allowed := placed
		if o.Frontier != nil {
			allowed = intersect(placed, o.Frontier[x])
		}
		sets, err := candidateParents(d.Cards, x, allowed, o.K, o.Tau, o.MaxCells)
		if err != nil {
			return nil, nil, err
		}
		for _, s := range sets {
			fam := Family{Child: x, Parents: s}
			cands = append(cands, candidate{child: x, parents: s})
			scores = append(scores, ScoreOf(o.Score, d.Marginal(fam.Attrs())))
		}
	}
	return cands, scores, nil
}

func intersect(a, b []int) []int {
	var out []int
	for _, v := range a {
		if slices.Contains(b, v) {
			out = append(out, v)
		}
	}
	return out
}
