package rowsynth_test

import (
	"testing"

	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/method/rowsynth"
)

// Auto gives owners of rows the adaptive method on the shape where it
// measured better (Shuttle with 3 and 10 owners, NLTCS with 3) and the
// paper method where it did not (Adult, NLTCS with 10 owners), on small
// tables and with max_cells 1.
func TestAutoMethod(t *testing.T) {
	nltcs := make([]int, 16)
	for i := range nltcs {
		nltcs[i] = 2
	}
	shuttle := []int{16, 16, 16, 16, 16, 16, 16, 16, 16, 7}
	adult := []int{16, 8, 16, 16, 16, 7, 14, 6, 5, 2, 16, 16, 16, 41, 2}
	for _, c := range []struct {
		name      string
		sizes     []int
		n, owners int
		cells     int
		want      marginal.Method
	}{
		{"shuttle, 3 owners", shuttle, 58000, 3, 0, marginal.MethodAdaptive},
		{"shuttle's benchmark split, 10 owners", shuttle, 46400, 10, 0, marginal.MethodAdaptive},
		{"nltcs, 3 owners", nltcs, 21574, 3, 0, marginal.MethodAdaptive},
		{"nltcs, 10 owners", nltcs, 21574, 10, 0, marginal.MethodPaper},
		{"small nltcs", nltcs, 3000, 2, 0, marginal.MethodPaper},
		{"adult", adult, 45222, 3, 0, marginal.MethodPaper},
		{"small shuttle", shuttle, 5000, 3, 0, marginal.MethodPaper},
		{"pairs only", shuttle, 58000, 3, 1, marginal.MethodPaper},
		{"17 attributes", append(nltcs, 2), 60000, 3, 0, marginal.MethodPaper},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got, why := rowsynth.AutoMethod(c.sizes, c.n, c.owners, c.cells); got != c.want || why == "" {
				t.Fatalf("auto chose %s (%q), want %s", got, why, c.want)
			}
		})
	}
}
