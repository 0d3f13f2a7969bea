package dlpa

import (
	"errors"
	"fmt"
	"math"
	"math/big"

	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/randx"
)

// signs are s_j: Y1² + Y2² − Y3² − Y4².
var signs = [4]int64{1, 1, -1, -1}

// FineBits is how much finer than a release's grid a caller should draw
// η̂ (see the package documentation): λ = 2^FineBits·t for a release of
// discrete Laplace scale t grid steps, and the released value rounded to
// steps of 2^FineBits.
const FineBits = 16

// Share is one party's four integer shares ŷ_1k..ŷ_4k. It is secret.
type Share struct {
	Y [4]int64
}

// unitL2 makes dp.PlanGaussian choose the integer grid: with one
// coordinate its grid is the largest power of two ≤ l2·2^-20.
const unitL2 = 1 << 20

// maxShareSigma keeps the share law on the integer grid (dp.PlanGaussian
// coarsens its grid beyond 2^40 grid steps).
const maxShareSigma = 1 << 39

// ShareLaw is the law of one share for a combined noise of Laplace scale
// λ (in integer units of η̂) over K parties: the discrete Gaussian on the
// integers of variance λ/(2K), an exact sampler (dp's, Canonne, Kamath &
// Steinke 2020) behind dp.Noiser.Shares with one part. It is a
// dp.GridNoise on the grid 1 whose σ is set to √(λ/(2K)) (to within
// 10^-12 relative, never below).
func ShareLaw(lambda float64, parties int) (dp.GridNoise, error) {
	if err := checkLambda(lambda); err != nil {
		return dp.GridNoise{}, err
	}
	if parties < 1 {
		return dp.GridNoise{}, fmt.Errorf("dlpa: %d parties, need at least 1", parties)
	}
	target := math.Sqrt(lambda / (2 * float64(parties)))
	if target > maxShareSigma {
		return dp.GridNoise{}, fmt.Errorf("dlpa: share σ = %g is too large for the integer grid (λ = %g); at most 2^39", target, lambda)
	}
	// dp.PlanGaussian inflates σ by its rounding and profile margins; undo
	// them (on the integer grid there is nothing to round), then make sure
	// no floating-point slack leaves σ below the target.
	sigma := target
	var pl dp.GridNoise
	for range 4 {
		var err error
		if pl, err = dp.PlanGaussian(unitL2, sigma, 1); err != nil {
			return dp.GridNoise{}, fmt.Errorf("dlpa: %w", err)
		}
		if pl.Grid != 1 {
			return dp.GridNoise{}, fmt.Errorf("dlpa: share σ = %g is too large for the integer grid (λ = %g)", target, lambda)
		}
		got := pl.Units()
		if got >= target && got <= target*(1+1e-12) {
			return pl, nil
		}
		sigma *= target / got
		if got < target {
			sigma = math.Nextafter(sigma, math.Inf(1))
		}
	}
	if pl.Units() < target {
		return dp.GridNoise{}, fmt.Errorf("dlpa: could not set the share σ to %g", target)
	}
	return pl, nil
}

// DrawShare draws party k's four shares, each from ShareLaw(λ, K): the
// sum over the K parties of each Y_j is discrete Gaussian of variance λ/2
// up to Kairouz, Liu & Steinke's (2021) τ, negligible at these variances.
func DrawShare(nz *dp.Noiser, lambda float64, parties int) (Share, error) {
	if nz == nil {
		return Share{}, errors.New("dlpa: nil noiser")
	}
	law, err := ShareLaw(lambda, parties)
	if err != nil {
		return Share{}, err
	}
	var y [4]int64
	nz.Shares(law, 1, y[:])
	return Share{Y: y}, nil
}

func checkLambda(lambda float64) error {
	if !(lambda > 0) || math.IsInf(lambda, 0) {
		return fmt.Errorf("dlpa: Laplace scale λ = %v is not a positive finite number", lambda)
	}
	return nil
}

// CombinePlain returns η̂ = Σ_j s_j (Σ_k ŷ_jk)², exactly what the encrypted
// computation yields for these shares (for tests and simulations).
func CombinePlain(shares []Share) *big.Int {
	total := new(big.Int)
	for j := range 4 {
		y := new(big.Int)
		for _, s := range shares {
			y.Add(y, big.NewInt(s.Y[j]))
		}
		y.Mul(y, y)
		if signs[j] < 0 {
			y.Neg(y)
		}
		total.Add(total, y)
	}
	return total
}

// Options configures one party.
type Options struct {
	// PublicKey is the parties' shared Paillier key.
	PublicKey *paillier.PublicKey
	// Parties is K ≥ 2; Index is this party's number in 1..K.
	Parties, Index int
	// Lambda is the Laplace scale λ of the combined noise η̂, in its
	// integer units.
	Lambda float64
	// Random defaults to randx.NewSecure(). It draws the shares and the
	// encryption randomness.
	Random *randx.Source
}

// Party is one party's side of the encrypted DLPA computation.
type Party struct {
	pk      *paillier.PublicKey
	parties int
	index   int
	random  *randx.Source
	share   Share
	quant   [4]*big.Int // ŷ_j
}

// New validates opts and draws the party's shares.
func New(opts Options) (*Party, error) {
	if opts.PublicKey == nil || opts.PublicKey.N == nil {
		return nil, errors.New("dlpa: Options.PublicKey is nil")
	}
	if opts.Parties < 2 || opts.Parties > 1000 {
		return nil, fmt.Errorf("dlpa: %d parties outside [2, 1000]", opts.Parties)
	}
	if opts.Index < 1 || opts.Index > opts.Parties {
		return nil, fmt.Errorf("dlpa: party index %d outside [1, %d]", opts.Index, opts.Parties)
	}
	if err := checkLambda(opts.Lambda); err != nil {
		return nil, err
	}
	random := opts.Random
	if random == nil {
		random = randx.NewSecure()
	}
	if err := checkCapacity(opts.PublicKey, opts.Lambda); err != nil {
		return nil, err
	}
	share, err := DrawShare(dp.NewNoiser(random), opts.Lambda, opts.Parties)
	if err != nil {
		return nil, err
	}
	p := &Party{pk: opts.PublicKey, parties: opts.Parties, index: opts.Index, random: random, share: share}
	for j, y := range share.Y {
		p.quant[j] = big.NewInt(y)
	}
	return p, nil
}

// checkCapacity makes sure the plaintext η̂ stays below N/3 even for sums
// of shares as large as 40 standard deviations (probability < 10^−300):
// |η̂| ≤ 2·(40·√(λ/2))².
func checkCapacity(pk *paillier.PublicKey, lambda float64) error {
	yBits := math.Log2(40*math.Sqrt(lambda/2) + 1)
	if need := 2*yBits + 3; need >= float64(pk.Bits()-2) {
		return fmt.Errorf("dlpa: noise of %.0f bits does not fit a %d-bit key: lower λ %v", need, pk.Bits(), lambda)
	}
	return nil
}

// Share returns the party's secret shares (for tests and simulations).
func (p *Party) Share() Share { return p.share }

// SharesMessage is round 1: Enc(ŷ_1k), ..., Enc(ŷ_4k) from party From, for
// the parties with a larger index. Values are ciphertexts, validated by
// the receiver against the shared key.
type SharesMessage struct {
	From        int
	Ciphertexts [4]*big.Int
}

// Commit encrypts the party's shares.
func (p *Party) Commit() (*SharesMessage, error) {
	r := paillier.NewReader(p.random)
	m := &SharesMessage{From: p.index}
	for j, q := range p.quant {
		c, err := p.pk.Encrypt(r, q)
		if err != nil {
			return nil, fmt.Errorf("dlpa: %w", err)
		}
		m.Ciphertexts[j] = c.Value()
	}
	return m, nil
}

// Contribution is round 2: party From's ciphertext C_From for S.
type Contribution struct {
	From       int
	Ciphertext *big.Int
}

// Contribute returns C_l = Π_j Enc(s_j ŷ_jl²) · Π_{k<l} Enc(ŷ_jk)^{2 s_j ŷ_jl}
// from the round-1 messages of every party k < l (messages from itself and
// from parties with a larger index are ignored, so a broadcast can be
// passed as is; missing or duplicate ones are an error).
func (p *Party) Contribute(msgs []*SharesMessage) (*Contribution, error) {
	lower, err := p.lowerMessages(msgs)
	if err != nil {
		return nil, err
	}
	r := paillier.NewReader(p.random)
	var acc *paillier.Ciphertext
	for j, q := range p.quant {
		sq := new(big.Int).Mul(q, q)
		sq.Mul(sq, big.NewInt(signs[j]))
		c, err := p.pk.Encrypt(r, sq)
		if err != nil {
			return nil, fmt.Errorf("dlpa: %w", err)
		}
		acc = addTo(p.pk, acc, c)
		cross := new(big.Int).Mul(q, big.NewInt(2*signs[j]))
		for _, m := range lower {
			acc = p.pk.Add(acc, p.pk.MulPlain(m[j], cross))
		}
	}
	return &Contribution{From: p.index, Ciphertext: acc.Value()}, nil
}

func addTo(pk *paillier.PublicKey, acc, c *paillier.Ciphertext) *paillier.Ciphertext {
	if acc == nil {
		return c
	}
	return pk.Add(acc, c)
}

// lowerMessages validates the messages of parties 1..index−1.
func (p *Party) lowerMessages(msgs []*SharesMessage) ([][4]*paillier.Ciphertext, error) {
	lower := make([][4]*paillier.Ciphertext, p.index-1)
	seen := make([]bool, p.index-1)
	for _, m := range msgs {
		if m == nil {
			return nil, errors.New("dlpa: nil shares message")
		}
		if m.From < 1 || m.From > p.parties {
			return nil, fmt.Errorf("dlpa: shares message from party %d of %d", m.From, p.parties)
		}
		if m.From >= p.index {
			continue
		}
		if seen[m.From-1] {
			return nil, fmt.Errorf("dlpa: two shares messages from party %d", m.From)
		}
		seen[m.From-1] = true
		for j, v := range m.Ciphertexts {
			c, err := p.pk.NewCiphertext(v)
			if err != nil {
				return nil, fmt.Errorf("dlpa: party %d's ciphertext %d: %w", m.From, j+1, err)
			}
			lower[m.From-1][j] = c
		}
	}
	for k, ok := range seen {
		if !ok {
			return nil, fmt.Errorf("dlpa: no shares message from party %d", k+1)
		}
	}
	return lower, nil
}

// Combine is S's step: the product of one contribution from each of the
// parties 1..K, an encryption of the integer η̂.
func Combine(pk *paillier.PublicKey, parties int, contributions []*Contribution) (*paillier.Ciphertext, error) {
	if parties < 2 || len(contributions) != parties {
		return nil, fmt.Errorf("dlpa: %d contributions for %d parties", len(contributions), parties)
	}
	seen := make([]bool, parties)
	var acc *paillier.Ciphertext
	for _, c := range contributions {
		if c == nil {
			return nil, errors.New("dlpa: nil contribution")
		}
		if c.From < 1 || c.From > parties || seen[c.From-1] {
			return nil, fmt.Errorf("dlpa: contribution from party %d is out of range [1, %d] or a duplicate", c.From, parties)
		}
		seen[c.From-1] = true
		ct, err := pk.NewCiphertext(c.Ciphertext)
		if err != nil {
			return nil, fmt.Errorf("dlpa: contribution of party %d: %w", c.From, err)
		}
		acc = addTo(pk, acc, ct)
	}
	return acc, nil
}
