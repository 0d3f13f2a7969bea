package infer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// bruteMarginal is the marginal over attrs of p(x) ∝ exp(Σ_r θ_r(x_r)),
// scaled to total, by enumerating every cell of the domain.
func bruteMarginal(sizes []int, sets [][]int, theta [][]float64, total float64, attrs []int) []float64 {
	full := make([]int, len(sizes))
	for a := range full {
		full[a] = a
	}
	joint := newFactor(sizes, full)
	idx := make([][]int32, len(sets))
	for r, s := range sets {
		idx[r] = mustProject(joint, s)
	}
	for c := range joint.Counts {
		l := 0.0
		for r := range sets {
			l += theta[r][idx[r][c]]
		}
		joint.Counts[c] = math.Exp(l)
	}
	out := make([]float64, int(tableCells(sizes, attrs)))
	for c, x := range mustProject(joint, attrs) {
		out[x] += joint.Counts[c]
	}
	normaliseTo(out, total)
	return out
}

func closeRel(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9*(1+math.Abs(want[i])) {
			t.Fatalf("%s: cell %d is %v, want %v", what, i, got[i], want[i])
		}
	}
}

// The model's inference matches brute-force enumeration of the domain:
// the calibrated cliques, the measured sets' marginals (read through
// covers of nested and overlapping sets), the marginal of every pair and
// triple (variable elimination's contractions and cached messages, each
// asked twice), and the same after a mirror-descent step and its
// acceptance.
func TestInferenceMatchesBruteForce(t *testing.T) {
	sizes := []int{3, 2, 4, 3, 2, 3, 2}
	sets := [][]int{{0}, {0, 1}, {0, 1, 2}, {1, 2}, {2, 3}, {3}, {3, 4}, {4, 5}, {5}, {5, 6}, {2, 6}}
	checkInference(t, sizes, sets, func(m *Model) {
		if len(m.covers) >= len(sets) {
			t.Fatalf("%d covers for %d sets: nothing was grouped, so covers go untested", len(m.covers), len(sets))
		}
	})
}

// The same on a star whose centre has children with nested and equal
// separators, so that the downward sweep reads sums off others
// (derivations) and the upward one multiplies children's messages
// together first (absorptions).
func TestInferenceMatchesBruteForceNestedSeparators(t *testing.T) {
	sizes := []int{4, 4, 4, 3, 3, 3, 3, 2}
	sets := [][]int{{0, 1, 2, 7}, {0, 1, 3}, {0, 4}, {0, 1, 5}, {2, 6}, {1}, {0}}
	checkInference(t, sizes, sets, func(m *Model) {
		derivations, absorptions := 0, 0
		for c := range m.tree.cliques {
			derivations += len(m.derivations[c])
			absorptions += len(m.absorb[c])
		}
		if derivations == 0 || absorptions == 0 {
			t.Fatalf("%d derivations and %d absorptions in cliques %v: the test exercises neither", derivations, absorptions, m.tree.cliques)
		}
	})
}

// checkInference compares the model over sets with random potentials to
// brute force, after propagate and after a step; shape checks the model's
// layout first.
func checkInference(t *testing.T, sizes []int, sets [][]int, shape func(*Model)) {
	const total = 1000
	rng := rand.New(rand.NewPCG(7, 11))
	m := newModel(sizes, sets, total)
	shape(m)
	theta := make([][]float64, len(sets))
	for r := range sets {
		for x := range m.theta[r].Counts {
			m.theta[r].Counts[x] = rng.NormFloat64()
		}
		theta[r] = append([]float64(nil), m.theta[r].Counts...)
	}
	check := func(t *testing.T, theta [][]float64) {
		for c, b := range m.belief {
			closeRel(t, fmt.Sprint("clique ", b.Attrs), b.Counts, bruteMarginal(sizes, sets, theta, total, m.tree.cliques[c]))
		}
		out := make([][]float64, len(sets))
		for r, s := range sets {
			out[r] = make([]float64, int(tableCells(sizes, s)))
		}
		m.setMarginals(out)
		for r, s := range sets {
			closeRel(t, fmt.Sprint("set ", s), out[r], bruteMarginal(sizes, sets, theta, total, s))
		}
		var queries [][]int
		for a := range sizes {
			for b := a + 1; b < len(sizes); b++ {
				queries = append(queries, []int{a, b})
				for c := b + 1; c < len(sizes); c++ {
					queries = append(queries, []int{a, b, c})
				}
			}
		}
		for range 2 {
			for _, q := range queries {
				got, err := m.Marginal(q)
				if err != nil {
					t.Fatal(err)
				}
				closeRel(t, fmt.Sprint("marginal ", q), got.Counts, bruteMarginal(sizes, sets, theta, total, q))
			}
		}
	}
	m.propagate()
	t.Run("propagated", func(t *testing.T) { check(t, theta) })

	f := &fitter{m: m}
	grad := make([][]float64, len(sets))
	for r, s := range sets {
		n := int(tableCells(sizes, s))
		f.delta, f.factor, f.vel = append(f.delta, make([]float64, n)), append(f.factor, make([]float64, n)), append(f.vel, make([]float64, n))
		grad[r] = make([]float64, n)
		for x := range grad[r] {
			grad[r][x] = rng.NormFloat64()
		}
	}
	potOld := make([][]float64, len(m.pot))
	for c, p := range m.pot {
		potOld[c] = append([]float64(nil), p...)
	}
	const alpha = 0.3
	f.step(potOld, grad, alpha, 0)
	tried := make([][]float64, len(sets))
	for r := range sets {
		tried[r] = make([]float64, len(theta[r]))
		for x := range tried[r] {
			tried[r][x] = theta[r][x] - alpha*grad[r][x]
		}
	}
	t.Run("step tried", func(t *testing.T) { check(t, tried) })
	f.take()
	t.Run("step taken", func(t *testing.T) {
		for r, s := range sets {
			closeRel(t, fmt.Sprint("θ of ", s), m.theta[r].Counts, tried[r])
		}
		check(t, tried)
	})
}
