package roles

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/randx"
)

// ksLaplace is the Kolmogorov–Smirnov statistic of xs against Lap(b).
func ksLaplace(xs []float64, b float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	d := 0.0
	for i, x := range s {
		var f float64
		if x < 0 {
			f = 0.5 * math.Exp(x/b)
		} else {
			f = 1 - 0.5*math.Exp(-x/b)
		}
		d = max(d, math.Abs(f-float64(i)/float64(len(s))), math.Abs(f-float64(i+1)/float64(len(s))))
	}
	return d
}

// TestInsiderSafeSharesAreCalibrated checks that any m−1 of m insider-safe
// Laplace shares sum to the plan's discrete Laplace (KS test against
// Lap(b) at the plan's effective b, 20000 draws, critical value 1.95/√n:
// false rejection probability 0.001; the grid is 2^-19 of b's order, far
// below the test's resolution) and that m exact shares do, that every share
// is an integer number of grid steps, and that Gaussian shares have the
// stated variances (relative tolerance 5% on 20000 draws: about 5
// standard errors).
func TestInsiderSafeSharesAreCalibrated(t *testing.T) {
	nz := dp.NewNoiser(randx.NewSeeded(3))
	const draws = 20000
	crit := 1.95 / math.Sqrt(draws)
	lap := measurement.Noise{Mechanism: measurement.Laplace, Sensitivity: 2, Scale: 3, Rho: 0.2}
	for _, mode := range []NoiseMode{NoiseInsiderSafe, NoiseExact} {
		s := Session{Noise: mode}
		const m = 4
		sp, err := s.shareSpec(lap, 1, m)
		if err != nil {
			t.Fatal(err)
		}
		if r := sp.plan.Scale() / lap.Scale; r < 1 || r > 1+1e-5 {
			t.Fatalf("grid scale %v for b = %v", sp.plan.Scale(), lap.Scale)
		}
		sum := make([]float64, draws)
		for i := range sum {
			for range sp.parts {
				sum[i] += float64(sp.draw(nz, 1)[0]) * sp.plan.Grid
			}
		}
		if d := ksLaplace(sum, sp.plan.Scale()); d > crit {
			t.Errorf("%s: KS distance of %d Laplace shares from Lap(%v) is %.4f > %.4f", mode, sp.parts, sp.plan.Scale(), d, crit)
		}
		if mode == NoiseInsiderSafe && sp.parts != m-1 {
			t.Errorf("insider-safe: %d shares make the noise, want %d", sp.parts, m-1)
		}
		gauss := measurement.Noise{Mechanism: measurement.Gaussian, Sensitivity: math.Sqrt2, Scale: 5, Rho: 0.04}
		gp, err := s.shareSpec(gauss, 1, m)
		if err != nil {
			t.Fatal(err)
		}
		v := 0.0
		for range draws {
			x := float64(gp.draw(nz, 1)[0]) * gp.plan.Grid
			v += x * x
		}
		v /= draws
		want := gp.plan.Scale() * gp.plan.Scale() / float64(gp.parts)
		if math.Abs(v/want-1) > 0.05 {
			t.Errorf("%s: Gaussian share variance %.3f, want %.3f", mode, v, want)
		}
		if got, want := gp.variance(m), gp.plan.Scale()*gp.plan.Scale()*m/float64(gp.parts); math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: total variance %v, want %v", mode, got, want)
		}
	}
	// The test can fail: a single insider-safe share is not Lap(b).
	si := Session{Noise: NoiseInsiderSafe}
	sp, _ := si.shareSpec(lap, 1, 4)
	one := make([]float64, draws)
	for i := range one {
		one[i] = float64(sp.draw(nz, 1)[0]) * sp.plan.Grid
	}
	if d := ksLaplace(one, sp.plan.Scale()); d <= crit {
		t.Errorf("one share of three passes as Lap(b): KS %.4f", d)
	}
}

// TestProtocolNoiseVariance measures a 1080-cell marginal across three
// parties and compares the empirical variance of (noisy − exact) with the
// variance the noise mode implies: insider-safe (K+1)/K·σ², exact σ², and
// 2b² for DLPA's Laplace. Relative standard error √(2/1080) ≈ 4.3% for
// Gaussian (Laplace kurtosis 6: ≈ 8%); tolerance 25%, over 3 standard
// errors (false rejection < 0.002 per case).
func TestProtocolNoiseVariance(t *testing.T) {
	if testing.Short() {
		t.Skip("the noise variance over many protocol runs (about 5–10 s on 2 cores); runs without -short")
	}
	attrs := []int{0, 1, 3, 5, 6}
	cases := []struct {
		suite Suite
		mode  NoiseMode
		mech  measurement.Mechanism
	}{
		{SuiteCommodity, NoiseInsiderSafe, measurement.Gaussian},
		{SuiteCommodity, NoiseExact, measurement.Laplace},
		{SuitePaillier, NoiseInsiderSafe, measurement.Gaussian},
		{SuitePaillier, NoiseExact, measurement.Laplace},
	}
	for _, c := range cases {
		f := newFixture(t, c.suite, c.mode, 150, 1e9, 21)
		r := f.release(t, attrs, c.mech, measurement.CountL1, measurement.CountL2, 0.01)
		got, err := f.m.Marginal(context.Background(), attrs, r)
		if err != nil {
			t.Fatal(err)
		}
		exact, _ := domain.Count(f.data, attrs)
		v := 0.0
		for i, x := range got {
			d := x - exact.Counts[i]
			v += d * d
		}
		v /= float64(len(got))
		k := float64(f.session.Parties)
		want := r.Noise.Variance()
		if c.mode == NoiseInsiderSafe {
			want *= (k + 1) / k
		}
		t.Logf("%s/%s/%s: ratio %.3f", c.suite, c.mode, c.mech, v/want)
		if math.Abs(v/want-1) > 0.25 {
			t.Errorf("%s/%s/%s: noise variance %.1f, want %.1f", c.suite, c.mode, c.mech, v, want)
		}
	}
}
