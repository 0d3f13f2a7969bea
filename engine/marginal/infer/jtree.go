package infer

import (
	"math"
	"math/bits"
	"slices"

	"github.com/dppub/dppub/engine/marginal/internal/attrset"
)

// jtree is a junction tree over a domain's attributes: its cliques are the
// maximal cliques of a triangulation of the graph in which two attributes
// are adjacent when some measured set holds both. Every measured set lies
// inside one clique, and the cliques containing any attribute form a
// connected subtree, so belief propagation over it is exact.
type jtree struct {
	sizes    []int
	cliques  [][]int // sorted attributes
	parent   []int   // -1 for the root (clique 0)
	sep      [][]int // sep[c] = cliques[c] ∩ cliques[parent[c]]
	order    []int   // breadth-first from the root: parents before children
	children [][]int
	size     []float64 // size[c] is clique c's number of cells
}

// bitset is a set of attributes.
type bitset []uint64

func newBitset(d int) bitset { return make(bitset, (d+63)/64) }

func (b bitset) set(i int)      { b[i/64] |= 1 << (i % 64) }
func (b bitset) has(i int) bool { return b[i/64]&(1<<(i%64)) != 0 }

func (b bitset) each(f func(int)) {
	for w, x := range b {
		for x != 0 {
			t := bits.TrailingZeros64(x)
			f(w*64 + t)
			x &^= 1 << t
		}
	}
}

// eliminationCliques triangulates the graph of sets over d attributes by
// greedy elimination, each step removing the attribute whose clique (it
// and its remaining neighbours) has the fewest cells, and returns the
// maximal cliques that elimination creates. Every attribute appears in
// some clique (alone if no set holds it).
func eliminationCliques(sizes []int, sets [][]int) [][]int {
	d := len(sizes)
	adj := make([]bitset, d)
	for v := range adj {
		adj[v] = newBitset(d)
	}
	for _, s := range sets {
		for _, a := range s {
			for _, b := range s {
				if a != b {
					adj[a].set(b)
				}
			}
		}
	}
	logSize := make([]float64, d)
	for v, s := range sizes {
		logSize[v] = math.Log(float64(s))
	}
	gone := newBitset(d)
	var cliques [][]int
	for range d {
		best, bestW := -1, math.Inf(1)
		for v := range d {
			if gone.has(v) {
				continue
			}
			w := logSize[v]
			adj[v].each(func(u int) { w += logSize[u] })
			if w < bestW-1e-9 {
				best, bestW = v, w
			}
		}
		c := []int{best}
		adj[best].each(func(u int) { c = append(c, u) })
		slices.Sort(c)
		for _, a := range c {
			for _, b := range c {
				if a != b {
					adj[a].set(b)
				}
			}
		}
		for _, u := range c {
			adj[u][best/64] &^= 1 << (best % 64)
		}
		gone.set(best)
		cliques = append(cliques, c)
	}
	return maximalSets(cliques)
}

// maximalSets drops every set contained in another (keeping one of equal
// sets), largest first.
func maximalSets(sets [][]int) [][]int {
	sorted := slices.Clone(sets)
	slices.SortStableFunc(sorted, func(a, b []int) int { return len(b) - len(a) })
	var out [][]int
	for _, s := range sorted {
		inside := false
		for _, t := range out {
			if attrset.Subset(s, t) {
				inside = true
				break
			}
		}
		if !inside {
			out = append(out, s)
		}
	}
	return out
}

// newJTree builds the junction tree of sets: the elimination cliques joined
// by a maximum-weight spanning tree on separator sizes (Prim), which has
// the running-intersection property for the cliques of a triangulation.
// Disconnected parts join with empty separators.
func newJTree(sizes []int, sets [][]int) *jtree {
	cl := eliminationCliques(sizes, sets)
	t := &jtree{sizes: sizes, cliques: cl, parent: make([]int, len(cl)), sep: make([][]int, len(cl)),
		children: make([][]int, len(cl))}
	in := make([]bool, len(cl))
	best := make([]int, len(cl)) // separator size to the tree
	link := make([]int, len(cl))
	for c := range cl {
		best[c], link[c] = -1, -1
	}
	t.parent[0] = -1
	in[0] = true
	t.order = []int{0}
	for c := 1; c < len(cl); c++ {
		best[c], link[c] = len(intersect(cl[c], cl[0])), 0
	}
	for len(t.order) < len(cl) {
		next := -1
		for c := range cl {
			if !in[c] && (next < 0 || best[c] > best[next]) {
				next = c
			}
		}
		in[next] = true
		t.parent[next] = link[next]
		t.sep[next] = intersect(cl[next], cl[link[next]])
		t.children[link[next]] = append(t.children[link[next]], next)
		t.order = append(t.order, next)
		for c := range cl {
			if !in[c] {
				if w := len(intersect(cl[c], cl[next])); w > best[c] {
					best[c], link[c] = w, next
				}
			}
		}
	}
	// Prim's insertion order already lists every parent before its
	// children, which is all the passes need.
	t.size = make([]float64, len(cl))
	for c, attrs := range cl {
		t.size[c] = tableCells(sizes, attrs)
	}
	return t
}

// cells is the total number of cells of the tree's cliques: the model's
// size (8 bytes each per table).
func (t *jtree) cells() float64 {
	s := 0.0
	for _, n := range t.size {
		s += n
	}
	return s
}

// tableCells is the number of cells of a table over attrs, as a float64
// so that a candidate clique too large for an int still compares.
func tableCells(sizes, attrs []int) float64 {
	p := 1.0
	for _, a := range attrs {
		p *= float64(sizes[a])
	}
	return p
}

// modelCells is the size of the junction tree over sets, in cells.
func modelCells(sizes []int, sets [][]int) float64 {
	if len(sizes) <= 64 {
		return modelCellsSmall(sizes, sets)
	}
	s := 0.0
	for _, c := range eliminationCliques(sizes, sets) {
		s += tableCells(sizes, c)
	}
	return s
}

// modelCellsSmall is modelCells for at most 64 attributes: the same
// greedy elimination as eliminationCliques (the same weights, summed in
// the same order, and the same ties), on one word per attribute instead
// of slices, with no clique lists. The adaptive method asks it about
// every candidate after every pick of a batch on a narrow table (narrow);
// on Adult at ρ = 0.5 the slices' version was 5 % of the run.
func modelCellsSmall(sizes []int, sets [][]int) float64 {
	d := len(sizes)
	var adj [64]uint64
	for _, s := range sets {
		var m uint64
		for _, a := range s {
			m |= 1 << a
		}
		for _, a := range s {
			adj[a] |= m &^ (1 << a)
		}
	}
	var logSize [64]float64
	for v, n := range sizes {
		logSize[v] = math.Log(float64(n))
	}
	var gone uint64
	cliques := make([]uint64, 0, d)
	for range d {
		best, bestW := -1, math.Inf(1)
		for v := range d {
			if gone&(1<<v) != 0 {
				continue
			}
			w := logSize[v]
			for x := adj[v]; x != 0; x &= x - 1 {
				w += logSize[bits.TrailingZeros64(x)]
			}
			if w < bestW-1e-9 {
				best, bestW = v, w
			}
		}
		c := adj[best] | 1<<best
		for x := c; x != 0; x &= x - 1 {
			u := bits.TrailingZeros64(x)
			adj[u] = (adj[u] | c) &^ (1<<u | 1<<best)
		}
		gone |= 1 << best
		cliques = append(cliques, c)
	}
	// The maximal cliques, each once (those no other clique strictly
	// contains, equal ones at their first), summed largest first as
	// maximalSets orders them, so that even a sum beyond 2^53 rounds as
	// modelCells' does.
	var kept []uint64
	for i, c := range cliques {
		maximal := true
		for j, o := range cliques {
			if c&o == c && (c != o || j < i) {
				maximal = false
				break
			}
		}
		if maximal {
			kept = append(kept, c)
		}
	}
	slices.SortStableFunc(kept, func(a, b uint64) int { return bits.OnesCount64(b) - bits.OnesCount64(a) })
	total := 0.0
	for _, c := range kept {
		p := 1.0
		for x := c; x != 0; x &= x - 1 {
			p *= float64(sizes[bits.TrailingZeros64(x)])
		}
		total += p
	}
	return total
}

// home returns the clique of the tree with the fewest cells that contains
// set, or -1. The model reads a measured set's marginal from its home and
// broadcasts the set's potential into it on every mirror-descent step, so
// a set homed in a clique of a million cells when one of a thousand also
// holds it costs two passes over the larger table per step.
func (t *jtree) home(set []int) int {
	best := -1
	for c, cl := range t.cliques {
		if attrset.Subset(set, cl) && (best < 0 || t.size[c] < t.size[best]) {
			best = c
		}
	}
	return best
}
