package correlation

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"sync"
	"unsafe"
)

// patterns are the distinct records of a Codes with their multiplicities.
type patterns struct {
	l    int
	data []uint32 // P × l
	mult []int64
	of   []int32 // pattern of each record
}

// collapse groups identical records.
func collapse(c *Codes) *patterns {
	l := c.L()
	p := &patterns{l: l, of: make([]int32, c.n)}
	index := make(map[string]int32, c.n)
	for i := range c.n {
		row := c.Row(i)
		key := unsafe.String((*byte)(unsafe.Pointer(&row[0])), 4*l)
		id, ok := index[key]
		if !ok {
			id = int32(len(p.mult))
			index[key] = id
			p.data = append(p.data, row...)
			p.mult = append(p.mult, 0)
		}
		p.mult[id]++
		p.of[i] = id
	}
	return p
}

func (p *patterns) row(q int) []uint32 { return p.data[q*p.l : (q+1)*p.l] }

// cheaper estimates the cost of both pattern methods: C(l,t) sorts of P
// keys against P²/2 pair comparisons.
func (p *patterns) cheaper(t int) Method {
	if p.l > 64 {
		return PatternScan
	}
	P := float64(len(p.mult))
	hashed := float64(binomial(p.l, t)) * P * (math.Log2(P+1) + float64(t))
	scan := P * P / 2 * float64(p.l-t+1)
	if hashed < scan {
		return Hashed
	}
	return PatternScan
}

// expand turns per-pattern sums over OTHER patterns into per-record sums:
// a record agrees on all l features with itself and its m−1 duplicates.
func (p *patterns) expand(ps, pc []int64) ([]int64, []int32) {
	sum := make([]int64, len(p.of))
	cnt := make([]int32, len(p.of))
	for i, q := range p.of {
		sum[i] = ps[q] + p.mult[q]*int64(p.l)
		cnt[i] = int32(pc[q] + p.mult[q])
	}
	return sum, cnt
}

// accumulators are one worker's per-pattern sums.
type accumulators struct{ sum, cnt []int64 }

func (p *patterns) add(acc accumulators, q, r int, a int64) {
	acc.sum[q] += p.mult[r] * a
	acc.sum[r] += p.mult[q] * a
	acc.cnt[q] += p.mult[r]
	acc.cnt[r] += p.mult[q]
}

func merge(accs []accumulators) ([]int64, []int64) {
	sum, cnt := accs[0].sum, accs[0].cnt
	for _, a := range accs[1:] {
		for q := range sum {
			sum[q] += a.sum[q]
			cnt[q] += a.cnt[q]
		}
	}
	return sum, cnt
}

func newAccumulators(workers, P int) []accumulators {
	accs := make([]accumulators, workers)
	for w := range accs {
		accs[w] = accumulators{make([]int64, P), make([]int64, P)}
	}
	return accs
}

// scan compares every pair of distinct patterns.
func (p *patterns) scan(t, workers int) ([]int64, []int64) {
	P := len(p.mult)
	accs := newAccumulators(workers, P)
	allowed := p.l - t
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for q := w; q < P; q += workers {
				rq := p.row(q)
				for r := q + 1; r < P; r++ {
					rr := p.row(r)
					miss := 0
					for f, v := range rq {
						if v != rr[f] {
							if miss++; miss > allowed {
								break
							}
						}
					}
					if miss <= allowed {
						p.add(accs[w], q, r, int64(p.l-miss))
					}
				}
			}
		}()
	}
	wg.Wait()
	return merge(accs)
}

// hashed buckets the patterns by their values on every t-subset of the
// features. Distinct patterns agree on at most l−1 features, so for t = l
// there is nothing to compare.
func (p *patterns) hashed(t, workers int) ([]int64, []int64) {
	P := len(p.mult)
	accs := newAccumulators(workers, P)
	if t >= p.l || P < 2 {
		return merge(accs)
	}
	subsets := make(chan uint64, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			keys := make([]keyed, P)
			for s := range subsets {
				p.bucket(s, t, keys, accs[w])
			}
		}()
	}
	forEachSubset(p.l, t, func(s uint64) { subsets <- s })
	close(subsets)
	wg.Wait()
	return merge(accs)
}

type keyed struct {
	hash uint64
	q    int32
}

// bucket hashes every pattern's values on subset s, sorts by hash and
// compares the patterns within each run of equal hashes. A pair is counted
// here only if s is the set of the lowest t features it agrees on, which
// also discards hash collisions (they do not agree on all of s).
func (p *patterns) bucket(s uint64, t int, keys []keyed, acc accumulators) {
	feats := make([]int, 0, t)
	for x := s; x != 0; x &= x - 1 {
		feats = append(feats, bits.TrailingZeros64(x))
	}
	for q := range keys {
		row := p.row(q)
		h := uint64(0x9e3779b97f4a7c15)
		for _, f := range feats {
			h = mix(h ^ uint64(row[f]))
		}
		keys[q] = keyed{h, int32(q)}
	}
	slices.SortFunc(keys, func(a, b keyed) int {
		return cmp.Or(cmp.Compare(a.hash, b.hash), cmp.Compare(a.q, b.q))
	})
	for lo := 0; lo < len(keys); {
		hi := lo + 1
		for hi < len(keys) && keys[hi].hash == keys[lo].hash {
			hi++
		}
		for a := lo; a < hi; a++ {
			ra := p.row(int(keys[a].q))
			for b := a + 1; b < hi; b++ {
				rb := p.row(int(keys[b].q))
				var agree uint64
				for f, v := range ra {
					if v == rb[f] {
						agree |= 1 << f
					}
				}
				if lowestBits(agree, t) == s {
					p.add(acc, int(keys[a].q), int(keys[b].q), int64(bits.OnesCount64(agree)))
				}
			}
		}
		lo = hi
	}
}

// lowestBits keeps the t lowest set bits of x (all of x if it has fewer).
func lowestBits(x uint64, t int) uint64 {
	var out uint64
	for ; t > 0 && x != 0; t-- {
		b := x & -x
		out |= b
		x ^= b
	}
	return out
}

// mix is the SplitMix64 finaliser.
func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// forEachSubset calls fn with every t-subset of {0..l−1} as a bit mask, in
// increasing order (Gosper's hack).
func forEachSubset(l, t int, fn func(uint64)) {
	if t < 1 || t > l || l > 64 {
		return
	}
	s := uint64(1)<<t - 1
	if t == 64 {
		s = ^uint64(0)
	}
	for {
		fn(s)
		if l-t == 0 {
			return
		}
		c := s & -s
		r := s + c
		if r == 0 || bits.Len64(r) > l {
			return
		}
		s = (((r ^ s) >> 2) / c) | r
		if bits.Len64(s) > l {
			return
		}
	}
}
