// Package attrset is the algebra of attribute sets (sorted lists of
// attribute indices) that the marginal engine's parts share: checking and
// sorting a set, naming it, and comparing two. It is internal to the
// engine, so sharing it adds nothing to the parts' exported surface.
package attrset

import (
	"fmt"
	"slices"
)

// Normalise returns a sorted copy of attrs and checks it names distinct
// attributes of a d-attribute domain.
func Normalise(attrs []int, d int) ([]int, error) {
	if len(attrs) == 0 {
		return nil, fmt.Errorf("marginal: empty attribute set")
	}
	a := slices.Clone(attrs)
	slices.Sort(a)
	for k, j := range a {
		if j < 0 || j >= d {
			return nil, fmt.Errorf("marginal: attribute %d out of range [0, %d)", j, d)
		}
		if k > 0 && a[k-1] == j {
			return nil, fmt.Errorf("marginal: attribute %d listed twice in %v", j, attrs)
		}
	}
	return a, nil
}

// Key names the attribute set attrs, e.g. "1,4,7" (Marginal.Key).
func Key(attrs []int) string {
	b := make([]byte, 0, 4*len(attrs))
	for k, a := range attrs {
		if k > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, "%d", a)
	}
	return string(b)
}

// Subset reports whether sorted s ⊆ sorted t.
func Subset(s, t []int) bool {
	for _, v := range s {
		if _, ok := slices.BinarySearch(t, v); !ok {
			return false
		}
	}
	return true
}

// Minus returns the sorted set a \ b.
func Minus(a, b []int) []int {
	var out []int
	for _, v := range a {
		if _, ok := slices.BinarySearch(b, v); !ok {
			out = append(out, v)
		}
	}
	return out
}
