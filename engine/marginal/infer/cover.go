package infer

import "slices"

// A cover is a small table over the union of some of the measured sets
// homed in one clique. Every mirror-descent step multiplies each set's
// factor into its clique and sums the clique onto each set; with the
// sets' factors first multiplied together on a cover (and the sums read
// off the cover's), each block of the clique's sweep takes one
// multiplication and one sum per cover, not per set. On Shuttle at ε = 4
// the cliques hold up to 2^18 cells and several pairs and triples each,
// and before covers (and sweeps) these passes were two thirds of the
// run.
type cover struct {
	clique  int
	attrs   []int
	members []int // indices into Model.sets
	// direct says the cover is a single set's own table: its factor and
	// marginal are used as they are.
	direct   bool
	toMember []stride // the cover's cells onto each member's
	// table is the cover's marginal, as the last calibration left it.
	table []float64
	// product is the members' factors multiplied (unused when direct).
	product []float64
}

// newCovers groups the sets homed in each clique into covers, greedily
// merging the two whose merger saves the most cell visits per step: a
// cover costs a pass over its clique, and unless it is one set's own
// table, a pass over itself per member plus one to start it.
func newCovers(m *Model) []cover {
	var out []cover
	for c := range m.tree.cliques {
		var groups [][]int
		for r, h := range m.home {
			if h == c {
				groups = append(groups, []int{r})
			}
		}
		groups = m.mergeCovers(c, groups)
		for _, g := range groups {
			out = append(out, m.newCover(c, g))
		}
	}
	return out
}

// coverAttrs is the union of the members' attributes.
func (m *Model) coverAttrs(members []int) []int {
	var u []int
	for _, r := range members {
		u = union(u, m.sets[r])
	}
	return u
}

// coverCost is the cells a cover of members in clique c visits per step.
func (m *Model) coverCost(c int, members []int) float64 {
	cost := m.tree.size[c]
	u := m.coverAttrs(members)
	if len(members) > 1 || !slices.Equal(u, m.sets[members[0]]) {
		cost += float64(len(members)+1) * tableCells(m.sizes, u)
	}
	return cost
}

func (m *Model) mergeCovers(c int, groups [][]int) [][]int {
	cost := make([]float64, len(groups))
	for i, g := range groups {
		cost[i] = m.coverCost(c, g)
	}
	for {
		bi, bj, best, merged := -1, -1, 0.0, 0.0
		for i := range groups {
			for j := i + 1; j < len(groups); j++ {
				both := m.coverCost(c, append(slices.Clone(groups[i]), groups[j]...))
				if save := cost[i] + cost[j] - both; save > best {
					bi, bj, best, merged = i, j, save, both
				}
			}
		}
		if bi < 0 {
			return groups
		}
		groups[bi], cost[bi] = append(groups[bi], groups[bj]...), merged
		groups, cost = slices.Delete(groups, bj, bj+1), slices.Delete(cost, bj, bj+1)
	}
}

func (m *Model) newCover(c int, members []int) cover {
	v := cover{clique: c, attrs: m.coverAttrs(members), members: members}
	v.direct = len(members) == 1 && slices.Equal(v.attrs, m.sets[members[0]])
	t := newFactor(m.sizes, v.attrs)
	v.table = t.Counts
	if !v.direct {
		v.product = make([]float64, len(t.Counts))
		for _, r := range members {
			v.toMember = append(v.toMember, newStride(t, m.sets[r]))
		}
	}
	return v
}

// factor returns the product of the members' factors on the cover.
func (v *cover) factor(factors [][]float64) []float64 {
	if v.direct {
		return factors[v.members[0]]
	}
	for x := range v.product {
		v.product[x] = 1
	}
	for k, r := range v.members {
		v.toMember[k].mul(v.product, factors[r])
	}
	return v.product
}

// marginals writes each member's marginal, summed from the cover's, into
// out.
func (v *cover) marginals(out [][]float64) {
	if v.direct {
		copy(out[v.members[0]], v.table)
		return
	}
	for k, r := range v.members {
		v.toMember[k].sum(v.table, out[r])
	}
}
