package dlpa

import (
	"crypto/rand"
	"math"
	"math/big"
	"sort"
	"testing"

	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/randx"
)

// ksStatistic returns the Kolmogorov–Smirnov distance sup|F_n − F|.
func ksStatistic(sample []float64, cdf func(float64) float64) float64 {
	s := append([]float64(nil), sample...)
	sort.Float64s(s)
	n := float64(len(s))
	d := 0.0
	for i, x := range s {
		f := cdf(x)
		d = math.Max(d, math.Max(f-float64(i)/n, float64(i+1)/n-f))
	}
	return d
}

// dkwThreshold is ε with P(sup|F_n − F| > ε) ≤ α for a continuous F, by the
// Dvoretzky–Kiefer–Wolfowitz inequality with Massart's constant:
// α = 2·exp(−2nε²). Exact for every n, no asymptotics.
func dkwThreshold(n int, alpha float64) float64 {
	return math.Sqrt(math.Log(2/alpha) / (2 * float64(n)))
}

func laplaceCDF(b float64) func(float64) float64 {
	return func(x float64) float64 {
		if x < 0 {
			return 0.5 * math.Exp(x/b)
		}
		return 1 - 0.5*math.Exp(-x/b)
	}
}

// TestPlainCombinationIsLaplace: 20000 seeded draws, each the combination of
// K = 3 parties' shares, against Lap(λ). The threshold gives a
// false-rejection probability of at most 1e-4 (DKW–Massart).
func TestPlainCombinationIsLaplace(t *testing.T) {
	const (
		n       = 20000
		parties = 3
		lambda  = 2.5
		alpha   = 1e-4
	)
	src := randx.NewSeeded(2024)
	sample := make([]float64, n)
	shares := make([]Share, parties)
	for i := range sample {
		for k := range shares {
			s, err := DrawShare(src, lambda, parties)
			if err != nil {
				t.Fatal(err)
			}
			shares[k] = s
		}
		sample[i] = CombinePlain(shares)
	}
	eps := dkwThreshold(n, alpha)
	d := ksStatistic(sample, laplaceCDF(lambda))
	t.Logf("KS distance to Lap(%v): %.4f (threshold %.4f)", lambda, d, eps)
	if d > eps {
		t.Errorf("KS distance %.4f to Lap(%v) exceeds %.4f (false-rejection probability ≤ 1e-4)", d, lambda, eps)
	}
	// Power check: the same sample must be told apart from a 15% wrong scale
	// (deterministic under the seed; with the true scale ≈ 0.03 away, a
	// miss would need a deviation of ~2× the threshold).
	if d := ksStatistic(sample, laplaceCDF(1.15*lambda)); d <= eps {
		t.Errorf("KS test did not reject Lap(%v) (distance %.4f ≤ %.4f): the test has no power", 1.15*lambda, d, eps)
	}
}

func TestDrawShareRejects(t *testing.T) {
	src := randx.NewSeeded(1)
	for _, lambda := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if _, err := DrawShare(src, lambda, 2); err == nil {
			t.Errorf("λ = %v accepted", lambda)
		}
	}
	if _, err := DrawShare(src, 1, 0); err == nil {
		t.Error("0 parties accepted")
	}
}

// TestEncryptedEndToEnd: K = 3 parties with a 3-of-3 additive key (512
// bits, INSECURE), S combines, the parties decrypt jointly; η equals the
// exact fixed-point combination of the same shares, and the float one to
// within the rounding bound.
func TestEncryptedEndToEnd(t *testing.T) {
	const parties = 3
	pk, keyShares, err := paillier.DealInsecureTest(rand.Reader, 512, parties)
	if err != nil {
		t.Fatal(err)
	}
	src := randx.NewSeeded(77)
	for trial := range 3 {
		lambda := []float64{1, 40, 0.01}[trial]
		ps := make([]*Party, parties)
		for k := range ps {
			p, err := New(Options{PublicKey: pk, Parties: parties, Index: k + 1, Lambda: lambda, FracBits: 24, Random: src.Child()})
			if err != nil {
				t.Fatal(err)
			}
			ps[k] = p
		}
		var msgs []*SharesMessage
		for _, p := range ps[:parties-1] {
			m, err := p.Commit()
			if err != nil {
				t.Fatal(err)
			}
			msgs = append(msgs, wireShares(t, m))
		}
		var contribs []*Contribution
		for _, p := range ps {
			c, err := p.Contribute(msgs)
			if err != nil {
				t.Fatal(err)
			}
			contribs = append(contribs, wireContribution(t, c))
		}
		encEta, err := Combine(pk, parties, contribs)
		if err != nil {
			t.Fatal(err)
		}
		var parts []*paillier.PartialDecryption
		for _, ks := range keyShares {
			pd, err := ks.PartialDecrypt(nil, encEta)
			if err != nil {
				t.Fatal(err)
			}
			parts = append(parts, pd)
		}
		m, err := paillier.Combine(pk, keyShares[0].Sharing, encEta, parts)
		if err != nil {
			t.Fatal(err)
		}
		eta, err := ResultEncoder(24).Decode(pk, m)
		if err != nil {
			t.Fatal(err)
		}
		var shares []Share
		for _, p := range ps {
			shares = append(shares, p.Share())
		}
		exact, err := CombineQuantized(shares, 24)
		if err != nil {
			t.Fatal(err)
		}
		if eta != exact {
			t.Errorf("λ = %v: decrypted η = %v, fixed-point combination %v", lambda, eta, exact)
		}
		plain := CombinePlain(shares)
		// Each |Y_j| changes by ≤ K·2^−25, so Y_j² by ≤ 2|Y_j|K·2^−25 + tiny.
		if tol := 4 * 2 * (math.Sqrt(lambda)*10 + 1) * parties * math.Ldexp(1, -25); math.Abs(eta-plain) > tol {
			t.Errorf("λ = %v: η = %v vs float combination %v (|Δ| > %g)", lambda, eta, plain, tol)
		}
		if eta == 0 {
			t.Errorf("λ = %v: η is exactly 0: noise missing", lambda)
		}
	}
}

func wireShares(t *testing.T, m *SharesMessage) *SharesMessage {
	t.Helper()
	b, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var out SharesMessage
	if err := out.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	return &out
}

func wireContribution(t *testing.T, c *Contribution) *Contribution {
	t.Helper()
	b, err := c.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var out Contribution
	if err := out.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	return &out
}

func TestProtocolRejects(t *testing.T) {
	sk, err := paillier.GenerateInsecureTestKey(rand.Reader, 256)
	if err != nil {
		t.Fatal(err)
	}
	pk := sk.Public()
	bad := []Options{
		{Parties: 2, Index: 1, Lambda: 1},
		{PublicKey: pk, Parties: 1, Index: 1, Lambda: 1},
		{PublicKey: pk, Parties: 2, Index: 3, Lambda: 1},
		{PublicKey: pk, Parties: 2, Index: 1, Lambda: -1},
		{PublicKey: pk, Parties: 2, Index: 1, Lambda: 1, FracBits: 200},
		{PublicKey: pk, Parties: 2, Index: 1, Lambda: 1e30, FracBits: 100}, // does not fit 256 bits
	}
	for _, o := range bad {
		if _, err := New(o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
	p1, _ := New(Options{PublicKey: pk, Parties: 3, Index: 1, Lambda: 1, Random: randx.NewSeeded(1)})
	p3, _ := New(Options{PublicKey: pk, Parties: 3, Index: 3, Lambda: 1, Random: randx.NewSeeded(3)})
	m1, _ := p1.Commit()
	if _, err := p3.Contribute([]*SharesMessage{m1}); err == nil {
		t.Error("party 3 contributed without party 2's message")
	}
	if _, err := p3.Contribute([]*SharesMessage{m1, m1}); err == nil {
		t.Error("duplicate message accepted")
	}
	forged := &SharesMessage{From: 2, Ciphertexts: [4]*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(1), big.NewInt(1)}}
	if _, err := p3.Contribute([]*SharesMessage{m1, forged}); err == nil {
		t.Error("invalid ciphertext accepted")
	}
	c1, _ := p1.Contribute(nil)
	if _, err := Combine(pk, 3, []*Contribution{c1, c1, c1}); err == nil {
		t.Error("duplicate contributions combined")
	}
	if _, err := Combine(pk, 3, []*Contribution{c1}); err == nil {
		t.Error("missing contributions combined")
	}
	var m SharesMessage
	b, _ := m1.MarshalBinary()
	if err := m.UnmarshalBinary(b[:len(b)-1]); err == nil {
		t.Error("truncated message accepted")
	}
}
