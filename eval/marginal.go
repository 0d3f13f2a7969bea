package eval

import (
	"fmt"
	"math"
	"slices"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/randx"
)

// The utility of a synthetic table from the marginal engine
// (engine/marginal) against the real one, on the engine's discretised
// domain: the metrics of the PDP-MVDS figures (method/pdpmvds/figures)
// and of the engine's methods' tests.

// TVDStats are mean total variation distances between a real and a
// synthetic table's marginals on a discretised domain.
type TVDStats struct {
	All, OneWay, TwoWay float64
	// Blocks holds the mean 2-way TVD within each party ("party-1") and
	// across parties ("across"), when parties are given.
	Blocks map[string]float64
}

// SynthTVD computes the mean TVD over every 1-way and 2-way marginal of
// dom (numeric attributes binned as dom bins them); parties (a party's
// name → its attributes; nil for none) split the 2-way TVD into Blocks.
func SynthTVD(real, synth *data.Table, dom *domain.Domain, parties map[string][]string) (TVDStats, error) {
	r, s, err := encodeBoth(real, synth, dom)
	if err != nil {
		return TVDStats{}, err
	}
	owner := make([]string, dom.Len())
	for party, attrs := range parties {
		for _, name := range attrs {
			j, err := dom.Index(name)
			if err != nil {
				return TVDStats{}, err
			}
			owner[j] = party
		}
	}
	d := dom.Len()
	var st TVDStats
	blockSum, blockN := map[string]float64{}, map[string]int{}
	for a := range d {
		v, err := marginalTVD(r, s, []int{a})
		if err != nil {
			return st, err
		}
		st.OneWay += v
		for b := a + 1; b < d; b++ {
			v, err := marginalTVD(r, s, []int{a, b})
			if err != nil {
				return st, err
			}
			st.TwoWay += v
			block := "across"
			if owner[a] == owner[b] {
				block = owner[a]
			}
			blockSum[block] += v
			blockN[block]++
		}
	}
	pairs := d * (d - 1) / 2
	st.All = (st.OneWay + st.TwoWay) / float64(d+pairs)
	st.OneWay /= float64(d)
	if pairs > 0 {
		st.TwoWay /= float64(pairs)
	}
	if len(parties) > 0 {
		st.Blocks = map[string]float64{}
		for b, v := range blockSum {
			st.Blocks[b] = v / float64(blockN[b])
		}
	}
	return st, nil
}

func encodeBoth(real, synth *data.Table, dom *domain.Domain) (*domain.Dataset, *domain.Dataset, error) {
	r, _, err := dom.Encode(real)
	if err != nil {
		return nil, nil, fmt.Errorf("eval: real table: %w", err)
	}
	s, _, err := dom.Encode(synth)
	if err != nil {
		return nil, nil, fmt.Errorf("eval: synthetic table: %w", err)
	}
	if r.Len() == 0 || s.Len() == 0 {
		return nil, nil, fmt.Errorf("eval: empty table (real %d rows, synthetic %d)", r.Len(), s.Len())
	}
	return r, s, nil
}

func marginalTVD(r, s *domain.Dataset, attrs []int) (float64, error) {
	mr, err := domain.Count(r, attrs)
	if err != nil {
		return 0, err
	}
	ms, err := domain.Count(s, attrs)
	if err != nil {
		return 0, err
	}
	nr, ns := float64(r.Len()), float64(s.Len())
	t := 0.0
	for c := range mr.Counts {
		t += math.Abs(mr.Counts[c]/nr - ms.Counts[c]/ns)
	}
	return t / 2, nil
}

// RangeQueryError draws queries random range queries, each over
// attrsPerQuery distinct random attributes with a random contiguous range
// of each one's discretised values (category order for categorical
// ones), and returns the mean absolute difference between the fractions
// of real and synthetic records that satisfy them (PrivSyn's range-query
// metric).
func RangeQueryError(real, synth *data.Table, dom *domain.Domain, queries, attrsPerQuery int, src *randx.Source) (float64, error) {
	r, s, err := encodeBoth(real, synth, dom)
	if err != nil {
		return 0, err
	}
	k := min(attrsPerQuery, dom.Len())
	total := 0.0
	for range queries {
		attrs := src.Perm(dom.Len())[:k]
		slices.Sort(attrs)
		lo, hi := make([]uint16, k), make([]uint16, k)
		for i, a := range attrs {
			x, y := src.IntN(dom.Size(a)), src.IntN(dom.Size(a))
			lo[i], hi[i] = uint16(min(x, y)), uint16(max(x, y))
		}
		total += math.Abs(rangeFraction(r, attrs, lo, hi) - rangeFraction(s, attrs, lo, hi))
	}
	return total / float64(queries), nil
}

func rangeFraction(ds *domain.Dataset, attrs []int, lo, hi []uint16) float64 {
	n := ds.Len()
	count := 0
rows:
	for i := range n {
		for k, a := range attrs {
			if v := ds.Cols[a][i]; v < lo[k] || v > hi[k] {
				continue rows
			}
		}
		count++
	}
	return float64(count) / float64(n)
}
