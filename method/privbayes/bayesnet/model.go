package bayesnet

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/randx"
)

// Model is a Bayesian network with its conditionals. Cond[i] belongs to
// Net[i]: for the parent configuration π (mixed radix over Net[i].Parents,
// last fastest) the child's distribution is Cond[i][π·c : (π+1)·c] with
// c = Cards[Net[i].Child].
type Model struct {
	Cards []int
	Net   Network
	Cond  [][]float64
}

// Validate checks the shapes and that every conditional is a distribution.
func (m *Model) Validate() error {
	if err := checkCards(m.Cards); err != nil {
		return err
	}
	if err := m.Net.Validate(len(m.Cards)); err != nil {
		return err
	}
	if len(m.Cond) != len(m.Net) {
		return fmt.Errorf("privbayes: %d conditionals for %d families", len(m.Cond), len(m.Net))
	}
	for i, f := range m.Net {
		card := m.Cards[f.Child]
		want := DomainSize(m.Cards, f.Attrs(), math.MaxInt32)
		if want == 0 || len(m.Cond[i]) != want {
			return fmt.Errorf("privbayes: conditional %d has %d entries, want %d", i, len(m.Cond[i]), want)
		}
		for p := 0; p < want; p += card {
			sum := 0.0
			for _, v := range m.Cond[i][p : p+card] {
				if !(v >= 0 && v <= 1) {
					return fmt.Errorf("privbayes: conditional %d holds %v, not a probability", i, v)
				}
				sum += v
			}
			if math.Abs(sum-1) > 1e-6 {
				return fmt.Errorf("privbayes: conditional %d, parent configuration %d sums to %v", i, p/card, sum)
			}
		}
	}
	return nil
}

// Sample draws n rows by ancestral sampling in network order.
func (m *Model) Sample(n int, src *randx.Source) [][]int {
	cdfs := make([][]float64, len(m.Cond))
	for i, c := range m.Cond {
		card := m.Cards[m.Net[i].Child]
		cdfs[i] = make([]float64, len(c))
		for p := 0; p < len(c); p += card {
			acc := 0.0
			for x := range card {
				acc += c[p+x]
				cdfs[i][p+x] = acc
			}
		}
	}
	rows := make([][]int, n)
	for r := range rows {
		row := make([]int, len(m.Cards))
		for i, f := range m.Net {
			card := m.Cards[f.Child]
			cfg := 0
			for _, p := range f.Parents {
				cfg = cfg*m.Cards[p] + row[p]
			}
			row[f.Child] = draw(cdfs[i][cfg*card:(cfg+1)*card], src)
		}
		rows[r] = row
	}
	return rows
}

// draw returns the first index whose cumulative probability exceeds a
// uniform draw (the last index if rounding leaves the total below it).
func draw(cdf []float64, src *randx.Source) int {
	u := src.Float64() * cdf[len(cdf)-1]
	for x, c := range cdf {
		if u < c {
			return x
		}
	}
	return len(cdf) - 1
}
