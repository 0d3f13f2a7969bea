package dlpa

import (
	"errors"
	"fmt"
	"math"
	"math/big"

	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/randx"
)

// signs are s_j: Y1² + Y2² − Y3² − Y4².
var signs = [4]int64{1, 1, -1, -1}

// Share is one party's four Gaussian shares y_1k..y_4k. It is secret.
type Share struct {
	Y [4]float64
}

// DrawShare draws party k's shares, each N(0, λ/(2K)) (variance), so that the
// sum over K parties is N(0, λ/2) and the combination is Lap(λ).
func DrawShare(src *randx.Source, lambda float64, parties int) (Share, error) {
	if err := checkLambda(lambda); err != nil {
		return Share{}, err
	}
	if parties < 1 {
		return Share{}, fmt.Errorf("dlpa: %d parties, need at least 1", parties)
	}
	if src == nil {
		return Share{}, errors.New("dlpa: nil random source")
	}
	sd := math.Sqrt(lambda / (2 * float64(parties)))
	var s Share
	for j := range s.Y {
		s.Y[j] = sd * src.NormFloat64()
	}
	return s, nil
}

func checkLambda(lambda float64) error {
	if !(lambda > 0) || math.IsInf(lambda, 0) {
		return fmt.Errorf("dlpa: Laplace scale λ = %v is not a positive finite number", lambda)
	}
	return nil
}

// CombinePlain returns Σ_j s_j (Σ_k y_jk)² in floating point: the Lap(λ)
// value the parties' shares define (for tests and simulations).
func CombinePlain(shares []Share) float64 {
	var y [4]float64
	for _, s := range shares {
		for j := range y {
			y[j] += s.Y[j]
		}
	}
	return y[0]*y[0] + y[1]*y[1] - y[2]*y[2] - y[3]*y[3]
}

// CombineQuantized returns exactly what the encrypted computation yields
// for these shares: Σ_j s_j (Σ_k ŷ_jk)² / 2^{2f} with ŷ = round(y·2^f),
// converted to float64 only at the end.
func CombineQuantized(shares []Share, fracBits int) (float64, error) {
	enc := paillier.Encoder{FracBits: fracBits}
	total := new(big.Int)
	for j := range 4 {
		y := new(big.Int)
		for _, s := range shares {
			q, err := enc.Quantize(s.Y[j])
			if err != nil {
				return 0, fmt.Errorf("dlpa: %w", err)
			}
			y.Add(y, q)
		}
		y.Mul(y, y)
		if signs[j] < 0 {
			y.Neg(y)
		}
		total.Add(total, y)
	}
	f := new(big.Float).SetInt(total)
	x, _ := f.SetMantExp(f, -2*fracBits).Float64()
	return x, nil
}

// DefaultFracBits is the default fixed-point precision of the shares.
const DefaultFracBits = 32

// ResultEncoder decodes the decrypted noise: 2·fracBits fractional bits.
func ResultEncoder(fracBits int) paillier.Encoder {
	return paillier.Encoder{FracBits: 2 * fracBits}
}

// Options configures one party.
type Options struct {
	// PublicKey is the parties' shared Paillier key.
	PublicKey *paillier.PublicKey
	// Parties is K ≥ 2; Index is this party's number in 1..K.
	Parties, Index int
	// Lambda is the Laplace scale λ of the combined noise.
	Lambda float64
	// FracBits is the fixed-point precision f of the shares, in [1, 128];
	// 0 means DefaultFracBits.
	FracBits int
	// Random defaults to randx.NewSecure(). It draws the shares and the
	// encryption randomness.
	Random *randx.Source
}

// Party is one party's side of the encrypted DLPA computation.
type Party struct {
	pk       *paillier.PublicKey
	parties  int
	index    int
	fracBits int
	random   *randx.Source
	share    Share
	quant    [4]*big.Int // ŷ_j
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
	fracBits := opts.FracBits
	if fracBits == 0 {
		fracBits = DefaultFracBits
	}
	if fracBits < 1 || fracBits > 128 {
		return nil, fmt.Errorf("dlpa: FracBits %d outside [1, 128]", opts.FracBits)
	}
	random := opts.Random
	if random == nil {
		random = randx.NewSecure()
	}
	share, err := DrawShare(random, opts.Lambda, opts.Parties)
	if err != nil {
		return nil, err
	}
	p := &Party{pk: opts.PublicKey, parties: opts.Parties, index: opts.Index, fracBits: fracBits, random: random, share: share}
	enc := paillier.Encoder{FracBits: fracBits}
	for j, y := range share.Y {
		q, err := enc.Quantize(y)
		if err != nil {
			return nil, fmt.Errorf("dlpa: %w", err)
		}
		p.quant[j] = q
	}
	if err := p.checkCapacity(opts.Lambda); err != nil {
		return nil, err
	}
	return p, nil
}

// checkCapacity makes sure the plaintext η̂ stays below N/3 even for sums
// of shares as large as 40 standard deviations (probability < 10^−300):
// |η̂| ≤ 2·(40·√(λ/2)·2^f)².
func (p *Party) checkCapacity(lambda float64) error {
	yBits := math.Log2(40*math.Sqrt(lambda/2)+1) + float64(p.fracBits)
	if need := 2*yBits + 3; need >= float64(p.pk.Bits()-2) {
		return fmt.Errorf("dlpa: noise of %.0f bits does not fit a %d-bit key: lower FracBits %d or λ %v", need, p.pk.Bits(), p.fracBits, lambda)
	}
	return nil
}

// Share returns the party's secret shares (for tests and simulations).
func (p *Party) Share() Share { return p.share }

// FracBits returns the shares' fixed-point precision f.
func (p *Party) FracBits() int { return p.fracBits }

// SharesMessage is round 1: Enc(ŷ_1k), ..., Enc(ŷ_4k) from party From, for
// the parties with a larger index. Values are ciphertexts, validated by
// the receiver against the shared key.
type SharesMessage struct {
	From        int
	Ciphertexts [4]*big.Int
}

// Commit encrypts the party's quantized shares.
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
// parties 1..K, an encryption of η̂ = η·2^{2f}.
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
