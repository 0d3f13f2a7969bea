package dp

import (
	"math"
	"math/big"
	"math/bits"

	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/stat/distuv"
)

// The samplers of this file draw integers exactly from their target
// distributions using only uniform random integers and integer or rational
// arithmetic, after Canonne, Kamath & Steinke, "The Discrete Gaussian for
// Differential Privacy" (NeurIPS 2020), Algorithms 1–3. No floating-point
// value ever enters a draw, so nothing about the draw depends on rounding.

// bernoulliRatio returns true with probability num/den (0 ≤ num ≤ den,
// den > 0).
func bernoulliRatio(src *randx.Source, num, den uint64) bool {
	if num >= den {
		return true
	}
	return src.Uint64N(den) < num
}

// bernoulliExpFrac returns true with probability exp(−num/den) for
// 0 ≤ num ≤ den (CKS Algorithm 1: the parity of the first K with
// A_K = 0, where A_k ~ Bernoulli(γ/k)). Bernoulli(γ/k) is drawn as the
// conjunction of independent Bernoulli(γ) and Bernoulli(1/k), so no product
// can overflow.
func bernoulliExpFrac(src *randx.Source, num, den uint64) bool {
	k := uint64(1)
	for bernoulliRatio(src, num, den) && src.Uint64N(k) == 0 {
		k++
	}
	return k%2 == 1
}

// bernoulliExp returns true with probability exp(−num/den) for any
// num ≥ 0, den > 0: exp(−γ) = exp(−1)^⌊γ⌋ · exp(−(γ − ⌊γ⌋)).
func bernoulliExp(src *randx.Source, num, den uint64) bool {
	for num > den {
		if !bernoulliExpFrac(src, 1, 1) {
			return false
		}
		num -= den
	}
	return bernoulliExpFrac(src, num, den)
}

// discreteLaplace draws X with P(X = x) ∝ exp(−|x|/t) over the integers
// (CKS Algorithm 2 with integer scale t ≥ 1).
func discreteLaplace(src *randx.Source, t uint64) int64 {
	for {
		u := src.Uint64N(t)
		if !bernoulliExp(src, u, t) {
			continue
		}
		v := uint64(0)
		for bernoulliExp(src, 1, 1) {
			v++
		}
		hi, x := bits.Mul64(v, t)
		x, carry := bits.Add64(x, u, 0)
		if hi != 0 || carry != 0 || x > math.MaxInt64 {
			continue // beyond int64: probability below exp(−2^63/t)
		}
		negative := src.Uint64()&1 == 1
		if negative && x == 0 {
			continue
		}
		if negative {
			return -int64(x)
		}
		return int64(x)
	}
}

// discreteGaussian draws X with P(X = x) ∝ exp(−x²/(2σ²)) over the integers
// for a rational variance σ² = sigma2 > 0 (CKS Algorithm 3): a discrete
// Laplace proposal of scale t = ⌊σ⌋ + 1, accepted with probability
// exp(−(|Y| − σ²/t)²/(2σ²)). The acceptance probability is evaluated
// exactly in big-integer arithmetic.
type discreteGaussian struct {
	t        uint64
	num, den *big.Int // σ² = num/den
	d        *big.Int // 2·num·den·t²
	a, b     *big.Int // scratch
	exp      *bigBernoulliExp
}

func newDiscreteGaussian(sigma2 *big.Rat) *discreteGaussian {
	f, _ := sigma2.Float64()
	t := uint64(math.Floor(math.Sqrt(f))) + 1
	g := &discreteGaussian{t: t, num: new(big.Int).Set(sigma2.Num()), den: new(big.Int).Set(sigma2.Denom()),
		a: new(big.Int), b: new(big.Int), d: new(big.Int), exp: newBigBernoulliExp()}
	// denominator of γ: 2·σ²·t² with σ² = num/den, so
	// γ = (|Y|·t·den − num)² / (2·num·den·t²).
	tt := new(big.Int).SetUint64(t)
	g.d.Mul(g.num, g.den)
	g.d.Mul(g.d, tt)
	g.d.Mul(g.d, tt)
	g.d.Lsh(g.d, 1)
	return g
}

func (g *discreteGaussian) draw(src *randx.Source) int64 {
	for {
		y := discreteLaplace(src, g.t)
		ay := y
		if ay < 0 {
			ay = -ay
		}
		g.a.SetInt64(ay)
		g.a.Mul(g.a, g.b.SetUint64(g.t))
		g.a.Mul(g.a, g.den)
		g.a.Sub(g.a, g.num)
		g.a.Mul(g.a, g.a) // numerator of γ
		if g.exp.accept(src, g.a, g.d) {
			return y
		}
	}
}

// bigBernoulliExp draws Bernoulli(exp(−a/d)) for big non-negative
// rationals a/d, reusing its scratch integers between draws.
type bigBernoulliExp struct {
	q, r, u *big.Int
	words   []big.Word // u's digits, reused between draws
}

func newBigBernoulliExp() *bigBernoulliExp {
	return &bigBernoulliExp{q: new(big.Int), r: new(big.Int), u: new(big.Int)}
}

// accept returns true with probability exp(−a/d) (a ≥ 0, d > 0):
// ⌊a/d⌋ Bernoulli(e^{-1}) trials, then CKS Algorithm 1 on the remainder.
func (b *bigBernoulliExp) accept(src *randx.Source, a, d *big.Int) bool {
	b.q.QuoRem(a, d, b.r)
	if !b.q.IsUint64() {
		return false // exp(−γ) < exp(−2^64)
	}
	for n := b.q.Uint64(); n > 0; n-- {
		if !bernoulliExpFrac(src, 1, 1) {
			return false
		}
	}
	k := uint64(1)
	for b.below(src, d) && src.Uint64N(k) == 0 {
		k++
	}
	return k%2 == 1
}

// below returns true with probability r/d for the remainder r.
func (b *bigBernoulliExp) below(src *randx.Source, d *big.Int) bool {
	uniformBig(src, d, b.u, &b.words)
	return b.u.Cmp(b.r) < 0
}

// uniformBig sets out to a uniform integer in [0, n) by rejection on
// n's bit length, drawing into *scratch (grown as needed). out aliases the
// scratch words afterwards, so each call must consume out before the next.
func uniformBig(src *randx.Source, n, out *big.Int, scratch *[]big.Word) {
	bitLen := n.BitLen()
	words := (bitLen + bits.UintSize - 1) / bits.UintSize
	if cap(*scratch) < words {
		*scratch = make([]big.Word, words)
	}
	buf := (*scratch)[:words]
	top := uint(bitLen % bits.UintSize)
	for {
		for i := range buf {
			buf[i] = big.Word(src.Uint64())
		}
		if top != 0 {
			buf[words-1] &= big.Word(1)<<top - 1
		}
		out.SetBits(buf)
		if out.Cmp(n) < 0 {
			return
		}
	}
}

// polya draws from the negative binomial NB(r, p) with real shape r > 0 and
// p = exp(−1/t), as a Poisson mixture over a Gamma(r, p/(1−p)) rate. The
// difference of two independent draws with r = 1/k is one of k shares whose
// sum is exactly discrete Laplace of scale t (the discrete Laplace law is
// infinitely divisible: Goryczka & Xiong 2017). The mixture is drawn in
// floating point, but its result is an integer that never touches the
// private value, so its rounding leaks nothing; it only makes the share's
// law approximate to within the samplers' precision.
func polya(src *randx.Source, r float64, t uint64) int64 {
	p := math.Exp(-1 / float64(t))
	rate := gammaDraw(src, r, p/(1-p))
	return poissonDraw(src, rate)
}

func gammaDraw(src *randx.Source, shape, scale float64) float64 {
	return distuv.Gamma{Alpha: shape, Beta: 1 / scale, Src: src}.Rand()
}

func poissonDraw(src *randx.Source, rate float64) int64 {
	if rate <= 0 {
		return 0
	}
	return int64(distuv.Poisson{Lambda: rate, Src: src}.Rand())
}
