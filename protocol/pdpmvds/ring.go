package pdpmvds

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"runtime"
	"sync"
)

// Arithmetic of the commodity suite: Du & Atallah's scalar product in
// matrix form, mod 2^64 (uint64 wrap-around).
//
// A holds U (n × du, any words; a one-hot matrix in the two-party case), B
// holds a one-hot matrix Z (n × dz) given by each record's value. S deals
// masks Ra (n × du) to A and Rb (n × dz) to B as ChaCha8 seeds, and a
// correction: in sum mode ra = RaᵀRb − rb (du × dz), rb from a seed to B;
// in row mode (an outer product per record, for products over more than
// two parties) ra_r = Ra_r ⊗ Rb_r − rb_r. A sends U + Ra, B sends Z + Rb,
// both uniformly distributed whatever U and Z are. Then
//
//	sum mode:  u = ra − Raᵀ(Z + Rb),       v = (U + Ra)ᵀZ + rb,
//	row mode:  u_r = ra_r − Ra_r ⊗ (Z_r + Rb_r),  v_r = (U_r + Ra_r) ⊗ Z_r + rb_r,
//
// and u + v = UᵀZ (resp. U_r ⊗ Z_r) mod 2^64. A mask reused with fresh
// corrections reveals nothing more: each party's view stays uniform.
// Layouts are row-major with U's index slower than Z's.

type seed = [32]byte

// expand returns n words of the AES-128-CTR keystream keyed by the
// seed's first 16 bytes, with its last 16 bytes as the initial counter
// block (a pseudorandom generator: AES runs at several GB/s with AES-NI,
// and masks are the hot path of the commodity suite).
func expand(s seed, n int) []uint64 {
	block, err := aes.NewCipher(s[:16])
	if err != nil {
		panic(err) // a 16-byte key is always valid
	}
	ctr := cipher.NewCTR(block, s[16:])
	out := make([]uint64, n)
	var buf [8192]byte
	for lo := 0; lo < n; lo += len(buf) / 8 {
		hi := min(n, lo+len(buf)/8)
		b := buf[:8*(hi-lo)]
		clear(b)
		ctr.XORKeyStream(b, b)
		for i := lo; i < hi; i++ {
			out[i] = binary.LittleEndian.Uint64(b[8*(i-lo):])
		}
	}
	return out
}

// maskOneHot returns onehot(col) + R, R = expand(s, n·d).
func maskOneHot(col []int32, d int, s seed) []uint64 {
	out := expand(s, len(col)*d)
	for r, v := range col {
		out[r*d+int(v)]++
	}
	return out
}

// maskWords returns U + expand(s, len(U)).
func maskWords(u []uint64, s seed) []uint64 {
	out := expand(s, len(u))
	for i, v := range u {
		out[i] += v
	}
	return out
}

// workersFor bounds goroutines for a loop over n items.
func workersFor(n, workers int) int {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return max(1, min(workers, n/256+1))
}

// heavyWorkers bounds goroutines for a loop over n expensive items.
func heavyWorkers(n, workers int) int {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return max(1, min(workers, n))
}

// chunks runs f on w contiguous ranges [lo, hi) covering [0, n), one
// goroutine each (w from workersFor or heavyWorkers); chunk boundaries do
// not depend on scheduling.
func chunks(n, w int, f func(k, lo, hi int)) {
	w = max(1, min(w, n))
	var wg sync.WaitGroup
	for k := range w {
		lo, hi := k*n/w, (k+1)*n/w
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(k, lo, hi)
		}()
	}
	wg.Wait()
}

// transposeProduct returns Xᵀ Y for X (n × dx) and Y (n × dy), both dense.
func transposeProduct(x []uint64, dx int, y []uint64, dy int, workers int) []uint64 {
	n := len(x) / dx
	w := workersFor(n, workers)
	parts := make([][]uint64, w)
	chunks(n, w, func(w, lo, hi int) {
		acc := make([]uint64, dx*dy)
		for r := lo; r < hi; r++ {
			yr := y[r*dy : (r+1)*dy]
			for i, a := range x[r*dx : (r+1)*dx] {
				row := acc[i*dy : (i+1)*dy]
				for j, b := range yr {
					row[j] += a * b
				}
			}
		}
		parts[w] = acc
	})
	return sumParts(parts)
}

// transposeOneHot returns Xᵀ Z for X (n × dx) dense and Z one-hot given by
// col (values in [0, dz)).
func transposeOneHot(x []uint64, dx int, col []int32, dz int, workers int) []uint64 {
	n := len(col)
	w := workersFor(n, workers)
	parts := make([][]uint64, w)
	chunks(n, w, func(w, lo, hi int) {
		acc := make([]uint64, dx*dz)
		for r := lo; r < hi; r++ {
			z := int(col[r])
			for i, a := range x[r*dx : (r+1)*dx] {
				acc[i*dz+z] += a
			}
		}
		parts[w] = acc
	})
	return sumParts(parts)
}

func sumParts(parts [][]uint64) []uint64 {
	out := parts[0]
	for _, p := range parts[1:] {
		if p == nil {
			continue
		}
		for i, v := range p {
			out[i] += v
		}
	}
	return out
}

// rowOuter returns, for every record r, X_r ⊗ Y_r (n × dx·dy).
func rowOuter(x []uint64, dx int, y []uint64, dy int, workers int) []uint64 {
	n := len(x) / dx
	out := make([]uint64, n*dx*dy)
	chunks(n, workersFor(n, workers), func(_, lo, hi int) {
		for r := lo; r < hi; r++ {
			yr := y[r*dy : (r+1)*dy]
			o := out[r*dx*dy : (r+1)*dx*dy]
			for i, a := range x[r*dx : (r+1)*dx] {
				row := o[i*dy : (i+1)*dy]
				for j, b := range yr {
					row[j] = a * b
				}
			}
		}
	})
	return out
}

// rowOneHot returns, for every record r, X_r ⊗ e_{col_r} (n × dx·dz).
func rowOneHot(x []uint64, dx int, col []int32, dz int) []uint64 {
	n := len(col)
	out := make([]uint64, n*dx*dz)
	for r := range n {
		z := int(col[r])
		o := out[r*dx*dz : (r+1)*dx*dz]
		for i, a := range x[r*dx : (r+1)*dx] {
			o[i*dz+z] = a
		}
	}
	return out
}

// maskCache keeps expanded masks that are reused (the setup masks of
// single attributes), keyed by seed.
type maskCache map[seed][]uint64

// get returns expand(s, n), from the cache when keep is set.
func (c maskCache) get(s seed, n int, keep bool) []uint64 {
	if !keep {
		return expand(s, n)
	}
	if v, ok := c[s]; ok && len(v) == n {
		return v
	}
	v := expand(s, n)
	c[s] = v
	return v
}

// subInto sets dst = a − b element-wise (dst may alias a).
func subInto(dst, a, b []uint64) {
	for i := range dst {
		dst[i] = a[i] - b[i]
	}
}

// addInto adds b to dst element-wise.
func addInto(dst, b []uint64) {
	for i := range dst {
		dst[i] += b[i]
	}
}

// productMode says whether a product sums over records or keeps them.
type productMode uint8

const (
	sumMode productMode = iota + 1
	rowMode
)

// dealCorrection is S's computation: the correction ra for A given both
// masks (Ra, n × du, and Rb, n × dz) and the seed of B's rb.
func dealCorrection(mode productMode, du, dz int, ra, rb []uint64, srb seed, workers int) []uint64 {
	var p []uint64
	if mode == sumMode {
		p = transposeProduct(ra, du, rb, dz, workers)
	} else {
		p = rowOuter(ra, du, rb, dz, workers)
	}
	subInto(p, p, expand(srb, len(p)))
	return p
}

// productA is A's share: sum mode ra − Raᵀ(Z+Rb), row mode
// ra_r − Ra_r ⊗ (Z+Rb)_r.
func productA(mode productMode, du, dz int, ra, corr, maskedZ []uint64, workers int) []uint64 {
	var p []uint64
	if mode == sumMode {
		p = transposeProduct(ra, du, maskedZ, dz, workers)
	} else {
		p = rowOuter(ra, du, maskedZ, dz, workers)
	}
	subInto(p, corr, p)
	return p
}

// productB is B's share: sum mode (U+Ra)ᵀZ + rb, row mode
// (U+Ra)_r ⊗ e_{z_r} + rb_r.
func productB(mode productMode, du, dz int, maskedU []uint64, col []int32, srb seed, workers int) []uint64 {
	var p []uint64
	if mode == sumMode {
		p = transposeOneHot(maskedU, du, col, dz, workers)
	} else {
		p = rowOneHot(maskedU, du, col, dz)
	}
	addInto(p, expand(srb, len(p)))
	return p
}
