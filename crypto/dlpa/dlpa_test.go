package dlpa

import (
	"crypto/rand"
	"encoding"
	"math"
	"math/big"
	"testing"

	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/internal/testenv"
	"github.com/dppub/dppub/randx"
)

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
// K = 3 parties' integer shares, against Lap(λ) at λ = 1000 (the integer
// lattice moves the CDF by at most 1/(2λ) = 5e-4, far below the
// threshold). The threshold gives a false-rejection probability of at most
// 1e-4 (DKW–Massart).
func TestPlainCombinationIsLaplace(t *testing.T) {
	const (
		n       = 20000
		parties = 3
		lambda  = 1000.0
		alpha   = 1e-4
	)
	nz := dp.NewNoiser(randx.NewSeeded(2024))
	sample := make([]float64, n)
	shares := make([]Share, parties)
	for i := range sample {
		for k := range shares {
			s, err := DrawShare(nz, lambda, parties)
			if err != nil {
				t.Fatal(err)
			}
			shares[k] = s
		}
		eta := CombinePlain(shares)
		if !eta.IsInt64() {
			t.Fatalf("η̂ = %v", eta)
		}
		sample[i] = float64(eta.Int64())
	}
	eps := dkwThreshold(n, alpha) + 1/(2*lambda)
	d := testenv.KSDistance(sample, laplaceCDF(lambda))
	t.Logf("KS distance to Lap(%v): %.4f (threshold %.4f)", lambda, d, eps)
	if d > eps {
		t.Errorf("KS distance %.4f to Lap(%v) exceeds %.4f (false-rejection probability ≤ 1e-4)", d, lambda, eps)
	}
	// Power check: the same sample must be told apart from a 15% wrong scale.
	if d := testenv.KSDistance(sample, laplaceCDF(1.15*lambda)); d <= eps {
		t.Errorf("KS test did not reject Lap(%v) (distance %.4f ≤ %.4f): the test has no power", 1.15*lambda, d, eps)
	}
}

// The shares are integers of variance λ/(2K) (two-sided χ² bound at z = 5
// on 20000 draws: tolerance 5·√(2/20000) = 5%).
func TestShareLaw(t *testing.T) {
	const n, parties, lambda = 5000, 3, 6e6
	law, err := ShareLaw(lambda, parties)
	if err != nil {
		t.Fatal(err)
	}
	want := lambda / (2 * parties)
	if law.Grid != 1 || law.Units()*law.Units() < want || law.Units()*law.Units() > want*(1+1e-11) {
		t.Fatalf("law on grid %v with variance %v, want %v", law.Grid, law.Units()*law.Units(), want)
	}
	nz := dp.NewNoiser(randx.NewSeeded(3))
	v := 0.0
	for range n {
		s, err := DrawShare(nz, lambda, parties)
		if err != nil {
			t.Fatal(err)
		}
		for _, y := range s.Y {
			v += float64(y) * float64(y)
		}
	}
	v /= 4 * n
	if math.Abs(v/want-1) > 5*math.Sqrt(2.0/(4*n)) {
		t.Fatalf("share variance %v, want %v", v, want)
	}
}

// The exact law of η̂ for Y_j of variance v = 500 (λ = 1000): its log-pmf
// strays from the Laplace slope by about 2 at the unit scale (sums of two
// squares), and by less than 0.01 once averaged over windows of 256
// integers, which is why callers draw η̂ 2^FineBits finer than their grid
// and round (see the package documentation). Deterministic (no sampling).
func TestPmfIsRoughAtTheUnitScaleOnly(t *testing.T) {
	const v = 500.0
	spread := pmfSpread(v, []int{1, 256})
	t.Logf("log-pmf spread around the Laplace slope: %.4f (L = 1), %.4f (L = 256)", spread[0], spread[1])
	if spread[0] < 1 {
		t.Errorf("unit-scale spread %v: the lattice effect the documentation describes is gone", spread[0])
	}
	if spread[1] > 0.01 {
		t.Errorf("spread %v after averaging over 256 integers, documented ≈ 0.005", spread[1])
	}
}

// pmfSpread computes P(η̂ = e) for 0 ≤ e ≤ 4096 exactly (discrete
// Gaussian Y of variance v, truncated at 12 sd) and, per window length L,
// the range of log P(window at kL) + kL/(2v) over k ≥ 1.
func pmfSpread(v float64, windows []int) []float64 {
	r := int(12 * math.Sqrt(v))
	py := make([]float64, 2*r+1)
	z := 0.0
	for y := -r; y <= r; y++ {
		py[y+r] = math.Exp(-float64(y*y) / (2 * v))
		z += py[y+r]
	}
	b := int(40 * v)
	q := make([]float64, b+1)
	for a := -r; a <= r; a++ {
		for c := -r; c <= r; c++ {
			if s := a*a + c*c; s <= b {
				q[s] += py[a+r] * py[c+r] / (z * z)
			}
		}
	}
	const e = 4096
	pmf := make([]float64, e+1)
	for d := 0; d <= e; d++ {
		for x := 0; x+d <= b; x++ {
			pmf[d] += q[x+d] * q[x]
		}
	}
	out := make([]float64, len(windows))
	for i, l := range windows {
		lo, hi := math.Inf(1), math.Inf(-1)
		for k := 1; (k+1)*l+l/2 <= e; k++ {
			s := 0.0
			for d := k*l - l/2; d < k*l-l/2+l; d++ {
				s += pmf[d]
			}
			x := math.Log(s) + float64(k*l)/(2*v)
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
		out[i] = hi - lo
	}
	return out
}

func TestDrawShareRejects(t *testing.T) {
	nz := dp.NewNoiser(randx.NewSeeded(1))
	for _, lambda := range []float64{0, -1, math.NaN(), math.Inf(1), 1e30} {
		if _, err := DrawShare(nz, lambda, 2); err == nil {
			t.Errorf("λ = %v accepted", lambda)
		}
	}
	if _, err := DrawShare(nz, 1, 0); err == nil {
		t.Error("0 parties accepted")
	}
	if _, err := DrawShare(nil, 1, 2); err == nil {
		t.Error("nil noiser accepted")
	}
}

// TestEncryptedEndToEnd: K = 3 parties with a 3-of-3 additive key (512
// bits, INSECURE), S combines, the parties decrypt jointly; η̂ equals the
// plain integer combination of the same shares exactly.
func TestEncryptedEndToEnd(t *testing.T) {
	const parties = 3
	pk, keyShares, err := paillier.DealInsecureTest(rand.Reader, 512, parties)
	if err != nil {
		t.Fatal(err)
	}
	src := randx.NewSeeded(77)
	for _, lambda := range []float64{1, 40, 1e12} {
		ps := make([]*Party, parties)
		for k := range ps {
			p, err := New(Options{PublicKey: pk, Parties: parties, Index: k + 1, Lambda: lambda, Random: src.Child()})
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
			msgs = append(msgs, overWire(t, m))
		}
		var contribs []*Contribution
		for _, p := range ps {
			c, err := p.Contribute(msgs)
			if err != nil {
				t.Fatal(err)
			}
			contribs = append(contribs, overWire(t, c))
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
		eta := pk.Signed(m)
		var shares []Share
		for _, p := range ps {
			shares = append(shares, p.Share())
		}
		if plain := CombinePlain(shares); eta.Cmp(plain) != 0 {
			t.Errorf("λ = %v: decrypted η̂ = %v, plain combination %v", lambda, eta, plain)
		}
		if lambda > 1 && eta.Sign() == 0 {
			t.Errorf("λ = %v: η̂ is exactly 0: noise missing", lambda)
		}
	}
}

// overWire sends m through its binary encoding, as a message travels.
func overWire[T any, P interface {
	*T
	encoding.BinaryMarshaler
	encoding.BinaryUnmarshaler
}](t *testing.T, m P) P {
	t.Helper()
	b, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	out := P(new(T))
	if err := out.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	return out
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
		{PublicKey: pk, Parties: 2, Index: 1, Lambda: 1e70}, // does not fit 256 bits
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
