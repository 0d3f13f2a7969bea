package utility

import (
	"fmt"
	"slices"
	"testing"

	"github.com/dppub/dppub/randx"
)

// SampleTriples returns k distinct sorted triples of attributes below d,
// or all C(d, 3) when there are fewer, and the same ones for the same
// seed.
func TestSampleTriples(t *testing.T) {
	for _, c := range []struct{ d, k, want int }{{5, 3, 3}, {5, 10, 10}, {5, 20, 10}, {2, 4, 0}} {
		t.Run(fmt.Sprintf("d=%d k=%d", c.d, c.k), func(t *testing.T) {
			got := SampleTriples(c.d, c.k, randx.NewSeeded(1).Shuffle)
			if len(got) != c.want {
				t.Fatalf("%d triples, want %d", len(got), c.want)
			}
			seen := map[string]bool{}
			for _, tr := range got {
				if !slices.IsSorted(tr) || tr[0] == tr[1] || tr[1] == tr[2] || tr[2] >= c.d || seen[fmt.Sprint(tr)] {
					t.Fatalf("triple %v of %v is not a distinct sorted triple below %d", tr, got, c.d)
				}
				seen[fmt.Sprint(tr)] = true
			}
			if again := SampleTriples(c.d, c.k, randx.NewSeeded(1).Shuffle); !slices.EqualFunc(got, again, slices.Equal[[]int]) {
				t.Fatalf("seed 1 gave %v, then %v", got, again)
			}
		})
	}
}
