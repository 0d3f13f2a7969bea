// The grey-box audit's features: the low-order bits of a released float64
// that it compares (trailing zeros, low bits, the residual from the
// truth), and the pilot batch that fixes each coordinate's grid and atoms.

package audit

import (
	"fmt"
	"math"
	"math/bits"
)

// atom marks an excluded observation in the category arrays (categories
// are below 2^7).
const atom = 255

// feature maps a coordinate's released value to a category.
type feature struct {
	name     string
	labels   []string
	category func(side Side, j int, x float64) int
	of       func(x float64) int
}

// significand is x's 53-bit significand with the implicit bit (the 52-bit
// fraction for subnormals; 0 for ±0).
func significand(x float64) uint64 {
	b := math.Float64bits(x)
	frac := b & (1<<52 - 1)
	if b>>52&0x7ff == 0 {
		return frac
	}
	return frac | 1<<52
}

// lowestBit returns e such that x = odd·2^e, and false for ±0.
func lowestBit(x float64) (int, bool) {
	m := significand(x)
	if m == 0 {
		return 0, false
	}
	base := -1074
	if e := int(math.Float64bits(x) >> 52 & 0x7ff); e != 0 {
		base = e - 1075
	}
	return base + bits.TrailingZeros64(m), true
}

func trailingZeros(limit int) feature {
	labels := make([]string, limit+1)
	for i := range limit {
		labels[i] = fmt.Sprint(i)
	}
	labels[limit] = fmt.Sprintf("≥%d or 0", limit)
	of := func(x float64) int {
		m := significand(x)
		if m == 0 {
			return limit
		}
		return min(bits.TrailingZeros64(m), limit)
	}
	return feature{name: "trailing-zeros", labels: labels, of: of,
		category: func(_ Side, _ int, x float64) int { return of(x) }}
}

func lowBits(k int) feature {
	labels := make([]string, 1<<k)
	for i := range labels {
		labels[i] = fmt.Sprintf("%0*b", k, i)
	}
	of := func(x float64) int { return int(significand(x) & (1<<k - 1)) }
	return feature{name: fmt.Sprintf("low-%d-bits", k), labels: labels, of: of,
		category: func(_ Side, _ int, x float64) int { return of(x) }}
}

// residual is f of o − r, r the rounded truth of the side and coordinate.
func (f feature) residual(r [2][]float64) feature {
	of := f.of
	return feature{name: "residual-" + f.name, labels: f.labels, of: of,
		category: func(side Side, j int, x float64) int { return of(x - r[side][j]) }}
}

// SnapToGrid rounds v to the nearest multiple of the power of two g (g = 0:
// v unchanged). A v already on the grid is returned as it is, so v/g never
// overflows.
func SnapToGrid(v, g float64) float64 {
	if g == 0 {
		return v
	}
	ev, ok := lowestBit(v)
	_, eg := math.Frexp(g)
	eg-- // g = 2^eg
	if !ok || ev >= eg {
		return v
	}
	return math.Ldexp(math.Round(math.Ldexp(v, -eg)), eg)
}

// pilot is what a batch of its own (so that nothing is chosen on the
// tested releases) fixes per coordinate: the grid, the largest power of
// two dividing every output (0 if all were zero), and the atoms, the
// values seen at least atomMin times on each dataset.
type pilot struct {
	grid  []float64
	atoms []map[float64]bool
}

const atomMin = 3

func runPilot(m Mechanism, runs int, o GreyBoxOptions, prog *progress) (*pilot, error) {
	outs := make([]float64, 2*runs*m.Dim)
	err := releaseEach(m, runs, o.Workers, o.Source, prog, func(side Side, run int, out []float64) error {
		for j, x := range out {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("audit: %s on %v: coordinate %d of the release is %v", m.Name, side, j, x)
			}
		}
		copy(outs[(int(side)*runs+run)*m.Dim:], out)
		return nil
	})
	if err != nil {
		return nil, err
	}
	p := &pilot{grid: make([]float64, m.Dim), atoms: make([]map[float64]bool, m.Dim)}
	const none = math.MaxInt
	for j := range m.Dim {
		e := none
		var seen [2]map[float64]int
		for s := range seen {
			seen[s] = map[float64]int{}
			for r := range runs {
				x := outs[(s*runs+r)*m.Dim+j]
				if k, ok := lowestBit(x); ok {
					e = min(e, k)
				}
				seen[s][x]++
			}
		}
		if e != none {
			p.grid[j] = math.Ldexp(1, e)
		}
		for x, n := range seen[0] {
			if n >= atomMin && seen[1][x] >= atomMin {
				if p.atoms[j] == nil {
					p.atoms[j] = map[float64]bool{}
				}
				p.atoms[j][x] = true
			}
		}
	}
	return p, nil
}
