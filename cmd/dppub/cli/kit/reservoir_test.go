package kit

import (
	"math"
	"testing"

	"github.com/dppub/dppub/data"
)

// The reservoir holds every row, in order, up to its size (so the gate's
// result on such a table is the one on the whole table), and beyond it a
// uniform sample: over 4,000 samples of 20 of rows 0..99, each row is
// kept about 800 times (binomial, sd 25; every count within 5 sd) and
// the rows kept are distinct.
func TestReservoirIsUniform(t *testing.T) {
	s := data.Schema{Attributes: []data.Attribute{{Name: "i", Kind: data.Numeric, Min: 0, Max: 100}}}
	rows := func(lo, hi int) *data.Table {
		tab := &data.Table{Schema: s}
		for i := lo; i < hi; i++ {
			tab.Rows = append(tab.Rows, []float64{float64(i)})
		}
		return tab
	}
	t.Run("up to its size: every row in order", func(t *testing.T) {
		r := &reservoir{max: 100}
		r.add(rows(0, 60))
		r.add(rows(60, 100))
		if got := r.table(); !got.Equal(rows(0, 100)) || r.src != nil {
			t.Fatalf("kept %d rows (drew: %v), want rows 0..99 in order and no draw", got.Len(), r.src != nil)
		}
	})
	t.Run("beyond: uniform", func(t *testing.T) {
		const reps, n, k = 4000, 100, 20
		counts := make([]int, n)
		for range reps {
			r := &reservoir{max: k}
			for lo := 0; lo < n; lo += 7 {
				r.add(rows(lo, min(lo+7, n)))
			}
			got := r.table()
			if got.Len() != k {
				t.Fatalf("kept %d rows, want %d", got.Len(), k)
			}
			seen := map[float64]bool{}
			for _, row := range got.Rows {
				if seen[row[0]] {
					t.Fatalf("row %g kept twice", row[0])
				}
				seen[row[0]] = true
				counts[int(row[0])]++
			}
		}
		mean := float64(reps * k / n)
		sd := math.Sqrt(mean * (1 - float64(k)/n))
		for i, c := range counts {
			if math.Abs(float64(c)-mean) > 5*sd {
				t.Errorf("row %d kept %d times in %d samples, want %.0f ± %.0f", i, c, reps, mean, 5*sd)
			}
		}
	})
}
