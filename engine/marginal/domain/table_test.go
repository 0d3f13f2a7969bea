package domain

import (
	"testing"

	"github.com/dppub/dppub/randx"
)

// Count agrees with a direct tally keyed by the value tuple.
func TestCountMatchesDirectTally(t *testing.T) {
	sizes := []int{3, 5, 2, 4}
	ds := randomDataset(sizes, 2000, 0.5, randx.NewSeeded(1))
	for _, attrs := range [][]int{{2}, {0, 1}, {3, 1}, {0, 2, 3}, {0, 1, 2, 3}} {
		m, err := Count(ds, attrs)
		if err != nil {
			t.Fatal(err)
		}
		tally := map[[4]int]float64{}
		for i := range ds.Len() {
			var key [4]int
			for k, a := range m.Attrs {
				key[k] = int(ds.Cols[a][i])
			}
			tally[key]++
		}
		vals := make([]int, len(m.Attrs))
		for c, v := range m.Counts {
			m.Values(c, vals)
			var key [4]int
			copy(key[:], vals)
			if tally[key] != v {
				t.Fatalf("attrs %v cell %v: count %v, tally %v", attrs, vals, v, tally[key])
			}
		}
		if m.Total() != 2000 {
			t.Errorf("attrs %v: total %v", attrs, m.Total())
		}
	}
}

func TestProjectEqualsCountOfSubset(t *testing.T) {
	sizes := []int{3, 5, 2, 4}
	ds := randomDataset(sizes, 1000, 0.7, randx.NewSeeded(2))
	full, _ := Count(ds, []int{0, 1, 2, 3})
	for _, sub := range [][]int{{0}, {1, 3}, {0, 2, 3}} {
		p, err := full.Project(sub)
		if err != nil {
			t.Fatal(err)
		}
		direct, _ := Count(ds, sub)
		for c := range p.Counts {
			if p.Counts[c] != direct.Counts[c] {
				t.Fatalf("projection onto %v differs at cell %d: %v vs %v", sub, c, p.Counts[c], direct.Counts[c])
			}
		}
	}
	if _, err := full.Project([]int{7}); err == nil {
		t.Error("projection onto a foreign attribute: no error")
	}
}

func TestNewMarginalErrors(t *testing.T) {
	for _, attrs := range [][]int{{}, {0, 0}, {5}, {-1}} {
		if _, err := NewMarginal([]int{2, 3}, attrs); err == nil {
			t.Errorf("attrs %v: no error", attrs)
		}
	}
	m, err := NewMarginal([]int{2, 3, 4}, []int{2, 0})
	if err != nil || m.Attrs[0] != 0 || m.Attrs[1] != 2 || m.Cells() != 8 {
		t.Errorf("NewMarginal sorted %v, %d cells, %v", m.Attrs, m.Cells(), err)
	}
}
