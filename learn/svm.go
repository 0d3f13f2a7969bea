package learn

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Loss is the SVM loss on the margin m = y·(w·x).
type Loss int

const (
	// Hinge is the L1 loss max(0, 1−m) (LIBLINEAR -s 3).
	Hinge Loss = iota + 1
	// SquaredHinge is the L2 loss max(0, 1−m)² (LIBLINEAR -s 1).
	SquaredHinge
)

func (l Loss) String() string { return dp.EnumName("Loss", int(l), "", "hinge", "squared-hinge") }

// SVMOptions configure TrainBinarySVM and TrainSVM. The primal problem is
//
//	min_w ½‖w‖² + C Σᵢ loss(yᵢ w·xᵢ).
//
// Start from DefaultSVMOptions: the zero value is invalid.
type SVMOptions struct {
	C         float64 // cost of a margin violation, > 0
	Loss      Loss    // Hinge or SquaredHinge
	Bias      bool    // append a constant feature 1 (LIBLINEAR -B 1)
	Tol       float64 // stop when the projected-gradient gap is ≤ Tol, > 0
	MaxIter   int     // maximum outer passes over the data, > 0
	Shrinking bool    // drop bound coordinates from the active set
}

// DefaultSVMOptions returns LIBLINEAR's defaults for the dual solvers:
// C = 1, squared hinge, bias on, Tol = 0.1, 1000 passes, shrinking on.
func DefaultSVMOptions() SVMOptions {
	return SVMOptions{C: 1, Loss: SquaredHinge, Bias: true, Tol: 0.1, MaxIter: 1000, Shrinking: true}
}

// Validate reports the first invalid field.
func (o SVMOptions) Validate() error {
	switch {
	case !(o.C > 0) || math.IsInf(o.C, 1):
		return fmt.Errorf("learn: SVM C = %v must be positive and finite: %w", o.C, ErrInvalidOptions)
	case o.Loss != Hinge && o.Loss != SquaredHinge:
		return fmt.Errorf("learn: unknown SVM loss %v: %w", o.Loss, ErrInvalidOptions)
	case !(o.Tol > 0) || math.IsInf(o.Tol, 1):
		return fmt.Errorf("learn: SVM Tol = %v must be positive and finite: %w", o.Tol, ErrInvalidOptions)
	case o.MaxIter <= 0:
		return fmt.Errorf("learn: SVM MaxIter = %d must be positive: %w", o.MaxIter, ErrInvalidOptions)
	}
	return nil
}

// TrainBinarySVM trains a linear SVM on labels 0/1 (class 1 is the positive
// side) by the dual coordinate descent of Hsieh, Chang, Lin, Keerthi &
// Sundararajan (ICML 2008): one exact coordinate step per example, in a
// fresh random order each pass (drawn from src), with their shrinking
// heuristic. It stops once max PG − min PG ≤ Tol over a pass (PG the
// projected gradients, with 0 included in both extremes), or after MaxIter
// passes, returning the current iterate either way as LIBLINEAR does.
// A nil src means randx.NewSecure().
func TrainBinarySVM(X *mat.Dense, y []int, o SVMOptions, src *randx.Source) (*LinearModel, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if err := checkTraining(X, y, 2); err != nil {
		return nil, err
	}
	p := newSVMProblem(X, o)
	return p.train(signs(y, 1), orSecure(src)), nil
}

// TrainSVM trains a linear SVM for labels 0..classes−1: TrainBinarySVM for
// two classes, otherwise one-vs-rest. In one-vs-rest a class without
// examples is allowed; its model learns to score every example negative.
func TrainSVM(X *mat.Dense, y []int, classes int, o SVMOptions, src *randx.Source) (*Classifier, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if err := checkTraining(X, y, classes); err != nil {
		return nil, err
	}
	p := newSVMProblem(X, o)
	src = orSecure(src)
	return trainOneVsRest(y, classes, func(labels []float64, _ int) (*LinearModel, error) {
		return p.train(labels, src), nil
	})
}

func orSecure(src *randx.Source) *randx.Source {
	if src == nil {
		return randx.NewSecure()
	}
	return src
}

// svmProblem holds what the binary problems of one data set share.
type svmProblem struct {
	rows  [][]float64
	sp    *sparseRows // non-nil when the data are sparse enough to use it
	d     int
	bias  float64   // value of the constant feature, 0 without bias
	qd    []float64 // Q̄ᵢᵢ = ‖x̃ᵢ‖² + D_ii
	diag  float64   // D_ii: 0 for hinge, 1/(2C) for squared hinge
	upper float64   // U: C for hinge, +∞ for squared hinge
	o     SVMOptions
}

func newSVMProblem(X *mat.Dense, o SVMOptions) *svmProblem {
	p := &svmProblem{rows: rowViews(X), o: o, upper: o.C}
	p.sp = toSparse(p.rows)
	_, p.d = X.Dims()
	if o.Bias {
		p.bias = 1
	}
	if o.Loss == SquaredHinge {
		p.diag, p.upper = 1/(2*o.C), math.Inf(1)
	}
	p.qd = make([]float64, len(p.rows))
	for i, x := range p.rows {
		p.qd[i] = floats.Dot(x, x) + p.bias*p.bias + p.diag
	}
	return p
}

func (p *svmProblem) train(labels []float64, src *randx.Source) *LinearModel {
	s := p.newSolver(labels, src)
	for s.iter < p.o.MaxIter && !s.step() {
	}
	return modelFromWeights(s.w, p.d, p.o.Bias, 1, p.bias)
}

// dcdSolver is the state of one dual coordinate descent run. w holds the
// feature weights followed by the bias weight.
type dcdSolver struct {
	*svmProblem
	y      []float64
	alpha  []float64
	w      []float64
	index  []int
	active int
	iter   int
	// Projected-gradient extremes of the previous pass: the shrinking
	// thresholds M̄ and m̄ of Hsieh et al.
	pgMaxOld, pgMinOld float64
	src                *randx.Source
}

func (p *svmProblem) newSolver(labels []float64, src *randx.Source) *dcdSolver {
	n := len(p.rows)
	s := &dcdSolver{
		svmProblem: p, y: labels, src: src,
		alpha: make([]float64, n), w: make([]float64, p.d+1),
		index: make([]int, n), active: n,
		pgMaxOld: math.Inf(1), pgMinOld: math.Inf(-1),
	}
	for i := range s.index {
		s.index[i] = i
	}
	return s
}

// step runs one pass over the active set in random order and reports
// whether the stopping rule holds.
func (s *dcdSolver) step() bool {
	// Starting the extremes at 0 makes the gap at least max|PG|: a pass in
	// which every PG had the same sign (possible in tiny problems) must not
	// pass for converged.
	pgMax, pgMin := 0.0, 0.0
	s.shuffleActive()
	wx, d := s.w[:s.d], s.d
	for k := 0; k < s.active; k++ {
		i := s.index[k]
		yi, a := s.y[i], s.alpha[i]
		g := yi*(s.dot(i, wx)+s.w[d]*s.bias) - 1 + a*s.diag
		pg := g
		switch {
		case a == 0:
			if s.o.Shrinking && g > s.pgMaxOld {
				s.shrink(&k)
				continue
			}
			pg = math.Min(g, 0)
		case a == s.upper:
			if s.o.Shrinking && g < s.pgMinOld {
				s.shrink(&k)
				continue
			}
			pg = math.Max(g, 0)
		}
		pgMax, pgMin = math.Max(pgMax, pg), math.Min(pgMin, pg)
		if math.Abs(pg) > 1e-12 {
			na := math.Min(math.Max(a-g/s.qd[i], 0), s.upper)
			delta := (na - a) * yi
			s.alpha[i] = na
			s.axpy(i, delta, wx)
			s.w[d] += delta * s.bias
		}
	}
	s.iter++
	return s.converged(pgMax, pgMin)
}

func (p *svmProblem) dot(i int, w []float64) float64 {
	if p.sp != nil {
		return p.sp.dot(i, w)
	}
	return floats.Dot(w, p.rows[i])
}

func (p *svmProblem) axpy(i int, a float64, w []float64) {
	if p.sp != nil {
		p.sp.axpy(i, a, w)
		return
	}
	floats.AddScaled(w, a, p.rows[i])
}

// shrink moves index[*k] out of the active set; the caller's loop then
// revisits position *k, which now holds the last active index.
func (s *dcdSolver) shrink(k *int) {
	s.active--
	s.index[*k], s.index[s.active] = s.index[s.active], s.index[*k]
	*k--
}

func (s *dcdSolver) shuffleActive() {
	for i := 0; i < s.active-1; i++ {
		j := i + s.src.IntN(s.active-i)
		s.index[i], s.index[j] = s.index[j], s.index[i]
	}
}

// converged applies LIBLINEAR's rule: a small gap on the active set only
// counts once confirmed by a pass over all coordinates.
func (s *dcdSolver) converged(pgMax, pgMin float64) bool {
	n := len(s.rows)
	if pgMax-pgMin <= s.o.Tol {
		if s.active == n {
			return true
		}
		s.active = n
		s.pgMaxOld, s.pgMinOld = math.Inf(1), math.Inf(-1)
		return false
	}
	s.pgMaxOld, s.pgMinOld = pgMax, pgMin
	if s.pgMaxOld <= 0 {
		s.pgMaxOld = math.Inf(1)
	}
	if s.pgMinOld >= 0 {
		s.pgMinOld = math.Inf(-1)
	}
	return false
}

// dualObjective is f(α) = ½αᵀQ̄α − Σα = ½‖w‖² + ½D Σα² − Σα, which dual
// coordinate descent never increases.
func (s *dcdSolver) dualObjective() float64 {
	f := 0.5 * floats.Dot(s.w, s.w)
	for _, a := range s.alpha {
		f += 0.5*s.diag*a*a - a
	}
	return f
}

// primalObjective is ½‖w‖² + C Σ loss(yᵢ w·x̃ᵢ); at the optimum it equals
// −dualObjective.
func (s *dcdSolver) primalObjective() float64 {
	f := 0.5 * floats.Dot(s.w, s.w)
	for i, x := range s.rows {
		v := math.Max(0, 1-s.y[i]*(floats.Dot(s.w[:s.d], x)+s.w[s.d]*s.bias))
		if s.o.Loss == SquaredHinge {
			v *= v
		}
		f += s.o.C * v
	}
	return f
}
