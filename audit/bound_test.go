package audit

import (
	"math"
	"testing"

	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/stat/distuv"
)

func TestClopperPearsonKnownAnswers(t *testing.T) {
	cases := []struct {
		k, n        int
		alpha       float64
		lower, uppr float64
	}{
		// The textbook two-sided 95% interval for 5/10 is [0.1871, 0.8129].
		{5, 10, 0.025, 0.187086, 0.812914},
		// k = 0: upper is 1 − α^(1/n); k = n: lower is α^(1/n).
		{0, 10, 0.025, 0, 1 - math.Pow(0.025, 0.1)},
		{10, 10, 0.025, math.Pow(0.025, 0.1), 1},
		// 1/1000 at 95% two-sided: [2.53e-5, 5.57e-3] (Clopper–Pearson tables).
		{1, 1000, 0.025, 2.5317e-5, 5.5589e-3},
	}
	for _, c := range cases {
		lo, hi := ClopperPearsonLower(c.k, c.n, c.alpha), ClopperPearsonUpper(c.k, c.n, c.alpha)
		if math.Abs(lo-c.lower) > 1e-4*math.Max(c.lower, 1e-3) || math.Abs(hi-c.uppr) > 1e-4*math.Max(c.uppr, 1e-3) {
			t.Errorf("CP(%d/%d, α=%v) = [%.6g, %.6g], want [%.6g, %.6g]", c.k, c.n, c.alpha, lo, hi, c.lower, c.uppr)
		}
	}
}

// The one-sided bounds must cover p in at least 1 − α of experiments. With
// α = 0.1 and 4000 experiments, the miss count of a valid bound is at most
// Binomial(4000, 0.1): mean 400, sd 19. The test fails above 470 misses
// (3.7 sd), which a valid bound does with probability < 2e-4; a bound that
// ignored sampling error would miss about half the time.
func TestClopperPearsonCoverage(t *testing.T) {
	src := randx.NewSeeded(3)
	const trials, n, alpha = 4000, 50, 0.1
	for _, p := range []float64{0.02, 0.3} {
		missLo, missHi := 0, 0
		for range trials {
			k := int(distuv.Binomial{N: n, P: p, Src: src}.Rand())
			if ClopperPearsonLower(k, n, alpha) > p {
				missLo++
			}
			if ClopperPearsonUpper(k, n, alpha) < p {
				missHi++
			}
		}
		if missLo > 470 || missHi > 470 {
			t.Errorf("p=%v: lower bound missed %d, upper %d of %d (want ≤ 470 each)", p, missLo, missHi, trials)
		}
	}
}

func TestEpsilonLower(t *testing.T) {
	const alpha = 0.0125
	// 5000/10000 against 500/10000: ratio 10, bound a little below ln 10.
	got := EpsilonLower(5000, 10000, 500, 10000, 0, alpha)
	want := math.Log(ClopperPearsonLower(5000, 10000, alpha) / ClopperPearsonUpper(500, 10000, alpha))
	if math.Abs(got-want) > 1e-12 || got > math.Log(10) || got < 2.1 {
		t.Errorf("EpsilonLower = %v, want %v in (2.1, ln 10)", got, want)
	}
	// δ is subtracted from the numerator before the ratio.
	if withDelta := EpsilonLower(5000, 10000, 500, 10000, 0.1, alpha); !(withDelta < got) {
		t.Errorf("δ = 0.1 gave %v, want less than %v", withDelta, got)
	}
	// No evidence: the numerator is not above δ, or the ratio is below 1.
	if e := EpsilonLower(5, 10000, 500, 10000, 0.01, alpha); e != 0 {
		t.Errorf("numerator below δ gave %v, want 0", e)
	}
	if e := EpsilonLower(100, 10000, 500, 10000, 0, alpha); e != 0 {
		t.Errorf("reversed ratio gave %v, want 0", e)
	}
}
