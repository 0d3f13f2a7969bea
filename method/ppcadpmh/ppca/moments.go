package ppca

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"

	"github.com/dppub/dppub/internal/wire"
	"gonum.org/v1/gonum/mat"
)

// FracBits is the fixed point of Moments: every term is a multiple of
// 2^-FracBits.
const FracBits = 62

const fixOne = 1 << FracBits

// Moments are one owner's exact sums Σx and Σxxᵀ (upper triangle) over
// encoded rows x ∈ [0, 1]^P, accumulated in 128-bit fixed point.
//
// Every term — an entry x_i, or a product x_i·x_j — is truncated to a
// multiple of 2^-62 below it, then added as an integer. Integer addition
// is exact and commutative, so the sums do not depend on the order of the
// rows, on how they are split between cores or machines, or on the order
// partial sums are merged in: a Beam pipeline and the in-process pass give
// bit-identical statistics. Truncation keeps every term in [0, 1], equal to
// the exact value on one-hot entries (0 and 1) and never above the exact
// product, so every property the sensitivity analysis of RowBounds uses
// (non-negative entries, each at most the product it stands for, one-hot
// blocks exact) holds for the fixed-point sums too: the plan's
// sensitivities bound them. Each term is within 2^-62 of its value, so a
// sum over n rows is within n·2^-62 of the exact real sum (below 10^-9
// for n = 10^9), far below any release grid, and much closer than a
// float64 running sum (which on Adult's 45 222 rows is already 2·10^-10
// off on a column sum).
type Moments struct {
	P, N   int
	hi, lo []uint64 // Σx then the upper triangle of Σxxᵀ row by row
	diag   []int    // diag[i]: packed index of (i, i)
	idx    []int    // AddDense's scratch
	val    []float64
}

// PackedLen is the number of packed entries for p columns: p + p(p+1)/2.
func PackedLen(p int) int { return p + p*(p+1)/2 }

// NewMoments returns empty sums over p columns.
func NewMoments(p int) *Moments {
	if p < 1 {
		panic(fmt.Sprintf("ppca: NewMoments(%d)", p))
	}
	m := &Moments{P: p, hi: make([]uint64, PackedLen(p)), lo: make([]uint64, PackedLen(p)), diag: make([]int, p)}
	k := p
	for i := range m.diag {
		m.diag[i] = k
		k += p - i
	}
	return m
}

// fix truncates x ∈ [0, 1] to fixed point.
func fix(x float64) uint64 { return uint64(x * fixOne) }

// fixProduct truncates the exact product a·b (a, b ∈ [0, 1]) to fixed
// point. The rounded product p = a·b differs from the exact one by
// e = fma(a, b, −p), exactly representable. When p·2^62 has a fractional
// part, e is too small to move the exact product across a multiple of
// 2^-62 (both p and that multiple are multiples of p's ulp), so the
// truncation of p is the answer; when p·2^62 is an integer (always for
// p ≥ 2^-9), the answer is p·2^62 + floor(e·2^62).
func fixProduct(a, b float64) uint64 {
	p := a * b
	s := p * fixOne
	f := math.Floor(s)
	if f != s {
		return uint64(f)
	}
	e := math.FMA(a, b, -p) * fixOne
	return uint64(int64(f) + int64(math.Floor(e)))
}

func (m *Moments) add(k int, t uint64) {
	var c uint64
	m.lo[k], c = bits.Add64(m.lo[k], t, 0)
	m.hi[k] += c
}

// AddSparse adds one row given by its nonzero entries: columns idx in
// increasing order and their values val, each in (0, 1]. It panics on
// values outside [0, 1] or columns out of order (programmer errors: the
// encoder produces neither).
func (m *Moments) AddSparse(idx []int, val []float64) { m.addRow("AddSparse", idx, val, nil) }

// AddSplit adds one row whose nonzero entries are val at columns num and
// exactly 1 at columns units (both increasing, no column in both), less
// the terms that involve units only: Σx of a unit column and the product
// of two unit columns. Each of those terms is exactly 1 (2^62 in fixed
// point), so a caller that counts, for every unit column and every pair
// of them, the rows holding them (an owner's one- and two-way marginal
// counts of its categorical attributes do) adds them in bulk with
// AddUnits; the sums are then AddSparse's, bit for bit. A term between a
// num entry x and a unit is fix(x), as AddSparse has it. Skipping the
// unit-only terms, about half of a row of Adult's, is what makes this
// cheaper than AddSparse. It panics on values outside [0, 1] or columns
// out of order or range (programmer errors).
func (m *Moments) AddSplit(num []int, val []float64, units []int) {
	m.addRow("AddSplit", num, val, units)
}

// addRow is AddSparse (units nil) and AddSplit; name is the caller's, for
// the panic.
func (m *Moments) addRow(name string, num []int, val []float64, units []int) {
	m.N++
	for a, i := range num {
		x := val[a]
		if !(x >= 0 && x <= 1) || i >= m.P || (a > 0 && i <= num[a-1]) {
			panic(fmt.Sprintf("ppca: %s: entry %d (column %d) = %v", name, a, i, x))
		}
		fx := fix(x)
		m.add(i, fx)
		base := m.diag[i] - i
		for b := a; b < len(num); b++ {
			y := val[b]
			var t uint64
			switch {
			case x == 1:
				t = fix(y)
			case y == 1:
				t = fx
			default:
				t = fixProduct(x, y)
			}
			m.add(base+num[b], t)
		}
		// A unit u before column i holds the term (u, i), after it (i, u).
		for _, u := range units {
			if u < i {
				m.add(m.diag[u]-u+i, fx)
			} else {
				m.add(base+u, fx)
			}
		}
	}
	for b, u := range units {
		if u >= m.P || (b > 0 && u <= units[b-1]) {
			panic(fmt.Sprintf("ppca: %s: unit %d (column %d)", name, b, u))
		}
	}
}

// AddUnits adds c terms of exactly 1 to the sum Σx_i (j < 0) or to the
// entry (i, j) of Σxxᵀ (i ≤ j): what AddSplit leaves out for unit
// columns, given the number c of rows holding 1 in them.
func (m *Moments) AddUnits(i, j int, c uint64) {
	if i < 0 || i >= m.P {
		panic(fmt.Sprintf("ppca: AddUnits(%d, %d)", i, j))
	}
	k := i
	if j >= 0 {
		if i > j || j >= m.P {
			panic(fmt.Sprintf("ppca: AddUnits(%d, %d)", i, j))
		}
		k = m.diag[i] - i + j
	}
	// c·2^62 in 128 bits: c>>2 whole units of 2^64, (c mod 4)·2^62 below.
	var carry uint64
	m.lo[k], carry = bits.Add64(m.lo[k], (c&3)<<FracBits, 0)
	m.hi[k] += c>>2 + carry
}

// AddDense adds one dense row (every entry in [0, 1]).
func (m *Moments) AddDense(row []float64) {
	if len(row) != m.P {
		panic(fmt.Sprintf("ppca: AddDense of a row of %d entries, want %d", len(row), m.P))
	}
	m.idx, m.val = m.idx[:0], m.val[:0]
	for j, v := range row {
		if v != 0 {
			m.idx, m.val = append(m.idx, j), append(m.val, v)
		}
	}
	m.AddSparse(m.idx, m.val)
}

// Merge adds o's sums into m, exactly.
func (m *Moments) Merge(o *Moments) error {
	if o.P != m.P {
		return fmt.Errorf("ppca: merging moments over %d columns into %d", o.P, m.P)
	}
	m.N += o.N
	for k := range m.lo {
		var c uint64
		m.lo[k], c = bits.Add64(m.lo[k], o.lo[k], 0)
		m.hi[k] += o.hi[k] + c
	}
	return nil
}

// Equal reports whether two sums are identical, bit for bit.
func (m *Moments) Equal(o *Moments) bool {
	if m.P != o.P || m.N != o.N {
		return false
	}
	for k := range m.lo {
		if m.lo[k] != o.lo[k] || m.hi[k] != o.hi[k] {
			return false
		}
	}
	return true
}

// Packed returns Σx then the upper triangle of Σxxᵀ row by row, each the
// float64 nearest its exact fixed-point sum.
func (m *Moments) Packed() []float64 {
	out := make([]float64, len(m.lo))
	var x big.Int
	var f big.Float
	for k := range out {
		if m.hi[k] == 0 && m.lo[k] < 1<<53 {
			out[k] = math.Ldexp(float64(m.lo[k]), -FracBits) // exact
			continue
		}
		x.SetUint64(m.hi[k])
		x.Lsh(&x, 64)
		x.Or(&x, new(big.Int).SetUint64(m.lo[k]))
		f.SetPrec(0).SetMode(big.ToNearestEven)
		f.SetInt(&x)
		f.SetMantExp(&f, -FracBits)
		out[k], _ = f.Float64()
	}
	return out
}

// Matrices returns Packed as Σx and the symmetric Σxxᵀ.
func (m *Moments) Matrices() ([]float64, *mat.SymDense) { return Unpack(m.Packed(), m.P) }

// Unpack reads packed moments of p columns (Σx, then the upper triangle
// of Σxxᵀ row by row) as Σx and the symmetric Σxxᵀ; Σx is a copy.
func Unpack(packed []float64, p int) ([]float64, *mat.SymDense) {
	outer := mat.NewSymDense(p, nil)
	k := p
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			outer.SetSym(i, j, packed[k])
			k++
		}
	}
	return append([]float64(nil), packed[:p]...), outer
}

const momentsTag = "dppub-ppca-moments\x01"

// MarshalBinary writes the exact sums (a statistics file).
func (m *Moments) MarshalBinary() ([]byte, error) {
	return wire.Marshal(wire.Tag(momentsTag), &m.P, &m.N, &m.hi, &m.lo), nil
}

// UnmarshalBinary reads what MarshalBinary wrote.
func (m *Moments) UnmarshalBinary(b []byte) error {
	var p, n int
	var hi, lo []uint64
	if err := wire.Unmarshal(b, "ppca: moments", wire.Tag(momentsTag), &p, &n, &hi, &lo); err != nil {
		return err
	}
	if p < 1 || n < 0 || len(hi) != PackedLen(p) || len(lo) != len(hi) {
		return fmt.Errorf("ppca: moments for p = %d, n = %d hold %d and %d words, want %d", p, n, len(hi), len(lo), PackedLen(p))
	}
	*m = *NewMoments(p)
	m.N, m.hi, m.lo = n, hi, lo
	return nil
}
