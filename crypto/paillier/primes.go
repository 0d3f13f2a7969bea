package paillier

import (
	"errors"
	"fmt"
	"io"
	"math/big"
)

// smallPrimes are the odd primes below 2^14, used to sieve candidates before
// the expensive primality tests.
var smallPrimes = oddPrimesBelow(1 << 14)

func oddPrimesBelow(limit int) []uint64 {
	composite := make([]bool, limit)
	var ps []uint64
	for i := 3; i < limit; i += 2 {
		if composite[i] {
			continue
		}
		ps = append(ps, uint64(i))
		for j := i * i; j < limit; j += 2 * i {
			composite[j] = true
		}
	}
	return ps
}

// maxSieveSteps bounds the incremental search from one random start; after
// it a fresh start is drawn. Primes are dense enough (gap ~ ln 2^bits) that
// this is almost never reached for ordinary primes.
const maxSieveSteps = 1 << 20

// errRestart asks the search loop to draw a new random start.
var errRestart = errors.New("restart")

// randomPrime returns a prime of exactly bits bits whose two top bits are
// set, so that the product of two such primes has exactly their summed
// length. Candidates come from an incremental search from a random odd
// start (the usual sieve-then-test method); survivors pass Baillie–PSW and
// 20 Miller–Rabin rounds (math/big ProbablyPrime).
func randomPrime(random io.Reader, bits int) (*big.Int, error) {
	return searchPrime(random, bits, false)
}

// randomSafePrime returns a safe prime p = 2p'+1 of exactly bits bits (top
// two bits set) with p' prime, and p'.
func randomSafePrime(random io.Reader, bits int) (p, pPrime *big.Int, err error) {
	// Search over p' (bits−1 bits, top two bits set), so p = 2p'+1 has the
	// top two bits of a bits-bit number set too.
	q, err := searchPrime(random, bits-1, true)
	if err != nil {
		return nil, nil, err
	}
	p = new(big.Int).Lsh(q, 1)
	return p.Add(p, one), q, nil
}

// searchPrime finds a prime q of bits bits (top two bits set); with safe set
// it also requires 2q+1 to be prime.
func searchPrime(random io.Reader, bits int, safe bool) (*big.Int, error) {
	if bits < 16 {
		return nil, fmt.Errorf("paillier: prime size %d bits too small", bits)
	}
	for {
		q, err := searchFrom(random, bits, safe)
		if err == nil {
			return q, nil
		}
		if !errors.Is(err, errRestart) {
			return nil, err
		}
	}
}

func searchFrom(random io.Reader, bits int, safe bool) (*big.Int, error) {
	start, err := randomBits(random, bits)
	if err != nil {
		return nil, err
	}
	start.SetBit(start, bits-1, 1)
	start.SetBit(start, bits-2, 1)
	start.SetBit(start, 0, 1)
	if safe {
		// q ≡ 3 mod 4 keeps 2q+1 ≡ 7 mod 8; not required, but q odd is.
		start.SetBit(start, 1, 1)
	}
	residues := make([]uint64, len(smallPrimes))
	r := new(big.Int)
	for i, sp := range smallPrimes {
		residues[i] = r.Mod(start, new(big.Int).SetUint64(sp)).Uint64()
	}
	step := uint64(2)
	if safe {
		step = 4
	}
	cand := new(big.Int)
	p := new(big.Int)
	for delta := uint64(0); delta < maxSieveSteps*step; delta += step {
		if !survivesSieve(residues, delta, safe) {
			continue
		}
		cand.Add(start, new(big.Int).SetUint64(delta))
		if cand.BitLen() != bits {
			return nil, errRestart
		}
		if !cand.ProbablyPrime(0) {
			continue
		}
		if safe {
			p.Lsh(cand, 1).Add(p, one)
			if !p.ProbablyPrime(20) {
				continue
			}
		}
		if cand.ProbablyPrime(20) {
			return new(big.Int).Set(cand), nil
		}
	}
	return nil, errRestart
}

// survivesSieve reports whether start+delta (and, for safe primes,
// 2(start+delta)+1) has no small prime factor, given start's residues.
func survivesSieve(residues []uint64, delta uint64, safe bool) bool {
	for i, sp := range smallPrimes {
		r := (residues[i] + delta%sp) % sp
		if r == 0 {
			return false
		}
		if safe && (2*r+1)%sp == 0 {
			return false
		}
	}
	return true
}
