package infer

import (
	"slices"
	"sync"

	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/internal/attrset"
)

// Factors are tables over attribute sets laid out like Marginal (sorted
// attributes, last fastest); the graphical model keeps log-potentials and
// beliefs in them. These helpers are the few table operations inference
// needs.

// union returns the sorted union of two sorted attribute sets.
func union(a, b []int) []int {
	out := make([]int, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// newFactor returns a zero table over sorted attrs of a domain of sizes.
func newFactor(sizes []int, attrs []int) *domain.Marginal {
	m := &domain.Marginal{Attrs: slices.Clone(attrs), Sizes: make([]int, len(attrs))}
	c := 1
	for k, a := range attrs {
		m.Sizes[k] = sizes[a]
		c *= sizes[a]
	}
	m.Counts = make([]float64, c)
	return m
}

// mustProject is projector for a subset the caller knows is one.
func mustProject(m *domain.Marginal, sub []int) []int32 {
	p, _, err := domain.Projector(m, sub)
	if err != nil {
		panic(err)
	}
	return p
}

// budgetCache is a concurrent map of values built on demand that holds
// at most limit bytes of them: when the next value does not fit, it
// starts afresh, so that what later lookups use is what it holds; a value
// larger than the whole limit is built each time and never kept. Two
// callers may build the same value at once; both get the same value.
type budgetCache[V any] struct {
	mu    sync.Mutex
	m     map[string]V
	bytes int
	limit int
}

// get returns the value under k, built by build (size bytes) if absent.
func (c *budgetCache[V]) get(k string, build func() V, size func(V) int) V {
	c.mu.Lock()
	v, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = build()
	n := size(v)
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]V{}
	}
	if _, ok := c.m[k]; !ok && n <= c.limit {
		if c.bytes+n > c.limit {
			clear(c.m)
			c.bytes = 0
		}
		c.m[k] = v
		c.bytes += n
	}
	c.mu.Unlock()
	return v
}

// projections caches strides: a stride depends only on the table's and
// the subset's attributes (the domain's sizes being fixed), and inference
// asks for the same ones round after round. The cache passes from each
// round's model to the next, and variable elimination asks for strides of
// many transient tables, so it holds at most maxProjectionBytes of
// indices.
type projections struct {
	budgetCache[stride]
}

func newProjections() *projections {
	return &projections{budgetCache[stride]{limit: maxProjectionBytes}}
}

// maxProjectionBytes bounds the stride cache. Without a bound, and with an
// index per cell rather than per span cell, the adaptive method on Big5
// (57 attributes, ε = 1) reached 23 GB resident.
const maxProjectionBytes = 1 << 30

// get returns the stride of table t onto sub.
func (p *projections) get(t *domain.Marginal, sub []int) stride {
	if p == nil {
		return newStride(t, sub)
	}
	return p.budgetCache.get(attrset.Key(t.Attrs)+"|"+attrset.Key(sub),
		func() stride { return newStride(t, sub) }, func(s stride) int { return 4 * len(s.idx) })
}

// project sums t onto sub (sorted, ⊆ t.Attrs).
func (p *projections) project(t *domain.Marginal, sub []int) *domain.Marginal {
	out := &domain.Marginal{Attrs: slices.Clone(sub), Sizes: make([]int, len(sub))}
	n := 1
	for k, a := range sub {
		out.Sizes[k] = t.Sizes[slices.Index(t.Attrs, a)]
		n *= out.Sizes[k]
	}
	out.Counts = make([]float64, n)
	p.get(t, sub).sum(t.Counts, out.Counts)
	return out
}

// contract returns Σ f·g summed onto out (sorted, ⊆ f.Attrs ∪ g.Attrs)
// without building the product table: one pass over the union's cells,
// an odometer keeping the index of each cell in f, g and the result. Variable
// elimination multiplies a clique's table by a child's message and sums out
// at once; building the product first cost an allocation, a fill, two
// multiplications and a stride map per table, several times the
// arithmetic.
func contract(sizes []int, f, g *domain.Marginal, out []int) *domain.Marginal {
	all := union(f.Attrs, g.Attrs)
	res := newFactor(sizes, out)
	if len(all) == 0 {
		res.Counts[0] = f.Counts[0] * g.Counts[0]
		return res
	}
	sf, sg, so := attrStrides(f, all), attrStrides(g, all), attrStrides(res, all)
	dims := make([]int, len(all))
	for i, a := range all {
		dims[i] = sizes[a]
	}
	dims, sf, sg, so = coalesce(dims, sf, sg, so)
	if len(dims) == 1 {
		dims, sf, sg, so = []int{1, dims[0]}, []int{0, sf[0]}, []int{0, sg[0]}, []int{0, so[0]}
	}
	// The two innermost dimensions run in the kernel, the odometer turns
	// the others: on Adult's models the innermost runs are short (2–16
	// cells: a binary label last), and turning the odometer after each
	// cost more than the run.
	outer := len(dims) - 2
	k := contraction{f: f.Counts, g: g.Counts, o: res.Counts, n: dims[outer+1], m: dims[outer],
		fl: sf[outer+1], gl: sg[outer+1], ol: so[outer+1], fm: sf[outer], gm: sg[outer], om: so[outer]}
	digits := make([]int, outer)
	fi, gi, oi := 0, 0, 0
	for {
		k.block(fi, gi, oi)
		p := outer - 1
		for ; p >= 0; p-- {
			digits[p]++
			fi, gi, oi = fi+sf[p], gi+sg[p], oi+so[p]
			if digits[p] < dims[p] {
				break
			}
			digits[p] = 0
			fi, gi, oi = fi-sf[p]*dims[p], gi-sg[p]*dims[p], oi-so[p]*dims[p]
		}
		if p < 0 {
			return res
		}
	}
}

// contraction is contract's kernel: the two innermost dimensions of its
// odometer, m runs of n cells, with each table's stride along them (fl,
// gl, ol along the run, 0 where the table lacks the dimension; fm, gm, om
// from one run to the next).
type contraction struct {
	f, g, o                      []float64
	n, m, fl, gl, ol, fm, gm, om int
}

// block adds the m runs from cells fi, gi, oi of f, g and the result. The
// last dimension runs fastest; when the result lacks it, the run sums into
// one cell. Every result cell adds the same products in the same order
// (and a run's into a sum of its own first) whatever the case, so the
// cases differ in speed only.
func (k *contraction) block(fi, gi, oi int) {
	n, fv, gv, ov := k.n, k.f, k.g, k.o
	fl, gl, ol := k.fl, k.gl, k.ol
	switch {
	case fl == 1 && gl == 1 && ol == 1:
		// All three hold the last attribute as their own last: the
		// run is contiguous in each (the common case: a separator's
		// attributes end both a clique and its message).
		for range k.m {
			a, b, o := fv[fi:fi+n], gv[gi:gi+n], ov[oi:oi+n]
			b, o = b[:len(a)], o[:len(a)]
			for x, v := range a {
				o[x] += v * b[x]
			}
			fi, gi, oi = fi+k.fm, gi+k.gm, oi+k.om
		}
	case fl == 1 && gl == 0 && ol == 1:
		// g lacks the last dimension: one factor for the whole run.
		for range k.m {
			axpyVec(ov[oi:oi+n], fv[fi:fi+n], gv[gi])
			fi, gi, oi = fi+k.fm, gi+k.gm, oi+k.om
		}
	case fl == 0 && gl == 1 && ol == 1:
		// f lacks it (a product is the same either way round).
		for range k.m {
			axpyVec(ov[oi:oi+n], gv[gi:gi+n], fv[fi])
			fi, gi, oi = fi+k.fm, gi+k.gm, oi+k.om
		}
	case fl == 1 && gl == 1 && ol == 0:
		for range k.m {
			a, b := fv[fi:fi+n], gv[gi:gi+n]
			b = b[:len(a)]
			s := 0.0
			for x, v := range a {
				s += v * b[x]
			}
			ov[oi] += s
			fi, gi, oi = fi+k.fm, gi+k.gm, oi+k.om
		}
	case ol == 0:
		for range k.m {
			s := 0.0
			for x := range n {
				s += fv[fi+x*fl] * gv[gi+x*gl]
			}
			ov[oi] += s
			fi, gi, oi = fi+k.fm, gi+k.gm, oi+k.om
		}
	default:
		for range k.m {
			for x := range n {
				ov[oi+x*ol] += fv[fi+x*fl] * gv[gi+x*gl]
			}
			fi, gi, oi = fi+k.fm, gi+k.gm, oi+k.om
		}
	}
}

// coalesce merges adjacent dimensions of contract's odometer that step
// through all three tables as one (each table's stride of the outer one is
// its stride of the inner one times the inner size, or both are 0), so
// the odometer turns less often and the innermost runs are longer. The
// cells are visited in the same order, so every result cell adds the same
// products in the same order: the result is the same to the bit. The
// innermost dimension takes no outer one when the result lacks it, since
// contract sums such a run before adding it to the result cell, and a
// longer run would group the additions differently.
func coalesce(dims, sf, sg, so []int) ([]int, []int, []int, []int) {
	j := len(dims) - 1
	for p := j - 1; p >= 0; p-- {
		nests := func(s []int) bool { return s[p] == s[j]*dims[j] }
		if nests(sf) && nests(sg) && nests(so) && (j < len(dims)-1 || so[j] != 0) {
			dims[j] *= dims[p]
			continue
		}
		j--
		dims[j], sf[j], sg[j], so[j] = dims[p], sf[p], sg[p], so[p]
	}
	return dims[j:], sf[j:], sg[j:], so[j:]
}

// attrStrides is, for each attribute of all, how far one step of it moves
// in t's cells (0 for an attribute t lacks).
func attrStrides(t *domain.Marginal, all []int) []int {
	s := make([]int, len(all))
	step := 1
	for j := len(t.Attrs) - 1; j >= 0; j-- {
		s[slices.Index(all, t.Attrs[j])] = step
		step *= t.Sizes[j]
	}
	return s
}
