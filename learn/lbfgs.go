package learn

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// lbfgsMemory is the number of curvature pairs L-BFGS keeps.
const lbfgsMemory = 10

// lbfgsResult is where minimizeLBFGS stopped.
type lbfgsResult struct {
	x       []float64
	f       float64
	gradInf float64 // ‖∇f(x)‖∞
	iters   int
	stalled bool // the line search found no decrease (floating-point floor)
}

// minimizeLBFGS minimises a smooth function from x0 with limited-memory BFGS
// (Nocedal & Wright, Numerical Optimization, 2nd ed., Algorithm 7.4 and 7.5)
// and a backtracking Armijo line search. fg returns f(x) and writes ∇f(x)
// into grad. It stops when ‖∇f‖∞ ≤ gradTol, after maxIter iterations, or
// when no step decreases f any more.
//
// gonum's optimize.LBFGS would do, but its package imports stat/distmv and
// through it golang.org/x/tools, which this module does not require.
func minimizeLBFGS(fg func(x, grad []float64) float64, x0 []float64, maxIter int, gradTol float64) lbfgsResult {
	dim := len(x0)
	x, g := append([]float64(nil), x0...), make([]float64, dim)
	f := fg(x, g)
	xNew, gNew, dir := make([]float64, dim), make([]float64, dim), make([]float64, dim)
	mem := newCurvatureMemory(dim)
	res := lbfgsResult{}
	for res.iters = 0; res.iters < maxIter; res.iters++ {
		if floats.Norm(g, math.Inf(1)) <= gradTol {
			break
		}
		mem.direction(dir, g)
		fNew, ok := armijo(fg, x, f, g, dir, xNew, gNew)
		if !ok && mem.len() > 0 {
			// A stale memory can give a poor direction: retry downhill.
			mem.reset()
			mem.direction(dir, g)
			fNew, ok = armijo(fg, x, f, g, dir, xNew, gNew)
		}
		if !ok {
			res.stalled = true
			break
		}
		mem.push(x, xNew, g, gNew)
		x, xNew = xNew, x
		g, gNew = gNew, g
		f = fNew
	}
	res.x, res.f, res.gradInf = x, f, floats.Norm(g, math.Inf(1))
	return res
}

// armijo backtracks from the unit step along dir, writing the accepted
// point and gradient into xNew and gNew. A step is accepted when f drops by
// at least c₁·t·gᵀdir (Armijo), or, since near the optimum that drop is
// below rounding error, when f has not risen beyond rounding and the
// directional derivative satisfies Hager & Zhang's approximate Wolfe
// conditions (SIAM J. Optim. 16, 2005): σ·g₀ᵀd ≤ gₜᵀd ≤ (1−2c₁)·|g₀ᵀd|.
// It reports false when 50 halvings find no such step.
func armijo(fg func(x, grad []float64) float64, x []float64, f float64, g, dir, xNew, gNew []float64) (float64, bool) {
	const c1, sigma = 1e-4, 0.9
	slope := floats.Dot(g, dir)
	if !(slope < 0) {
		return f, false
	}
	roundoff := 1e-12 * math.Max(math.Abs(f), 1)
	t := 1.0
	for range 50 {
		floats.AddScaledTo(xNew, x, t, dir)
		fNew := fg(xNew, gNew)
		if fNew <= f+c1*t*slope {
			return fNew, true
		}
		if fNew <= f+roundoff {
			if d := floats.Dot(gNew, dir); sigma*slope <= d && d <= -(1-2*c1)*slope {
				return fNew, true
			}
		}
		t /= 2
	}
	return f, false
}

// curvatureMemory holds the last pairs sₖ = xₖ₊₁ − xₖ, yₖ = ∇fₖ₊₁ − ∇fₖ in
// a ring buffer.
type curvatureMemory struct {
	s, y  [][]float64
	rho   []float64
	alpha []float64
	next  int
	count int
}

func newCurvatureMemory(dim int) *curvatureMemory {
	m := &curvatureMemory{
		s: make([][]float64, lbfgsMemory), y: make([][]float64, lbfgsMemory),
		rho: make([]float64, lbfgsMemory), alpha: make([]float64, lbfgsMemory),
	}
	for i := range m.s {
		m.s[i], m.y[i] = make([]float64, dim), make([]float64, dim)
	}
	return m
}

func (m *curvatureMemory) len() int { return m.count }
func (m *curvatureMemory) reset()   { m.count, m.next = 0, 0 }

// push records a step unless its curvature sᵀy is not safely positive,
// which would break the positive definiteness of the inverse Hessian.
func (m *curvatureMemory) push(x, xNew, g, gNew []float64) {
	s, y := m.s[m.next], m.y[m.next]
	floats.SubTo(s, xNew, x)
	floats.SubTo(y, gNew, g)
	sy := floats.Dot(s, y)
	if !(sy > 1e-12*floats.Dot(y, y)) {
		return
	}
	m.rho[m.next] = 1 / sy
	m.next = (m.next + 1) % lbfgsMemory
	m.count = min(m.count+1, lbfgsMemory)
}

// direction writes −H∇f into dir by the two-loop recursion, with
// H₀ = (sᵀy/yᵀy)·I from the newest pair, or a step of unit length along −∇f
// when the memory is empty.
func (m *curvatureMemory) direction(dir, g []float64) {
	copy(dir, g)
	if m.count == 0 {
		floats.Scale(-1/math.Max(floats.Norm(g, 2), 1), dir)
		return
	}
	for k := 1; k <= m.count; k++ {
		i := (m.next - k + lbfgsMemory) % lbfgsMemory
		m.alpha[i] = m.rho[i] * floats.Dot(m.s[i], dir)
		floats.AddScaled(dir, -m.alpha[i], m.y[i])
	}
	newest := (m.next - 1 + lbfgsMemory) % lbfgsMemory
	floats.Scale(1/(m.rho[newest]*floats.Dot(m.y[newest], m.y[newest])), dir)
	for k := m.count; k >= 1; k-- {
		i := (m.next - k + lbfgsMemory) % lbfgsMemory
		beta := m.rho[i] * floats.Dot(m.y[i], dir)
		floats.AddScaled(dir, m.alpha[i]-beta, m.s[i])
	}
	floats.Scale(-1, dir)
}
