package rowsynth_test

import (
	"slices"
	"testing"

	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/method/rowsynth"
)

// Auto gives owners of rows the adaptive method on the shape where it
// measured better (Shuttle with 3 to 50 owners, NLTCS with 3 to 20) and
// the paper method where it did not (Adult), below 1 000 records per
// owner and with max_cells 1.
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
		{"nltcs, 10 owners", nltcs, 21574, 10, 0, marginal.MethodAdaptive},
		{"nltcs, 20 owners", nltcs, 21574, 20, 0, marginal.MethodAdaptive},
		{"small nltcs", nltcs, 1900, 2, 0, marginal.MethodPaper},
		{"adult", adult, 45222, 3, 0, marginal.MethodPaper},
		{"shuttle, 50 owners", shuttle, 58000, 50, 0, marginal.MethodAdaptive},
		{"small shuttle", shuttle, 2900, 3, 0, marginal.MethodPaper},
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

// Owners of rows batch their adaptive selections (eight per refit) where
// the workload offers many candidates, as on NLTCS (696), and keep one
// per refit on a small workload (Shuttle's 45 pairs), where batches
// measured worse, and on a wide table (the engine's own batch).
func TestAdaptiveBatch(t *testing.T) {
	nltcs := make([]int, 16)
	for i := range nltcs {
		nltcs[i] = 2
	}
	shuttle := []int{16, 16, 16, 16, 16, 16, 16, 16, 16, 7}
	for _, c := range []struct {
		name  string
		sizes []int
		label int
		want  int
	}{
		{"nltcs", nltcs, -1, rowsynth.OwnersBatch},
		{"shuttle", shuttle, -1, 0},
		{"shuttle with a label", shuttle, 9, 0},
		{"17 binary attributes", append(slices.Clone(nltcs), 2), -1, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := rowsynth.AdaptiveBatch(c.sizes, c.label); got != c.want {
				t.Fatalf("batch %d, want %d", got, c.want)
			}
		})
	}
}
