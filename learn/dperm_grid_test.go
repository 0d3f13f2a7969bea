package learn

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

func isPowerOfTwo(g float64) bool {
	frac, _ := math.Frexp(g)
	return g > 0 && frac == 0.5
}

// TestDPERMPlan checks the calibration formulas of TrainDPLinear's doc
// comment for both methods, both losses and a range of n and ε.
func TestDPERMPlan(t *testing.T) {
	for _, v := range dpVariants {
		for _, c := range []struct {
			n, d int
			eps  float64
			bias bool
		}{
			{100, 5, 0.1, true}, {3200, 5, 1, true}, {45222, 104, 0.5, false}, {1_000_000, 30, 10, true}, {10, 1, 1, false},
		} {
			name := fmt.Sprintf("%s/n=%d/d=%d/ε=%g/bias=%v", v.name, c.n, c.d, c.eps, c.bias)
			o := DefaultDPERMOptions(c.eps)
			o.Loss, o.Method, o.Bias = v.loss, v.method, c.bias
			p, err := o.Plan(c.n, c.d)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			dim := c.d
			if c.bias {
				dim++
			}
			root, n, tau := math.Sqrt(float64(dim)), float64(c.n), o.GradTol
			if p.Dim != dim || p.N != c.n || p.Lambda != o.ResolvedLambda(c.n, c.eps) || p.GradTol != tau {
				t.Errorf("%s: plan %+v", name, p)
			}
			if !isPowerOfTwo(p.Grid) {
				t.Errorf("%s: grid %v is not a power of two", name, p.Grid)
			}
			var base float64 // the sensitivity before grid rounding
			switch v.method {
			case OutputPerturbation:
				base = 2/(n*p.Lambda) + 2*tau/p.Lambda
				if p.EpsRelease != c.eps || p.Delta != 0 {
					t.Errorf("%s: output perturbation releases with ε %v, Δ %v", name, p.EpsRelease, p.Delta)
				}
				// The grid is sized on the sensitivity itself.
				if g := p.Grid * root; !(g <= base*0x1p-20 && 2*g > base*0x1p-20) {
					t.Errorf("%s: g√dim = %v, want the largest power-of-two multiple ≤ %v", name, g, base*0x1p-20)
				}
			case ObjectivePerturbation:
				base = 2 * tau / p.StrongConvexity()
				// ε₂ = εr/(1+r), r = √(B/A) ≈ √(nτ + 2^-20): 3% of ε at n = 10⁶.
				r := math.Sqrt((2*tau/p.StrongConvexity() + p.Grid*root) / (2 / (n * p.StrongConvexity())))
				if math.Abs(p.EpsObjective+p.EpsRelease-c.eps) > 1e-15*c.eps || math.Abs(p.EpsRelease-c.eps*r/(1+r)) > 1e-15*c.eps ||
					p.EpsRelease > c.eps*1.01*math.Sqrt(n*tau+0x1p-20) {
					t.Errorf("%s: ε split %v + %v, want ε = %v with ε₂ = εr/(1+r), r = %v", name, p.EpsObjective, p.EpsRelease, c.eps, r)
				}
				ep, delta := objectiveBudget(p.EpsObjective, c.n, p.Lambda, o.curvature())
				if p.EpsPrime != ep || p.Delta != delta || p.LinearScale != 2/ep {
					t.Errorf("%s: ε′ %v Δ %v scale %v, want Algorithm 2's %v, %v, %v", name, p.EpsPrime, p.Delta, p.LinearScale, ep, delta, 2/ep)
				}
				// The resolved λ keeps Algorithm 2 out of its Δ branch.
				if p.Delta != 0 || p.EpsPrime < 0.74*c.eps {
					t.Errorf("%s: resolved λ = %v gives Δ = %v, ε′ = %v (want Δ = 0, ε′ ≥ ~3ε/4)", name, p.Lambda, p.Delta, p.EpsPrime)
				}
			}
			if want := base + p.Grid*root; p.Sensitivity != want || p.Scale != want/p.EpsRelease {
				t.Errorf("%s: sensitivity %v scale %v, want %v and %v", name, p.Sensitivity, p.Scale, want, want/p.EpsRelease)
			}
		}
	}
	if _, err := DefaultDPERMOptions(1).Plan(0, 3); !errors.Is(err, ErrInvalidData) {
		t.Errorf("plan for 0 rows: err = %v", err)
	}
}

// TestResolvedLambda: the resolved λ spends θ = 1/4 of ε on the Jacobian of
// Algorithm 2 (ε′ = 3ε/4 unless the floor gives more) and never enters its
// Δ branch, whereas λ = 1/n does for the typical ε below.
func TestResolvedLambda(t *testing.T) {
	for _, loss := range []ERMLoss{Logistic, HuberHinge} {
		for _, n := range []int{50, 569, 36178, 1_000_000} {
			for _, eps := range []float64{0.01, 0.1, 0.5, 1, 2, 10, 1e9} {
				o := DefaultDPERMOptions(eps)
				o.Loss = loss
				c := o.curvature()
				lambda := o.ResolvedLambda(n, eps)
				want := math.Max(DefaultDPERMLambdaFloor, c/(float64(n)*math.Expm1(eps/8)))
				if lambda != want {
					t.Errorf("%v n=%d ε=%g: λ = %v, want %v", loss, n, eps, lambda, want)
				}
				ep, delta := objectiveBudget(eps, n, lambda, c)
				if delta != 0 || ep < 0.75*eps*(1-1e-12) {
					t.Errorf("%v n=%d ε=%g: λ = %v gives ε′ = %v, Δ = %v", loss, n, eps, lambda, ep, delta)
				}
				if _, delta := objectiveBudget(eps, n, 1/float64(n), c); eps <= 0.4 && delta == 0 {
					t.Errorf("%v n=%d ε=%g: λ = 1/n should hit the Δ branch", loss, n, eps)
				}
				o.Method = OutputPerturbation
				if l := o.ResolvedLambda(n, eps); l != DefaultDPERMLambdaFloor {
					t.Errorf("output perturbation: resolved λ = %v", l)
				}
				o.Lambda = 0.25
				if l := o.ResolvedLambda(n, eps); l != 0.25 {
					t.Errorf("explicit λ = 0.25 resolved to %v", l)
				}
			}
		}
	}
}

// TestDPERMReleaseOnGrid: every released weight is an integer multiple of
// the plan's grid, and the model is that vector mapped back (W = s·w,
// B = b·w_bias), nothing else.
func TestDPERMReleaseOnGrid(t *testing.T) {
	X, y := dpData(45, 400)
	for _, v := range dpVariants {
		for _, bias := range []bool{true, false} {
			for _, eps := range []float64{0.1, 1, 1e9} {
				name := fmt.Sprintf("%s/bias=%v/ε=%g", v.name, bias, eps)
				o := DefaultDPERMOptions(eps)
				o.Loss, o.Method, o.Bias = v.loss, v.method, bias
				p, err := newDPProblem(X, o)
				if err != nil {
					t.Fatal(err)
				}
				w, plan, err := p.fit(signs(y, 1), eps, randx.NewSeeded(7))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				for j, wj := range w {
					if k := wj / plan.Grid; k != math.Trunc(k) {
						t.Errorf("%s: weight %d = %v is %v grid steps of %v", name, j, wj, k, plan.Grid)
					}
				}
				m, err := TrainDPLinear(X, y, o, randx.NewSeeded(7))
				if err != nil {
					t.Fatal(err)
				}
				want := modelFromWeights(w, p.d, bias, p.featScale, p.biasValue)
				if !floats.Equal(m.W, want.W) || m.B != want.B {
					t.Errorf("%s: model %+v, want the grid weights mapped back %+v", name, m, want)
				}
			}
		}
	}
}

// scaledRow returns a copy of X with row i multiplied by f.
func scaledRow(X *mat.Dense, i int, f float64) *mat.Dense {
	Y := mat.DenseCopyOf(X)
	floats.Scale(f, Y.RawRowView(i))
	return Y
}

// TestDPERMSubGridDifferenceInvisible: two training sets whose certified
// iterates differ, but by far less than the grid step, release identical
// models under the same seed: the data reach the output only through
// ⌊w̃/g⌉. A label flip (a full neighbouring data set) does change the
// release under the same seed.
func TestDPERMSubGridDifferenceInvisible(t *testing.T) {
	X, y := dpData(47, 400)
	Xn := scaledRow(X, 0, 1-0x1p-30) // moves the minimiser by ~1e-9·2/(nλ)
	flipped := append([]int(nil), y...)
	flipped[0] = 1 - flipped[0]
	for _, v := range dpVariants {
		for _, eps := range []float64{0.5, 5} {
			name := fmt.Sprintf("%s/ε=%g", v.name, eps)
			o := DefaultDPERMOptions(eps)
			o.Loss, o.Method = v.loss, v.method
			p1, err := newDPProblem(X, o)
			if err != nil {
				t.Fatal(err)
			}
			p2, err := newDPProblem(Xn, o)
			if err != nil {
				t.Fatal(err)
			}
			plan := o.plan(400, 5, eps)
			w1, err := p1.iterate(signs(y, 1), plan, randx.NewSeeded(9))
			if err != nil {
				t.Fatal(err)
			}
			w2, err := p2.iterate(signs(y, 1), plan, randx.NewSeeded(9))
			if err != nil {
				t.Fatal(err)
			}
			diff := floats.Distance(w1, w2, math.Inf(1))
			if diff == 0 || diff > plan.Grid/64 {
				t.Fatalf("%s: iterates differ by %v; the test needs 0 < difference ≪ g = %v", name, diff, plan.Grid)
			}
			for j := range w1 {
				if roundHalfUp(w1[j]/plan.Grid) != roundHalfUp(w2[j]/plan.Grid) {
					t.Fatalf("%s: coordinate %d straddles a grid boundary (%v, %v)", name, j, w1[j], w2[j])
				}
			}
			m1, err1 := TrainDPLinear(X, y, o, randx.NewSeeded(9))
			m2, err2 := TrainDPLinear(Xn, y, o, randx.NewSeeded(9))
			m3, err3 := TrainDPLinear(X, flipped, o, randx.NewSeeded(9))
			if err := errors.Join(err1, err2, err3); err != nil {
				t.Fatal(err)
			}
			if !floats.Equal(m1.W, m2.W) || m1.B != m2.B {
				t.Errorf("%s: iterates %v apart (grid %v) released different models:\n%v %v\n%v %v", name, diff, plan.Grid, m1.W, m1.B, m2.W, m2.B)
			}
			if floats.Equal(m1.W, m3.W) && m1.B == m3.B {
				t.Errorf("%s: flipping a label left the release unchanged under the same seed", name)
			}
		}
	}
}

// TestRoundHalfUp: ⌊k + x⌉ = k + ⌊x⌉ for integers k, the identity that
// makes g·(⌊w/g⌉ + ⌊v/g⌉) = g·⌊(w_g + v)/g⌉. math.Round breaks it at ties
// (math.Round(−1 + 0.5) = −1, −1 + math.Round(0.5) = 0).
func TestRoundHalfUp(t *testing.T) {
	for _, c := range []struct{ x, want float64 }{
		{0.5, 1}, {-0.5, 0}, {1.5, 2}, {-1.5, -1}, {2.4999999999999996, 2}, {0.49999999999999994, 0},
		{-0.49999999999999994, 0}, {-2.5000000000000004, -3}, {3, 3}, {-3, -3}, {0x1p52 + 1, 0x1p52 + 1}, {-0x1p60, -0x1p60},
	} {
		if got := roundHalfUp(c.x); got != c.want {
			t.Errorf("roundHalfUp(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	src := randx.NewSeeded(3)
	for range 10000 {
		x := (src.Float64() - 0.5) * 64
		if src.IntN(4) == 0 {
			x = math.Floor(x) + 0.5 // a tie
		}
		k := float64(src.IntN(2001) - 1000)
		if roundHalfUp(k+x) != k+roundHalfUp(x) {
			t.Fatalf("roundHalfUp(%v + %v) = %v ≠ %v + %v", k, x, roundHalfUp(k+x), k, roundHalfUp(x))
		}
	}
}

// TestReleaseOnGridSeesOnlyCells: releaseOnGrid of any two vectors in the
// same grid cells gives the same output under the same seed, and the output
// moves by exactly the cell difference otherwise.
func TestReleaseOnGridSeesOnlyCells(t *testing.T) {
	o := DefaultDPERMOptions(1)
	o.Method = OutputPerturbation
	plan := o.plan(1000, 3, 1)
	g := plan.Grid
	src := randx.NewSeeded(11)
	for range 200 {
		w := make([]float64, 4)
		for j := range w {
			w[j] = (src.Float64() - 0.5) * 2000 * g
		}
		shifted := make([]float64, 4)
		moved := make([]float64, 4)
		for j, wj := range w {
			cell := roundHalfUp(wj / g)
			shifted[j] = (cell - 0.5 + src.Float64()) * g // anywhere in the same cell
			moved[j] = shifted[j] + float64(j)*g          // j cells further
		}
		seed := src.Uint64()
		outs := [][]float64{w, shifted, moved}
		for _, out := range outs {
			if err := releaseOnGrid(out, plan, randx.NewSeeded(seed)); err != nil {
				t.Fatal(err)
			}
		}
		for j := range w {
			if outs[0][j] != outs[1][j] || outs[2][j]-outs[1][j] != float64(j)*g {
				t.Fatalf("coordinate %d: releases %v, %v, %v (grid %v)", j, outs[0][j], outs[1][j], outs[2][j], g)
			}
		}
	}
}

// TestDPERMRefusesUnconverged: an optimisation that cannot reach τ (one
// iteration, or a τ below the floating-point floor) is refused: no model,
// ErrNotConverged, and a message that names the cause.
func TestDPERMRefusesUnconverged(t *testing.T) {
	X, y := dpData(49, 400)
	for _, v := range dpVariants {
		for _, c := range []struct {
			name    string
			mutate  func(*DPERMOptions)
			mention string
		}{
			{"MaxIter=1", func(o *DPERMOptions) { o.MaxIter = 1 }, "MaxIter = 1"},
			{"τ below rounding", func(o *DPERMOptions) { o.GradTol = 1e-300 }, "GradTol"},
		} {
			o := DefaultDPERMOptions(1)
			o.Loss, o.Method = v.loss, v.method
			c.mutate(&o)
			m, err := TrainDPLinear(X, y, o, randx.NewSeeded(5))
			if m != nil || !errors.Is(err, ErrNotConverged) || !strings.Contains(err.Error(), "refuses to publish") || !strings.Contains(err.Error(), c.mention) {
				t.Errorf("%s/%s: model %v, err = %v; want a refusal wrapping ErrNotConverged that mentions %q", v.name, c.name, m, err, c.mention)
			}
			if _, err := TrainDPClassifier(X, y, 2, o, randx.NewSeeded(5)); !errors.Is(err, ErrNotConverged) {
				t.Errorf("%s/%s: classifier err = %v, want ErrNotConverged", v.name, c.name, err)
			}
		}
	}
}

// TestCertifiedIterateNearMinimiser: the certificate means what the
// accounting uses: an iterate with ‖∇J‖₂ ≤ τ lies within τ/λ of the exact
// minimiser (approximated by a certificate at a far smaller τ), and the
// compensated gradient agrees with the optimiser's own.
func TestCertifiedIterateNearMinimiser(t *testing.T) {
	X, y := dpData(53, 400)
	for _, loss := range []ERMLoss{Logistic, HuberHinge} {
		for _, linear := range []bool{false, true} {
			o := DefaultDPERMOptions(1)
			o.Loss, o.Lambda = loss, 0.01
			p, err := newDPProblem(X, o)
			if err != nil {
				t.Fatal(err)
			}
			erm := p.erm(signs(y, 1))
			if linear {
				erm.linear = gammaNormNoise(erm.dim(), 2, randx.NewSeeded(1))
			}
			const loose, tight = 1e-4, 1e-12
			wLoose, err := minimizeCertified(erm, 1000, loose)
			if err != nil {
				t.Fatal(err)
			}
			wTight, err := minimizeCertified(erm, 1000, tight)
			if err != nil {
				t.Fatal(err)
			}
			if dist := floats.Distance(wLoose, wTight, 2); dist > (loose+tight)/o.Lambda {
				t.Errorf("%v linear=%v: ‖w̃ − w*‖ = %v > (τ + τ′)/λ = %v", loss, linear, dist, (loose+tight)/o.Lambda)
			}
			norm, slack := certifiedGradient(erm, wLoose)
			erm.eval(wLoose)
			if own := floats.Norm(erm.lastGrad, 2); math.Abs(norm-own) > 1e-13 || slack > 1e-13 || norm+slack > loose {
				t.Errorf("%v linear=%v: certified norm %v ± %v, optimiser's %v", loss, linear, norm, slack, own)
			}
		}
	}
}

// TestDPERMRowsInsideUnitBall: after newDPProblem's scaling every row x̃
// (with the bias feature) has exact norm ≤ 1, computed in 256-bit
// arithmetic, including rows of computed norm exactly 1 and 1 + 1e-12.
func TestDPERMRowsInsideUnitBall(t *testing.T) {
	src := randx.NewSeeded(57)
	for _, d := range []int{1, 7, 200} {
		X := mat.NewDense(300, d, nil)
		for i := range 300 {
			row := X.RawRowView(i)
			for j := range row {
				row[j] = src.NormFloat64()
			}
			target := 1.0
			if i%3 == 1 {
				target = 1 + 1e-12
			}
			floats.Scale(target/floats.Norm(row, 2), row)
		}
		for _, bias := range []bool{false, true} {
			o := DefaultDPERMOptions(1)
			o.Bias = bias
			p, err := newDPProblem(X, o)
			if err != nil {
				t.Fatal(err)
			}
			one := new(big.Float).SetPrec(256).SetInt64(1)
			for i, row := range p.rows {
				sq := new(big.Float).SetPrec(256)
				s := new(big.Float).SetPrec(256).SetFloat64(p.rowScale[i])
				for _, v := range row {
					e := new(big.Float).SetPrec(256).SetFloat64(v)
					e.Mul(e, s)
					sq.Add(sq, e.Mul(e, e))
				}
				if bias {
					b := new(big.Float).SetPrec(256).SetFloat64(p.biasValue)
					sq.Add(sq, b.Mul(b, b))
				}
				if sq.Cmp(one) > 0 {
					t.Fatalf("d=%d bias=%v: row %d has ‖x̃‖² = %v > 1", d, bias, i, sq.Text('g', 30))
				}
			}
		}
	}
}

// TestDPERMAccuracyUnchanged: the grid release, the certified optimiser and
// the resolved λ cost no accuracy. The floors are the mean accuracies of
// the previous implementation (float release, λ = 1e-3, last iterate) at
// the same seeds, minus three standard errors of the seed-to-seed spread.
// Output perturbation reproduces them exactly; objective perturbation,
// with its λ now resolved, does as well or better (e.g. Adult huber at
// ε = 0.1: 0.724 before, 0.770 now).
func TestDPERMAccuracyUnchanged(t *testing.T) {
	type set struct {
		name     string
		Xtr, Xte *mat.Dense
		ytr, yte []int
		seeds    int
		old      map[string][2]float64 // "variant/ε" → old mean, seed-to-seed sd
	}
	D, dy := dpData(41, 4000)
	Dtr, dytr, Dte, dyte := split(randx.NewSeeded(42), D, dy)
	Atr, aytr, Ate, ayte := encodedAdult(t)
	unitRows(Atr)
	unitRows(Ate)
	sets := []set{
		{name: "blobs", Xtr: Dtr, ytr: dytr, Xte: Dte, yte: dyte, seeds: 10, old: map[string][2]float64{
			"logistic/output/0.1": {0.5871, 0.0957}, "logistic/output/1": {0.8199, 0.0264},
			"logistic/objective/0.1": {0.7410, 0.0584}, "logistic/objective/1": {0.8606, 0.0048},
			"huber/output/0.1": {0.5764, 0.0933}, "huber/output/1": {0.8065, 0.0339},
			"huber/objective/0.1": {0.8194, 0.0259}, "huber/objective/1": {0.8605, 0.0046},
		}},
		{name: "adult", Xtr: Atr, ytr: aytr, Xte: Ate, yte: ayte, seeds: 3, old: map[string][2]float64{
			"logistic/output/0.1": {0.6384, 0.1121}, "logistic/output/1": {0.8118, 0.0079},
			"logistic/objective/0.1": {0.7492, 0.0156}, "logistic/objective/1": {0.8178, 0.0031},
			"huber/output/0.1": {0.6238, 0.1275}, "huber/output/1": {0.8159, 0.0047},
			"huber/objective/0.1": {0.7240, 0.0051}, "huber/objective/1": {0.8246, 0.0018},
		}},
	}
	wdbc := set{name: "wdbc", seeds: 10, old: map[string][2]float64{
		"logistic/output/1": {0.5526, 0.1003}, "logistic/output/10": {0.7105, 0.1170},
		"logistic/objective/1": {0.5912, 0.1209}, "logistic/objective/10": {0.9342, 0.0177},
		"huber/output/1": {0.5526, 0.1003}, "huber/output/10": {0.7061, 0.1334},
		"huber/objective/1": {0.7579, 0.0875}, "huber/objective/10": {0.9570, 0.0140},
	}}
	if testing.Short() {
		sets = sets[:1]
	}
	t.Run("wdbc", func(t *testing.T) {
		X, y := loadWDBC(t) // skips without the shared data
		unitRows(X)
		wdbc.Xtr, wdbc.ytr, wdbc.Xte, wdbc.yte = split(randx.NewSeeded(5), X, y)
		checkAccuracyFloors(t, wdbc.Xtr, wdbc.ytr, wdbc.Xte, wdbc.yte, wdbc.seeds, wdbc.old)
	})
	for _, s := range sets {
		t.Run(s.name, func(t *testing.T) {
			checkAccuracyFloors(t, s.Xtr, s.ytr, s.Xte, s.yte, s.seeds, s.old)
		})
	}
}

func checkAccuracyFloors(t *testing.T, Xtr *mat.Dense, ytr []int, Xte *mat.Dense, yte []int, seeds int, old map[string][2]float64) {
	t.Helper()
	for _, v := range dpVariants {
		for _, eps := range []float64{0.1, 1, 10} {
			ref, ok := old[fmt.Sprintf("%s/%g", v.name, eps)]
			if !ok {
				continue
			}
			o := DefaultDPERMOptions(eps)
			o.Loss, o.Method = v.loss, v.method
			acc := dpAccuracyN(t, Xtr, ytr, Xte, yte, o, seeds)
			floor := ref[0] - 3*ref[1]/math.Sqrt(float64(seeds))
			t.Logf("%s ε=%g: accuracy %.4f, previously %.4f (floor %.4f)", v.name, eps, acc, ref[0], floor)
			if acc < floor {
				t.Errorf("%s ε=%g: accuracy %.4f below the previous %.4f − 3 s.e. = %.4f", v.name, eps, acc, ref[0], floor)
			}
		}
	}
}
