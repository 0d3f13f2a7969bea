package gate

import (
	"fmt"
	"math"
	"slices"

	"github.com/dppub/dppub/data"
)

// space measures distances between rows of one schema: a numeric
// attribute scaled to [0, 1] by its public bounds (clamped), a category
// 0 when equal and 1 otherwise, summed over the attributes.
type space struct {
	schema data.Schema
}

func newSpace(s data.Schema) space { return space{schema: s} }

// encodeAll maps t's rows to the space's coordinates: a numeric value to
// its place in [0, 1], a category to its index.
func (sp space) encodeAll(t *data.Table) [][]float64 {
	out := make([][]float64, t.Len())
	for i, row := range t.Rows {
		e := make([]float64, len(row))
		for j, v := range row {
			a := sp.schema.Attributes[j]
			if a.Kind == data.Numeric && a.Max > a.Min {
				v = math.Min(1, math.Max(0, (v-a.Min)/(a.Max-a.Min)))
			}
			e[j] = v
		}
		out[i] = e
	}
	return out
}

func (sp space) dist(x, y []float64) float64 {
	d := 0.0
	for j, a := range sp.schema.Attributes {
		if a.Kind == data.Numeric {
			d += math.Abs(x[j] - y[j])
		} else if x[j] != y[j] {
			d++
		}
	}
	return d
}

// nearest returns the distance from x to its closest row of rows.
func (sp space) nearest(x []float64, rows [][]float64) float64 {
	best := math.Inf(1)
	for _, y := range rows {
		if d := sp.dist(x, y); d < best {
			best = d
			if d == 0 {
				break
			}
		}
	}
	return best
}

// dcrAttack scores a query by minus its distance to the closest synthetic
// row: a generator that memorises its rows puts copies or near-copies of
// members, not of non-members, into the table.
func dcrAttack(sp space, members, nonMembers *data.Table, synth [][]float64, z float64) Attack {
	score := func(t *data.Table) (scores []float64, copies int) {
		for _, x := range sp.encodeAll(t) {
			d := sp.nearest(x, synth)
			if d == 0 {
				copies++
			}
			scores = append(scores, -d)
		}
		return scores, copies
	}
	sm, cm := score(members)
	sn, cn := score(nonMembers)
	detail := fmt.Sprintf("%.1f%% of the owner's rows and %.1f%% of held-out rows have an exact copy in the synthetic table; median distance to the closest synthetic row %.3g and %.3g",
		100*float64(cm)/float64(len(sm)), 100*float64(cn)/float64(len(sn)), -median(sm), -median(sn))
	return advantage("distance-to-closest-record", sm, sn, z, detail)
}

// densityRatioAttack scores a query by ln(p̂_synth(x)/p̂_ref(x)), kernel
// densities exp(−dist/h) of the synthetic rows and of the reference
// held-out rows: the synthetic table's excess density at a row is what a
// generator that overfits its members leaves there. The bandwidth h is
// the median distance from a reference row to its nearest synthetic row
// (at least 0.05): the scale at which the table resolves the population.
func densityRatioAttack(sp space, members, nonMembers *data.Table, synth, ref [][]float64, z float64) Attack {
	var nn []float64
	for _, r := range ref[:min(len(ref), 200)] {
		nn = append(nn, sp.nearest(r, synth))
	}
	h := math.Max(0.05, median(nn))
	density := func(x []float64, rows [][]float64) float64 {
		s := 0.0
		for _, y := range rows {
			s += math.Exp(-sp.dist(x, y) / h)
		}
		// A floor of one row at distance 10h keeps the log finite.
		return math.Log((s + math.Exp(-10)) / float64(len(rows)))
	}
	score := func(t *data.Table) []float64 {
		var out []float64
		for _, x := range sp.encodeAll(t) {
			out = append(out, density(x, synth)-density(x, ref))
		}
		return out
	}
	sm, sn := score(members), score(nonMembers)
	detail := fmt.Sprintf("median log density ratio synthetic/population %.3g at the owner's rows and %.3g at held-out rows (bandwidth %.3g)", median(sm), median(sn), h)
	return advantage("density-ratio", sm, sn, z, detail)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(xs))
	return s[len(s)/2]
}
