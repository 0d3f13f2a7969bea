// Calibration: sum-product over the junction tree turns the potentials into
// beliefs summing to Total, and the covers' marginals that fitting reads.

package infer

import (
	"math"

	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/internal/parallel"
)

// propagate computes the calibrated beliefs of the current potentials by
// two passes of sum-product over the tree. Each clique's potential is
// exponentiated once, relative to its largest log-value; messages are
// rescaled to a largest entry of 1, so nothing overflows and the final
// normalisation to Total absorbs every scale.
func (m *Model) propagate() {
	for _, f := range m.log {
		clear(f.Counts)
	}
	for r, th := range m.theta {
		m.toSet[r].add(m.log[m.home[r]].Counts, th.Counts)
	}
	if m.pot == nil {
		m.pot = make([][]float64, len(m.log))
		for c, f := range m.log {
			m.pot[c] = make([]float64, len(f.Counts))
		}
	}
	parallel.For(len(m.log), func(c int) {
		lg, b := m.log[c].Counts, m.pot[c]
		// A plain comparison, as in rescale: math.Max's NaN and
		// signed-zero handling made this search a third of propagate's
		// time (Adult at ρ = 0.5: a clique of 0.2 million cells per fit).
		// A NaN still makes top NaN, as math.Max's did, and a zero's sign
		// does not change v − top.
		top, nan := math.Inf(-1), false
		for _, v := range lg {
			if v > top {
				top = v
			} else if v != v {
				nan = true
			}
		}
		if nan {
			top = math.NaN()
		}
		for x, v := range lg {
			b[x] = math.Exp(v - top)
		}
	}, func(c int) int { return len(m.log[c].Counts) })
	m.calibrate(nil, nil)
}

// calibrate sets the potentials to from times the covers' factors
// (factors[k] on covers[k]; with factors nil the potentials are final
// and from is unused) and runs sum-product to the beliefs, as counts summing to
// Total, and each cover's marginal of them (setMarginals). Each clique is
// swept twice: upward, leaves first, its potential, its belief so far
// (the potential times its children's messages) and its message to its
// parent, which sums out what the parent lacks and is rescaled by upScale
// to a largest entry of 1; downward, parents first, its belief and the
// sums of it onto its covers and its children's separators.
func (m *Model) calibrate(from, factors [][]float64) {
	t := m.tree
	m.messages = &budgetCache[*domain.Marginal]{limit: maxMessageBytes}
	for i := len(t.order) - 1; i >= 0; i-- {
		c := t.order[i]
		var src []float64
		if factors != nil {
			src = from[c]
		}
		m.up(c, src, factors)
		if t.parent[c] >= 0 {
			m.upScale[c] = rescale(m.msg[c])
		}
	}
	for _, c := range t.order {
		m.downward(c)
	}
}

// up sweeps clique c upward: its potential from src and the factors of
// its covers, its belief so far, and the sum of that onto its separator
// (a root's: onto its total).
func (m *Model) up(c int, src []float64, factors [][]float64) {
	sw, pot, belief, tg := m.sweeps[c], m.pot[c], m.belief[c].Counts, m.targets[c]
	covers, kids := m.coversOf[c], m.tree.children[c]
	out := m.msg[c]
	if m.tree.parent[c] < 0 {
		out = m.rootSum[c]
	}
	clear(out)
	msgs := m.kidMessages(c)
	sw.walk(tg, func(lo int, base []int) {
		hi := lo + sw.block
		p := pot[lo:hi]
		if factors != nil {
			m.potentialBlock(c, p, src[lo:hi], factors, base)
		}
		b := p
		for j := range kids {
			if msgs[j] == nil {
				continue
			}
			k := 1 + len(covers) + j
			if len(b) == 0 || &b[0] == &p[0] {
				b = belief[lo:hi]
				tg[k].in.mulTo(b, p, msgs[j][base[k]:])
			} else {
				tg[k].in.mul(b, msgs[j][base[k]:])
			}
		}
		tg[0].in.addTo(b, out[base[0]:])
	})
}

// potentialBlock writes into p, one block of clique c's potential, the
// block src of the potential it starts from times the covers' factors.
func (m *Model) potentialBlock(c int, p, src []float64, factors [][]float64, base []int) {
	tg, covers := m.targets[c], m.coversOf[c]
	if len(covers) == 0 {
		copy(p, src)
		return
	}
	for i, k := range covers {
		f := factors[k][base[1+i]:]
		if i == 0 {
			tg[1+i].in.mulTo(p, src, f)
		} else {
			tg[1+i].in.mul(p, f)
		}
	}
}

// downward sweeps clique c downward: its belief is its belief so far
// times the evidence from its parent (a root's: the scale to Total), and
// its sums go onto its covers' tables and its children's separators.
func (m *Model) downward(c int) {
	t := m.tree
	sw, belief, tg := m.sweeps[c], m.belief[c].Counts, m.targets[c]
	covers, kids := m.coversOf[c], t.children[c]
	src := m.pot[c]
	if len(kids) > 0 {
		src = belief
	}
	var f []float64
	if t.parent[c] < 0 {
		f = []float64{1}
		if s := m.rootSum[c][0]; !(s > 0) || math.IsInf(s, 0) || math.IsNaN(s) {
			// The mass underflowed to zero (or overflowed): uniform
			// instead of NaN, which the next fitting step corrects.
			for x := range belief {
				belief[x] = m.total / float64(len(belief))
			}
			src = belief
		} else {
			f[0] = m.total / s
		}
	} else {
		// The parent's belief summed onto the separator, over the sums
		// this clique sent up (its message without the rescaling), is
		// its missing evidence. Its belief then sums to the parent's
		// mass on the separator cells it gave mass, which is all of it
		// (the parent's belief carries its message as a factor), so it
		// needs no normalising of its own.
		f = m.down[c]
		k := m.upScale[c]
		for s, v := range m.msg[c] {
			// d/v first: the parent's belief d carries the child's message
			// v as a factor, so d/v stays moderate where k/v alone
			// overflows (a subnormal v, 1/v above float64's range), and
			// an empty parent cell stays 0 instead of 0·∞ = NaN (Big5 at
			// ε = 1, seed 2100: NaN beliefs, then a selection refused).
			if d := f[s]; v > 0 && d > 0 {
				f[s] = d / v * k
			} else {
				f[s] = 0
			}
		}
	}
	for _, i := range covers {
		clear(m.covers[i].table)
	}
	for _, kid := range kids {
		clear(m.down[kid])
	}
	derived := m.derived[c]
	sw.walk(tg, func(lo int, base []int) {
		b := belief[lo : lo+sw.block]
		tg[0].in.mulTo(b, src[lo:lo+sw.block], f[base[0]:])
		for i, k := range covers {
			if !derived[1+i] {
				tg[1+i].in.addTo(b, m.covers[k].table[base[1+i]:])
			}
		}
		for j, kid := range kids {
			if k := 1 + len(covers) + j; !derived[k] {
				tg[k].in.addTo(b, m.down[kid][base[k]:])
			}
		}
	})
	for _, d := range m.derivations[c] {
		d.via.addTo(m.targetTable(c, d.from), m.targetTable(c, d.target))
	}
}

// targetTable is the table clique c's downward sweep sums onto for its
// target k ≥ 1: a cover's marginal or a child's separator sums.
func (m *Model) targetTable(c, k int) []float64 {
	if k <= len(m.coversOf[c]) {
		return m.covers[m.coversOf[c][k-1]].table
	}
	return m.down[m.tree.children[c][k-1-len(m.coversOf[c])]]
}

// normaliseTo scales v to sum to total; a v whose mass underflowed to
// zero (or overflowed) becomes uniform instead of NaN, which the next
// fitting step corrects.
func normaliseTo(v []float64, total float64) {
	s := sumOf(v)
	if !(s > 0) || math.IsInf(s, 0) || math.IsNaN(s) {
		for x := range v {
			v[x] = total / float64(len(v))
		}
		return
	}
	k := total / s
	for x := range v {
		v[x] *= k
	}
}

// rescale divides v by its largest entry (if positive and finite) and
// returns the factor it multiplied v by (1 if it left v as it was).
func rescale(v []float64) float64 {
	// A plain comparison, not math.Max: this loop runs over every clique
	// cell at every mirror-descent step, and math.Max's NaN and signed-zero
	// handling made it a fifth of the adaptive engine's time on Shuttle. A
	// NaN still leaves v as it is, as math.Max's NaN did.
	top, nan := 0.0, false
	for _, x := range v {
		if x > top {
			top = x
		} else if x != x {
			nan = true
		}
	}
	if top > 0 && !math.IsInf(top, 1) && !nan {
		// A multiplication by the reciprocal, not a division per cell:
		// division takes several times a multiplication's cycles, and
		// rescaling runs over every clique cell at every step.
		k := 1 / top
		for i := range v {
			v[i] *= k
		}
		return k
	}
	return 1
}

// sumOf is the sum of v in four interleaved partial sums: one running sum
// waits for each addition to finish before the next, four keep the adder
// busy (inference sums every clique cell several times per step).
func sumOf(v []float64) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(v); i += 4 {
		s0 += v[i]
		s1 += v[i+1]
		s2 += v[i+2]
		s3 += v[i+3]
	}
	for ; i < len(v); i++ {
		s0 += v[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// setMarginals writes the model's marginal over each sets[r] into
// out[r], from the covers' marginals the last calibration left.
func (m *Model) setMarginals(out [][]float64) {
	for k := range m.covers {
		m.covers[k].marginals(out)
	}
}
