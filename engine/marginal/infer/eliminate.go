// Marginals outside one clique: variable elimination over the calibrated
// tree's smallest covering subtree, with its upward messages cached.

package infer

import (
	"fmt"

	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/internal/attrset"
)

// maxMessageBytes bounds the messages variable elimination keeps between
// two calibrations: a query over thousands of candidates on a wide table
// could otherwise keep a message per clique and attribute, each as large
// as its separator times the attribute.
const maxMessageBytes = 1 << 28

// message returns the message clique c sends up carrying the wanted
// attributes, from the cache or computed. The cache is keyed by clique
// and wanted attributes: those determine the whole computation below the
// clique (which cliques are kept and what each sums out), so a cached
// message is the one the query would have computed, to the bit. The
// candidates of one selection round are pairs and triples of a few
// attributes, so most share their messages: the message carrying a up
// from its home is the same for every b of a pair (a, b) whose path meets
// a's above it.
func (m *Model) message(c int, wanted []int, compute func() *domain.Marginal) *domain.Marginal {
	return m.messages.get(fmt.Sprintf("%d|%s", c, attrset.Key(wanted)), compute, func(msg *domain.Marginal) int { return 8 * len(msg.Counts) })
}

// Marginal returns the model's marginal over attrs (any attribute set;
// sets outside one clique are computed by variable elimination over the
// calibrated cliques).
func (m *Model) Marginal(attrs []int) (*domain.Marginal, error) {
	a, err := attrset.Normalise(attrs, len(m.sizes))
	if err != nil {
		return nil, err
	}
	if c := m.tree.home(a); c >= 0 {
		return m.proj.project(m.belief[c], a), nil
	}
	return m.eliminate(a), nil
}

// eliminate computes the marginal over attrs from the calibrated tree:
// p(x) = Π_c B_c / Π_s B_s over the smallest subtree covering attrs.
// Cliques pass messages towards the subtree's top, each summing out all
// but its separator and the wanted attributes it carries, so no table
// grows beyond a clique times the carried attributes.
func (m *Model) eliminate(attrs []int) *domain.Marginal {
	t := m.tree
	keep := m.steiner(attrs)
	pending := map[int][]*domain.Marginal{}
	for i := len(t.order) - 1; i >= 0; i-- {
		c := t.order[i]
		if !keep[c] {
			continue
		}
		p := t.parent[c]
		// Only the attributes the messages and the answer involve matter:
		// sum the clique down to them before multiplying.
		need := intersect(m.belief[c].Attrs, attrs)
		if p >= 0 && keep[p] {
			need = union(need, t.sep[c])
		}
		for _, msg := range pending[c] {
			need = union(need, intersect(m.belief[c].Attrs, msg.Attrs))
		}
		if p < 0 || !keep[p] {
			res := m.product(c, need, attrs, pending[c]) // the subtree covers attrs
			normaliseTo(res.Counts, m.total)
			return res
		}
		carried := need
		for _, msg := range pending[c] {
			carried = union(carried, msg.Attrs)
		}
		carried = intersect(carried, attrs)
		msg := m.message(c, carried, func() *domain.Marginal {
			msg := m.product(c, need, union(t.sep[c], carried), pending[c])
			// Divide by the separator's belief: what the parent already has.
			sep := m.proj.project(m.belief[c], t.sep[c])
			m.proj.get(msg, t.sep[c]).divPositive(msg.Counts, sep.Counts)
			return msg
		})
		pending[p] = append(pending[p], msg)
	}
	panic("infer: steiner subtree has no top")
}

// product is clique c's belief summed onto need times the messages its
// children sent, summed onto out. Each message is multiplied in and what
// neither out nor a later message needs summed out in one contraction, so
// no table grows beyond one message's wanted attributes at a time.
func (m *Model) product(c int, need, out []int, in []*domain.Marginal) *domain.Marginal {
	f := m.proj.project(m.belief[c], need)
	for i, msg := range in {
		keep := out
		for _, later := range in[i+1:] {
			keep = union(keep, later.Attrs)
		}
		f = contract(m.sizes, f, msg, intersect(union(f.Attrs, msg.Attrs), keep))
	}
	if len(f.Attrs) > len(out) {
		f = m.proj.project(f, out)
	}
	return f
}

// steiner marks the cliques of the smallest subtree whose cliques cover
// attrs: for each attribute one clique holding it, joined by tree paths.
func (m *Model) steiner(attrs []int) []bool {
	t := m.tree
	keep := make([]bool, len(t.cliques))
	var ends []int
	for _, a := range attrs {
		c := t.home([]int{a})
		ends = append(ends, c)
	}
	depth := make([]int, len(t.cliques))
	for _, c := range t.order {
		if p := t.parent[c]; p >= 0 {
			depth[c] = depth[p] + 1
		}
	}
	keep[ends[0]] = true
	for _, e := range ends[1:] {
		a, b := ends[0], e
		for a != b {
			keep[a], keep[b] = true, true
			if depth[a] >= depth[b] {
				a = t.parent[a]
			} else {
				b = t.parent[b]
			}
		}
		keep[a] = true
	}
	return keep
}
