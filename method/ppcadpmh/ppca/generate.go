package ppca

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// SampleBlock is how many rows' latent codes a RowStream draws at once.
// Rows are drawn block by block: a block's k latent draws per row, then
// each row's noise in row order as the row is written. For n ≤ SampleBlock
// this is exactly Sample's order of draws, so seeded outputs of owners with
// at most 65 536 rows are unchanged; memory is SampleBlock·k latent codes
// plus the caller's chunk, whatever n.
const SampleBlock = 1 << 16

// RowStream writes synthetic rows chunk by chunk (Next), for owners whose
// rows do not fit in memory or in one message.
type RowStream struct {
	m      *Model
	src    *randx.Source
	n, at  int
	latent *mat.Dense // codes of rows [blockLo, blockLo + rows)
	lo     int
	// real, when set, writes real rows [lo, hi) encoded into dst
	// (Reconstruct's codes come from them).
	real func(lo, hi int, dst []float64) error
	buf  []float64
}

// SampleStream returns a stream of n rows drawn from the model, as Sample
// draws them.
func (m *Model) SampleStream(n int, src *randx.Source) *RowStream {
	return &RowStream{m: m, src: src, n: n}
}

// ReconstructStream returns a stream of Reconstruct's rows for n real
// rows, which real writes into dst on demand, encoded (row-major, p
// columns). NOT covered by DP: every output row derives from a real one.
func (m *Model) ReconstructStream(n int, real func(lo, hi int, dst []float64) error, src *randx.Source) *RowStream {
	return &RowStream{m: m, src: src, n: n, real: real}
}

// Len is the number of rows the stream writes in all; Written how many it
// has written so far.
func (g *RowStream) Len() int     { return g.n }
func (g *RowStream) Written() int { return g.at }

// Next writes the next rows into dst (as many whole rows as it holds, up
// to the end of the current block of latent codes) and returns how many;
// 0 once all n rows are written.
func (g *RowStream) Next(dst []float64) (int, error) {
	p := len(g.m.Mean)
	if len(dst) < p {
		return 0, fmt.Errorf("ppca: a chunk of %d values cannot hold a row of %d", len(dst), p)
	}
	if g.at >= g.n {
		return 0, nil
	}
	var s *mat.Dense
	var rows int
	if g.real == nil {
		if g.latent == nil || g.at >= g.lo+g.latent.RawMatrix().Rows {
			b := min(SampleBlock, g.n-g.at)
			g.lo, g.latent = g.at, mat.NewDense(b, g.m.K, nil)
			fillNormal(g.latent.RawMatrix().Data, g.src)
		}
		rows = min(len(dst)/p, g.lo+g.latent.RawMatrix().Rows-g.at)
		s = g.latent.Slice(g.at-g.lo, g.at-g.lo+rows, 0, g.m.K).(*mat.Dense)
	} else {
		rows = min(len(dst)/p, g.n-g.at)
		var err error
		if s, err = g.codes(g.at, g.at+rows); err != nil {
			return 0, err
		}
	}
	out := mat.NewDense(rows, p, dst[:rows*p])
	g.m.write(out, s, g.src)
	g.at += rows
	return rows, nil
}

// codes are Reconstruct's latent codes of real rows [lo, hi).
func (g *RowStream) codes(lo, hi int) (*mat.Dense, error) {
	p := len(g.m.Mean)
	if cap(g.buf) < (hi-lo)*p {
		g.buf = make([]float64, (hi-lo)*p)
	}
	x := g.buf[:(hi-lo)*p]
	if err := g.real(lo, hi, x); err != nil {
		return nil, err
	}
	return g.m.latentOf(mat.NewDense(hi-lo, p, x)), nil
}

// latentOf centres X in place and returns (Λ_k − σ²I)^{-1/2} U_kᵀ(x − μ̂)
// for each row.
func (m *Model) latentOf(X *mat.Dense) *mat.Dense {
	n, _ := X.Dims()
	for i := 0; i < n; i++ {
		row := X.RawRowView(i)
		for j := range row {
			row[j] -= m.Mean[j]
		}
	}
	var s mat.Dense
	s.Mul(X, m.Components)
	for j := 0; j < m.K; j++ {
		f := 1 / math.Sqrt(m.Eigenvalues[j]-m.Sigma2)
		for i := 0; i < n; i++ {
			s.Set(i, j, s.At(i, j)*f)
		}
	}
	return &s
}

// write sets out = s Wᵀ + μ̂ + ξ, drawing ξ ~ N(0, σ²) row by row: no
// allocation per entry.
func (m *Model) write(out, s *mat.Dense, src *randx.Source) {
	out.Mul(s, m.W.T())
	sd := math.Sqrt(m.Sigma2)
	n, _ := out.Dims()
	for i := 0; i < n; i++ {
		row := out.RawRowView(i)
		for j := range row {
			row[j] += m.Mean[j]
			if sd > 0 {
				row[j] += sd * src.NormFloat64()
			}
		}
	}
}
