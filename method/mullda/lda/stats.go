package lda

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// unitTol is the slack allowed on ‖x‖₂ ≤ 1 for rounding in normalisation.
const unitTol = 1e-9

// Stats are the sufficient statistics of LDA over some rows: exact (one
// owner's data), noisy (a release) or a noise share. Everything LDA-DP
// publishes is computed from them.
type Stats struct {
	// Sums is Classes×P; row k is Σ x over the rows of class k.
	Sums *mat.Dense
	// Counts[k] is N^(k), the number of rows of class k.
	Counts []float64
	// Second is Σ x xᵀ over all rows (every class).
	Second *mat.SymDense
}

// NewStats returns zero statistics for the given shape.
func NewStats(classes, p int) *Stats {
	if classes < 2 || p < 1 {
		panic(fmt.Sprintf("lda: NewStats(%d classes, p=%d)", classes, p))
	}
	return &Stats{Sums: mat.NewDense(classes, p, nil), Counts: make([]float64, classes), Second: mat.NewSymDense(p, nil)}
}

// Dims returns the number of classes and the dimension.
func (s *Stats) Dims() (classes, p int) { return s.Sums.Dims() }

// CheckUnitBall returns an error naming the first row of X whose L2 norm
// exceeds 1: the sensitivities of this package hold only inside the ball.
func CheckUnitBall(X *mat.Dense) error {
	n, _ := X.Dims()
	for i := 0; i < n; i++ {
		norm := mat.Norm(X.RowView(i), 2)
		if !(norm <= 1+unitTol) {
			return fmt.Errorf("lda: row %d has L2 norm %v > 1 (normalise rows to unit norm first)", i, norm)
		}
	}
	return nil
}

// ComputeStats returns the exact statistics of the rows of X with labels y
// in [0, classes). Rows must lie in the unit L2 ball.
func ComputeStats(X *mat.Dense, y []int, classes int) (*Stats, error) {
	n, p := X.Dims()
	if classes < 2 {
		return nil, fmt.Errorf("lda: %d classes, need at least 2", classes)
	}
	if len(y) != n {
		return nil, fmt.Errorf("lda: %d labels for %d rows", len(y), n)
	}
	if err := CheckUnitBall(X); err != nil {
		return nil, err
	}
	s := NewStats(classes, p)
	for i, c := range y {
		if c < 0 || c >= classes {
			return nil, fmt.Errorf("lda: label %d of row %d outside [0, %d)", c, i, classes)
		}
		s.Counts[c]++
		sum := s.Sums.RawRowView(c)
		for j, v := range X.RawRowView(i) {
			sum[j] += v
		}
	}
	if n > 0 {
		s.Second.SymOuterK(1, X.T())
	}
	return s, nil
}

// Add adds o to s in place (aggregation of owners, or of noise shares).
func (s *Stats) Add(o *Stats) error {
	c1, p1 := s.Dims()
	c2, p2 := o.Dims()
	if c1 != c2 || p1 != p2 || len(o.Counts) != c1 || o.Second.SymmetricDim() != p1 {
		return fmt.Errorf("lda: cannot add statistics of %d classes × p=%d to %d classes × p=%d", c2, p2, c1, p1)
	}
	s.Sums.Add(s.Sums, o.Sums)
	for k, v := range o.Counts {
		s.Counts[k] += v
	}
	s.Second.AddSym(s.Second, o.Second)
	return nil
}

// Clone returns a deep copy.
func (s *Stats) Clone() *Stats {
	return &Stats{Sums: mat.DenseCopyOf(s.Sums), Counts: append([]float64(nil), s.Counts...),
		Second: mat.NewSymDense(s.Second.SymmetricDim(), append([]float64(nil), s.Second.RawSymmetric().Data...))}
}

// SumsVector returns the class sums row by row (length Classes·P).
func (s *Stats) SumsVector() []float64 {
	return append([]float64(nil), s.Sums.RawMatrix().Data...)
}

// SecondUpper returns the upper triangle of Second row by row, diagonal
// included (length P(P+1)/2): the released entries of the symmetric matrix.
func (s *Stats) SecondUpper() []float64 {
	p := s.Second.SymmetricDim()
	out := make([]float64, 0, UpperLen(p))
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			out = append(out, s.Second.At(i, j))
		}
	}
	return out
}

// UpperLen is P(P+1)/2.
func UpperLen(p int) int { return p * (p + 1) / 2 }

// StatsFromVectors rebuilds statistics from SumsVector, Counts and
// SecondUpper, checking the lengths and that every value is finite.
func StatsFromVectors(classes, p int, sums, counts, upper []float64) (*Stats, error) {
	if classes < 2 || p < 1 {
		return nil, fmt.Errorf("lda: statistics of %d classes × p=%d", classes, p)
	}
	if len(sums) != classes*p || len(counts) != classes || len(upper) != UpperLen(p) {
		return nil, fmt.Errorf("lda: statistics of %d classes × p=%d need %d sums, %d counts, %d second moments; got %d, %d, %d",
			classes, p, classes*p, classes, UpperLen(p), len(sums), len(counts), len(upper))
	}
	for _, v := range [][]float64{sums, counts, upper} {
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("lda: statistics hold %v", x)
			}
		}
	}
	s := NewStats(classes, p)
	copy(s.Sums.RawMatrix().Data, sums)
	copy(s.Counts, counts)
	k := 0
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			s.Second.SetSym(i, j, upper[k])
			k++
		}
	}
	return s, nil
}
