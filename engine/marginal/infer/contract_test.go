package infer

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dppub/dppub/engine/marginal/domain"
)

// naiveContract is Σ f·g onto out by enumerating every cell of the union.
func naiveContract(sizes []int, f, g *domain.Marginal, out []int) []float64 {
	all := union(f.Attrs, g.Attrs)
	res := newFactor(sizes, out)
	x := make([]int, len(sizes))
	at := func(t *domain.Marginal) int {
		i := 0
		for j, a := range t.Attrs {
			i = i*t.Sizes[j] + x[a]
		}
		return i
	}
	var walk func(k int)
	walk = func(k int) {
		if k == len(all) {
			res.Counts[at(res)] += f.Counts[at(f)] * g.Counts[at(g)]
			return
		}
		for v := range sizes[all[k]] {
			x[all[k]] = v
			walk(k + 1)
		}
	}
	walk(0)
	return res.Counts
}

func TestContractMatchesEnumeration(t *testing.T) {
	sizes := []int{2, 3, 4, 2, 5, 3}
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(attrs []int) *domain.Marginal {
		m := newFactor(sizes, attrs)
		for i := range m.Counts {
			m.Counts[i] = rng.Float64()
		}
		return m
	}
	cases := []struct {
		name       string
		f, g, out  []int
		coalescent bool // some dimensions merge
	}{
		{"message into clique, result keeps all", []int{0, 1, 2, 3}, []int{2, 3}, []int{0, 1, 2, 3}, true},
		{"g lacks the trailing attributes", []int{1, 2, 3, 4}, []int{1}, []int{1, 2, 3, 4}, true},
		{"sum out the last attribute", []int{0, 1, 2}, []int{1, 2}, []int{0, 1}, false},
		{"sum out the last attribute, the rest merge", []int{0, 1, 2}, []int{0, 1, 2}, []int{0, 1}, true},
		{"sum out a middle attribute", []int{0, 2, 4, 5}, []int{2, 4}, []int{0, 4, 5}, false},
		{"interleaved attributes", []int{0, 2, 4}, []int{1, 3, 5}, []int{1, 2, 5}, false},
		{"scalar result", []int{1, 3}, []int{1, 3}, nil, false},
		{"f lacks the last attribute", []int{0, 1}, []int{1, 2}, []int{0, 1, 2}, false},
		{"f lacks the last attribute, g the first", []int{0, 2, 4}, []int{2, 3, 5}, []int{0, 4, 5}, false},
		{"one dimension", []int{4}, []int{4}, []int{4}, false},
		{"short runs summed out under kept ones", []int{0, 2, 3}, []int{1, 2, 3}, []int{1, 2}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, g := random(c.f), random(c.g)
			got := contract(sizes, f, g, c.out).Counts
			want := naiveContract(sizes, f, g, c.out)
			all := union(c.f, c.g)
			if len(c.out) > 0 && c.out[len(c.out)-1] == all[len(all)-1] {
				// Every result cell adds its products one by one in the
				// enumeration's order: the same to the bit.
				if !slices.Equal(got, want) {
					t.Fatalf("contract %v, enumeration %v: not the same to the bit", got, want)
				}
			}
			for i := range want {
				if math.Abs(got[i]-want[i]) > 1e-12*math.Max(1, math.Abs(want[i])) {
					t.Fatalf("cell %d: contract %v, enumeration %v", i, got[i], want[i])
				}
			}
			dims := make([]int, len(all))
			for i, a := range all {
				dims[i] = sizes[a]
			}
			res := newFactor(sizes, c.out)
			merged, _, _, _ := coalesce(slices.Clone(dims), attrStrides(f, all), attrStrides(g, all), attrStrides(res, all))
			if (len(merged) < len(dims)) != c.coalescent {
				t.Errorf("coalesce %v → %v, want merging %v", dims, merged, c.coalescent)
			}
		})
	}
}
