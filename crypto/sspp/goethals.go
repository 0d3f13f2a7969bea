package sspp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/dppub/dppub/crypto/internal/wire"
	"io"
	"math/big"
	"runtime"
	"sync"

	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/randx"
)

// GoethalsAliceOptions configures Alice, the key owner.
type GoethalsAliceOptions struct {
	// Key is Alice's own Paillier key (not the parties' shared key).
	// Its public part is precomputed (paillier.PublicKey.Precompute) if it
	// is not already.
	Key *paillier.PrivateKey
	// Random defaults to randx.NewSecure().
	Random *randx.Source
	// Workers bounds parallel encryption; 0 means runtime.GOMAXPROCS(0).
	Workers int
}

// GoethalsAlice is Alice's side of the Goethals et al. protocol. It is not
// safe for concurrent use.
type GoethalsAlice struct {
	key     *paillier.PrivateKey
	pk      *paillier.PublicKey
	random  *randx.Source
	workers int
}

// NewGoethalsAlice validates opts and precomputes the encryption table.
func NewGoethalsAlice(opts GoethalsAliceOptions) (*GoethalsAlice, error) {
	if opts.Key == nil {
		return nil, errors.New("sspp: GoethalsAliceOptions.Key is nil")
	}
	random, workers, err := commonOptions(opts.Random, opts.Workers)
	if err != nil {
		return nil, err
	}
	pk := opts.Key.Public()
	if !pk.IsPrecomputed() {
		if err := pk.Precompute(paillier.NewReader(random)); err != nil {
			return nil, fmt.Errorf("sspp: %w", err)
		}
	}
	return &GoethalsAlice{key: opts.Key, pk: pk, random: random, workers: workers}, nil
}

func commonOptions(random *randx.Source, workers int) (*randx.Source, int, error) {
	if random == nil {
		random = randx.NewSecure()
	}
	if workers < 0 || workers > 4096 {
		return nil, 0, fmt.Errorf("sspp: Workers %d outside [0, 4096]", workers)
	}
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return random, workers, nil
}

// PublicKey returns the key Bob needs.
func (a *GoethalsAlice) PublicKey() *paillier.PublicKey { return a.pk }

// EncryptedVector is Alice's message: Enc(x_1), ..., Enc(x_n) under her key.
// It can be reused for any number of Bob's vectors (Bob's replies are
// rerandomized, so reuse reveals nothing more).
type EncryptedVector struct {
	Key         *paillier.PublicKey // Alice's public key
	Ciphertexts []*paillier.Ciphertext
}

// Len returns the vector length.
func (v *EncryptedVector) Len() int { return len(v.Ciphertexts) }

// chunkSize is the unit of parallel work. It is fixed, not derived from
// the CPU count, so that a seeded run gives the same ciphertexts anywhere.
const chunkSize = 256

// EncryptVector encrypts x element-wise, in parallel. Cost: one
// short-exponent randomizer per element (≈0.4–0.7 ms per element per core
// at 2048 bits).
func (a *GoethalsAlice) EncryptVector(x []int64) (*EncryptedVector, error) {
	if len(x) == 0 {
		return nil, errors.New("sspp: empty vector")
	}
	cts := make([]*paillier.Ciphertext, len(x))
	err := forChunks(len(x), a.workers, a.random, func(lo, hi int, r io.Reader) error {
		for i := lo; i < hi; i++ {
			c, err := a.pk.EncryptInt64(r, x[i])
			if err != nil {
				return err
			}
			cts[i] = c
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sspp: encrypting vector: %w", err)
	}
	return &EncryptedVector{Key: a.pk, Ciphertexts: cts}, nil
}

// forChunks runs work over [0, n) in chunks of chunkSize on up to workers
// goroutines, each chunk with its own random stream (a Child of random,
// drawn in chunk order; nil streams when random is nil), and returns the
// errors joined.
func forChunks(n, workers int, random *randx.Source, work func(lo, hi int, r io.Reader) error) error {
	nChunks := (n + chunkSize - 1) / chunkSize
	readers := make([]io.Reader, nChunks)
	for i := range readers {
		if random != nil {
			readers[i] = paillier.NewReader(random.Child())
		}
	}
	next := make(chan int, nChunks)
	for i := range nChunks {
		next <- i
	}
	close(next)
	errs := make([]error, nChunks)
	var wg sync.WaitGroup
	for range min(workers, nChunks) {
		wg.Go(func() {
			for c := range next {
				lo := c * chunkSize
				errs[c] = work(lo, min(lo+chunkSize, n), readers[c])
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// GoethalsReply is Bob's message: Enc(x·y − s_B).
type GoethalsReply struct {
	Ciphertext *paillier.Ciphertext

	raw *big.Int // as unmarshalled, validated by Finish
}

// Finish decrypts Bob's reply and returns Alice's share s_A = x·y − s_B as
// the representative in (−N/2, N/2] (with Bob's MaskBits option, exactly
// the integer x·y − s_B).
func (a *GoethalsAlice) Finish(reply *GoethalsReply) (*big.Int, error) {
	c, err := a.replyCiphertext(reply)
	if err != nil {
		return nil, err
	}
	m, err := a.key.Decrypt(c)
	if err != nil {
		return nil, fmt.Errorf("sspp: decrypting reply: %w", err)
	}
	return a.pk.Signed(m), nil
}

func (a *GoethalsAlice) replyCiphertext(reply *GoethalsReply) (*paillier.Ciphertext, error) {
	switch {
	case reply == nil:
		return nil, errors.New("sspp: nil Goethals reply")
	case reply.Ciphertext != nil:
		return reply.Ciphertext, nil
	case reply.raw != nil:
		c, err := a.pk.NewCiphertext(reply.raw)
		if err != nil {
			return nil, fmt.Errorf("sspp: Goethals reply: %w", err)
		}
		return c, nil
	default:
		return nil, errors.New("sspp: empty Goethals reply")
	}
}

// GoethalsBobOptions configures Bob.
type GoethalsBobOptions struct {
	// PublicKey is Alice's public key.
	PublicKey *paillier.PublicKey
	// Random defaults to randx.NewSecure().
	Random *randx.Source
	// Workers bounds the parallel product; 0 means runtime.GOMAXPROCS(0).
	Workers int
	// MaskBits selects Bob's share s_B. 0: uniform in Z_N (perfect hiding;
	// u + v ≡ x·y mod N). k > 0: uniform in [0, 2^k), so that Alice's share
	// x·y − s_B is a small integer and u + v = x·y over the integers; the
	// statistical distance of Alice's view from one independent of x·y is
	// at most max|x·y| / 2^k, so take k ≥ log2(max|x·y|) + 128. Must leave
	// |u| < N/4: k ≤ |N| − 3.
	MaskBits int
}

// GoethalsBob is Bob's side of the Goethals et al. protocol. It is not
// safe for concurrent use.
type GoethalsBob struct {
	pk       *paillier.PublicKey
	random   *randx.Source
	workers  int
	maskBits int
}

// NewGoethalsBob validates opts and precomputes the encryption table on a
// private copy of Alice's key (Bob encrypts one value per reply).
func NewGoethalsBob(opts GoethalsBobOptions) (*GoethalsBob, error) {
	if opts.PublicKey == nil || opts.PublicKey.N == nil {
		return nil, errors.New("sspp: GoethalsBobOptions.PublicKey is nil")
	}
	random, workers, err := commonOptions(opts.Random, opts.Workers)
	if err != nil {
		return nil, err
	}
	pk, err := paillier.NewPublicKey(opts.PublicKey.N)
	if err != nil {
		return nil, fmt.Errorf("sspp: %w", err)
	}
	if opts.MaskBits < 0 || opts.MaskBits > pk.Bits()-3 {
		return nil, fmt.Errorf("sspp: MaskBits %d outside [0, %d] for a %d-bit key", opts.MaskBits, pk.Bits()-3, pk.Bits())
	}
	if err := pk.Precompute(paillier.NewReader(random)); err != nil {
		return nil, fmt.Errorf("sspp: %w", err)
	}
	return &GoethalsBob{pk: pk, random: random, workers: workers, maskBits: opts.MaskBits}, nil
}

// Respond returns the reply Enc(x·y − s_B) for Alice and Bob's share s_B.
// For 0/1 entries of y it multiplies the selected ciphertexts; other
// entries cost one exponentiation each. The reply is rerandomized by the
// fresh encryption of −s_B, so it reveals nothing about y beyond x·y − s_B.
func (b *GoethalsBob) Respond(v *EncryptedVector, y []int64) (*GoethalsReply, *big.Int, error) {
	if v == nil || v.Len() != len(y) {
		return nil, nil, fmt.Errorf("sspp: encrypted vector of length %d, Bob's vector %d", lenOf(v), len(y))
	}
	if !b.pk.Equal(v.Key) {
		return nil, nil, errors.New("sspp: encrypted vector under another key than Alice's")
	}
	prod, err := b.selectedProduct(v, y)
	if err != nil {
		return nil, nil, err
	}
	sB, err := b.drawShare()
	if err != nil {
		return nil, nil, err
	}
	mask, err := b.pk.Encrypt(paillier.NewReader(b.random), new(big.Int).Neg(sB))
	if err != nil {
		return nil, nil, fmt.Errorf("sspp: %w", err)
	}
	if prod == nil {
		return &GoethalsReply{Ciphertext: mask}, sB, nil
	}
	return &GoethalsReply{Ciphertext: b.pk.Add(prod, mask)}, sB, nil
}

func lenOf(v *EncryptedVector) int {
	if v == nil {
		return 0
	}
	return v.Len()
}

// selectedProduct returns Π Enc(x_i)^{y_i} (nil when every y_i is 0).
func (b *GoethalsBob) selectedProduct(v *EncryptedVector, y []int64) (*paillier.Ciphertext, error) {
	nChunks := (len(y) + chunkSize - 1) / chunkSize
	partial := make([]*paillier.Ciphertext, nChunks)
	err := forChunks(len(y), b.workers, nil, func(lo, hi int, _ io.Reader) error {
		var acc *paillier.Ciphertext
		for i := lo; i < hi; i++ {
			if v.Ciphertexts[i] == nil {
				return fmt.Errorf("sspp: nil ciphertext %d", i)
			}
			var term *paillier.Ciphertext
			switch y[i] {
			case 0:
				continue
			case 1:
				term = v.Ciphertexts[i]
			default:
				term = b.pk.MulPlain(v.Ciphertexts[i], big.NewInt(y[i]))
			}
			if acc == nil {
				acc = term
			} else {
				acc = b.pk.Add(acc, term)
			}
		}
		partial[lo/chunkSize] = acc
		return nil
	})
	if err != nil {
		return nil, err
	}
	var prod *paillier.Ciphertext
	for _, p := range partial {
		switch {
		case p == nil:
		case prod == nil:
			prod = p
		default:
			prod = b.pk.Add(prod, p)
		}
	}
	return prod, nil
}

func (b *GoethalsBob) drawShare() (*big.Int, error) {
	r := paillier.NewReader(b.random)
	if b.maskBits == 0 {
		return randIntBelow(r, b.pk.N)
	}
	return randIntBelow(r, new(big.Int).Lsh(big.NewInt(1), uint(b.maskBits)))
}

// randIntBelow returns a uniform integer in [0, max) by rejection.
func randIntBelow(r io.Reader, max *big.Int) (*big.Int, error) {
	nbytes := (max.BitLen() + 7) / 8
	topBits := uint(max.BitLen() % 8)
	buf := make([]byte, nbytes)
	v := new(big.Int)
	for {
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, fmt.Errorf("sspp: reading randomness: %w", err)
		}
		if topBits != 0 {
			buf[0] &= byte(1<<topBits) - 1
		}
		if v.SetBytes(buf).Cmp(max) < 0 {
			return v, nil
		}
	}
}

// SumModN returns u + v mod N as a signed integer (the representative in
// (−N/2, N/2]), failing if it does not fit in an int64.
func SumModN(n, u, v *big.Int) (int64, error) {
	s := new(big.Int).Add(u, v)
	s.Mod(s, n)
	if s.Cmp(new(big.Int).Rsh(n, 1)) > 0 {
		s.Sub(s, n)
	}
	if !s.IsInt64() {
		return 0, fmt.Errorf("sspp: share sum of %d bits does not fit in int64", s.BitLen())
	}
	return s.Int64(), nil
}

// Wire formats: a 5-byte magic (4 letters and a version), then
// big-endian uint32 lengths and fixed-width fields.
const (
	encryptedVectorMagic = "SPEV\x01"
	goethalsReplyMagic   = "SPGR\x01"
)

// MessageType names the message for the protocol envelope.
func (v *EncryptedVector) MessageType() string { return "sspp.goethals.encrypted-vector" }

// MarshalBinary encodes v: magic, N (length-prefixed), uint32 count, then
// the fixed-width ciphertexts (paillier.PublicKey.CiphertextSize bytes each).
func (v *EncryptedVector) MarshalBinary() ([]byte, error) {
	if v.Key == nil || v.Len() == 0 {
		return nil, errors.New("sspp: incomplete encrypted vector")
	}
	b := wire.AppendField([]byte(encryptedVectorMagic), v.Key.N.Bytes())
	b = binary.BigEndian.AppendUint32(b, uint32(v.Len()))
	return append(b, v.Key.MarshalCiphertexts(v.Ciphertexts)...), nil
}

// UnmarshalBinary decodes v and validates every ciphertext under the key it
// names (once, so that Bob can reuse the value). Bob still checks that the
// key is the one he expects.
func (v *EncryptedVector) UnmarshalBinary(b []byte) error {
	r, err := newReader(b, encryptedVectorMagic)
	if err != nil {
		return err
	}
	pk, err := readPublicKey(r)
	if err != nil {
		return err
	}
	n := r.Uint32()
	body := r.Rest()
	if r.Err() != nil || n == 0 || len(body) != int(n)*pk.CiphertextSize() {
		return fmt.Errorf("sspp: encrypted vector of %d entries in %d bytes (%v)", n, len(body), r.Err())
	}
	cts, err := pk.UnmarshalCiphertexts(body)
	if err != nil {
		return fmt.Errorf("sspp: %w", err)
	}
	*v = EncryptedVector{Key: pk, Ciphertexts: cts}
	return nil
}

// MessageType names the message for the protocol envelope.
func (r *GoethalsReply) MessageType() string { return "sspp.goethals.reply" }

// MarshalBinary encodes the reply: magic, then the ciphertext
// (length-prefixed, big-endian).
func (r *GoethalsReply) MarshalBinary() ([]byte, error) {
	if r.Ciphertext == nil {
		return nil, errors.New("sspp: empty Goethals reply")
	}
	return wire.AppendField([]byte(goethalsReplyMagic), r.Ciphertext.Value().Bytes()), nil
}

// UnmarshalBinary decodes the reply; Alice validates the ciphertext against
// her key in Finish.
func (r *GoethalsReply) UnmarshalBinary(b []byte) error {
	rd, err := newReader(b, goethalsReplyMagic)
	if err != nil {
		return err
	}
	v := rd.Field()
	if err := rd.Finish(); err != nil {
		return err
	}
	*r = GoethalsReply{raw: new(big.Int).SetBytes(v)}
	return nil
}
