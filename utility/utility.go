package utility

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/data"
)

// DefaultBins is the number of equal-width bins of a numeric column in
// every quality figure dppub prints: the publishing commands' summaries
// and dppub compare, so that one table gets one distance wherever it is
// measured.
const DefaultBins = 16

// Binning says in words how the distances bin the columns.
func Binning(bins int) string {
	return fmt.Sprintf("numeric columns in %d equal-width bins over their declared bounds, categories as declared", bins)
}

// MarginalTVD returns, per attribute, the total variation distance between
// the real and synthetic one-way marginals (numeric attributes binned into
// `bins` equal bins over their declared bounds), and their mean.
func MarginalTVD(real, synth *data.Table, bins int) (map[string]float64, float64, error) {
	if err := checkTables(real, synth, bins); err != nil {
		return nil, 0, err
	}
	m := NewMarginals(synth.Schema, bins)
	m.Add(synth)
	return m.TVD(real)
}

// Marginals counts a table's one-way marginals, binned as MarginalTVD bins
// them, a chunk of rows at a time: the synthetic side of MarginalTVD for a
// table never held whole.
type Marginals struct {
	schema data.Schema
	bins   int
	counts [][]float64
	n      int
}

// NewMarginals counts rows of schema s into bins bins per numeric attribute.
func NewMarginals(s data.Schema, bins int) *Marginals {
	m := &Marginals{schema: s, bins: bins, counts: make([][]float64, len(s.Attributes))}
	if bins < 1 {
		return m // TVD reports it
	}
	for j, a := range s.Attributes {
		_, size := cell(a, a.Min, bins)
		m.counts[j] = make([]float64, size)
	}
	return m
}

// Add counts t's rows (t has the schema NewMarginals was given).
func (m *Marginals) Add(t *data.Table) {
	if m.bins < 1 {
		return
	}
	for j, a := range m.schema.Attributes {
		h := m.counts[j]
		for _, row := range t.Rows {
			k, _ := cell(a, row[j], m.bins)
			h[k]++
		}
	}
	m.n += t.Len()
}

// TVD is MarginalTVD(real, the rows added so far, bins): the counts are
// exact, so the figures are the same bits as from the whole table.
func (m *Marginals) TVD(real *data.Table) (map[string]float64, float64, error) {
	if err := check(real.Schema, m.schema, real.Len(), m.n, m.bins); err != nil {
		return nil, 0, err
	}
	out := map[string]float64{}
	total := 0.0
	for j, a := range real.Schema.Attributes {
		hr := histogram(real, j, a, m.bins)
		tvd := 0.0
		for k := range hr {
			tvd += math.Abs(hr[k] - m.counts[j][k]/float64(m.n))
		}
		out[a.Name] = tvd / 2
		total += tvd / 2
	}
	return out, total / float64(len(real.Schema.Attributes)), nil
}

// checkTables checks that real and synth can be compared with bins bins.
func checkTables(real, synth *data.Table, bins int) error {
	return check(real.Schema, synth.Schema, real.Len(), synth.Len(), bins)
}

// check checks real and synthetic schemas and row counts, and bins.
func check(real, synth data.Schema, nReal, nSynth, bins int) error {
	if !real.Equal(synth) {
		return fmt.Errorf("utility: real and synthetic schemas differ")
	}
	if nReal == 0 || nSynth == 0 {
		return fmt.Errorf("utility: empty table (real %d rows, synthetic %d)", nReal, nSynth)
	}
	if bins < 1 {
		return fmt.Errorf("utility: bins = %d, need at least 1", bins)
	}
	return nil
}

// PairTVD returns the mean total variation distance between the real and
// synthetic 2-way marginals over every pair of attributes (numeric
// attributes binned as MarginalTVD bins them).
func PairTVD(real, synth *data.Table, bins int) (float64, error) {
	d := len(real.Schema.Attributes)
	if d < 2 {
		return 0, fmt.Errorf("utility: %d attributes have no pairs", d)
	}
	var sets [][]int
	for a := range d {
		for b := a + 1; b < d; b++ {
			sets = append(sets, []int{a, b})
		}
	}
	return SetsTVD(real, synth, sets, bins)
}

// SetsTVD returns the mean total variation distance between the real and
// synthetic marginals over each attribute set (attribute indices; numeric
// attributes binned as MarginalTVD bins them).
func SetsTVD(real, synth *data.Table, sets [][]int, bins int) (float64, error) {
	if err := checkTables(real, synth, bins); err != nil {
		return 0, err
	}
	if len(sets) == 0 {
		return 0, fmt.Errorf("utility: no attribute sets")
	}
	sum := 0.0
	for _, set := range sets {
		for _, j := range set {
			if j < 0 || j >= len(real.Schema.Attributes) {
				return 0, fmt.Errorf("utility: attribute %d of set %v out of range", j, set)
			}
		}
		sum += SetTVD(real, synth, set, bins)
	}
	return sum / float64(len(sets)), nil
}

// SetTVD is the total variation distance between the real and synthetic
// joint distributions of the attributes in set (numeric attributes
// binned as MarginalTVD bins them), from counts that are sparse for a
// set of many large attributes, so that it costs only its occupied
// cells. The tables must have the same attributes, rows and bins ≥ 1
// (SetsTVD checks).
func SetTVD(real, synth *data.Table, set []int, bins int) float64 {
	hr, hs := tableSetCounts(real, set, bins), tableSetCounts(synth, set, bins)
	return setDistance(hr, float64(real.Len()), hs, float64(synth.Len()))
}

func tableSetCounts(t *data.Table, set []int, bins int) *setCounts {
	attrs := t.Schema.Attributes
	h := newSetCounts(setCells(attrs, set, bins))
	for _, row := range t.Rows {
		key := 0
		for _, j := range set {
			k, size := cell(attrs[j], row[j], bins)
			key = key*size + k
		}
		h.add(key, 1)
	}
	return h
}

// setCells is the number of cells of the marginal over set.
func setCells(attrs []data.Attribute, set []int, bins int) int {
	cells := 1
	for _, j := range set {
		_, size := cell(attrs[j], attrs[j].Min, bins)
		cells *= size
	}
	return cells
}

// setDistance is the total variation distance between the distributions
// of the counts hr over nr records and hs over ns: every figure of
// SetTVD and JointTVD comes from here.
func setDistance(hr *setCounts, nr float64, hs *setCounts, ns float64) float64 {
	d := 0.0
	hr.each(func(key int, c float64) { d += math.Abs(c/nr - hs.at(key)/ns) })
	hs.each(func(key int, c float64) {
		if hr.at(key) == 0 {
			d += c / ns
		}
	})
	return d / 2
}

// setCounts are the cell counts of one marginal: dense up to denseCells
// cells, sparse beyond (a marginal of large attributes costs only its
// occupied cells).
type setCounts struct {
	dense  []float64
	sparse map[int]float64
}

const denseCells = 1 << 16

func newSetCounts(cells int) *setCounts {
	if cells <= denseCells {
		return &setCounts{dense: make([]float64, cells)}
	}
	return &setCounts{sparse: map[int]float64{}}
}

func (h *setCounts) add(key int, c float64) {
	if h.dense != nil {
		h.dense[key] += c
		return
	}
	h.sparse[key] += c
}

func (h *setCounts) at(key int) float64 {
	if h.dense != nil {
		return h.dense[key]
	}
	return h.sparse[key]
}

// each calls f with every occupied cell.
func (h *setCounts) each(f func(key int, c float64)) {
	for key, c := range h.dense {
		if c != 0 {
			f(key, c)
		}
	}
	for key, c := range h.sparse {
		f(key, c)
	}
}

// Joint counts a table's 1-way and 2-way marginals, binned as
// MarginalTVD bins them, a chunk of rows at a time: the side of a
// comparison that is never held whole (a streamed input or a streamed
// synthetic table). JointTVD compares two; the figures are those of
// SetTVD on the whole tables, the quality dppub compare reports.
type Joint struct {
	schema data.Schema
	bins   int
	// sets are every attribute, then every pair a < b, in order.
	sets   [][]int
	counts []*setCounts
	n      int
	cells  []int // one row's cells (AddRows' scratch)
}

// NewJoint counts rows of schema s (bins ≥ 1 bins per numeric attribute).
func NewJoint(s data.Schema, bins int) (*Joint, error) {
	if bins < 1 {
		return nil, fmt.Errorf("utility: bins = %d, need at least 1", bins)
	}
	d := len(s.Attributes)
	s.ID = "" // a synthetic table has no IDs; the marginals are the attributes'
	j := &Joint{schema: s, bins: bins, cells: make([]int, d)}
	for a := range d {
		j.sets = append(j.sets, []int{a})
	}
	for a := range d {
		for b := a + 1; b < d; b++ {
			j.sets = append(j.sets, []int{a, b})
		}
	}
	for _, set := range j.sets {
		j.counts = append(j.counts, newSetCounts(setCells(s.Attributes, set, bins)))
	}
	return j, nil
}

// AddRows counts rows (each holding the schema's attributes in order).
func (j *Joint) AddRows(rows [][]float64) {
	attrs := j.schema.Attributes
	sizes := make([]int, len(attrs))
	for _, row := range rows {
		for a, attr := range attrs {
			j.cells[a], sizes[a] = cell(attr, row[a], j.bins)
		}
		for i, set := range j.sets {
			key := 0
			for _, a := range set {
				key = key*sizes[a] + j.cells[a]
			}
			j.counts[i].add(key, 1)
		}
	}
	j.n += len(rows)
}

// Merge adds o's counts (o counts rows of the same schema and bins).
func (j *Joint) Merge(o *Joint) error {
	if !j.schema.EqualAttributes(o.schema) || j.bins != o.bins {
		return fmt.Errorf("utility: merging counts of other attributes or bins")
	}
	for i, h := range o.counts {
		h.each(func(key int, c float64) { j.counts[i].add(key, c) })
	}
	j.n += o.n
	return nil
}

// Len is the number of rows counted.
func (j *Joint) Len() int { return j.n }

// Pairs is the number of 2-way marginals counted.
func (j *Joint) Pairs() int { return len(j.sets) - len(j.schema.Attributes) }

// JointTVD is the mean total variation distance between the real and
// synthetic 1-way marginals, and between their 2-way marginals over
// every pair (0 with one attribute): what SetsTVD gives on the whole
// tables.
func JointTVD(real, synth *Joint) (one, two float64, err error) {
	if err := check(real.schema, synth.schema, real.n, synth.n, real.bins); err != nil {
		return 0, 0, err
	}
	if real.bins != synth.bins {
		return 0, 0, fmt.Errorf("utility: real counted in %d bins, synthetic in %d", real.bins, synth.bins)
	}
	d := len(real.schema.Attributes)
	nr, ns := float64(real.n), float64(synth.n)
	for i, set := range real.sets {
		dist := setDistance(real.counts[i], nr, synth.counts[i], ns)
		if len(set) == 1 {
			one += dist
		} else {
			two += dist
		}
	}
	one /= float64(d)
	if pairs := d * (d - 1) / 2; pairs > 0 {
		two /= float64(pairs)
	}
	return one, two, nil
}

// cell is the bin of value v of attribute a (its category, or one of
// bins equal-width bins over its declared bounds) and the bin count.
func cell(a data.Attribute, v float64, bins int) (int, int) {
	if a.Kind != data.Numeric {
		return int(v), len(a.Categories)
	}
	f := (v - a.Min) / (a.Max - a.Min)
	return min(max(int(f*float64(bins)), 0), bins-1), bins
}

func histogram(t *data.Table, j int, a data.Attribute, bins int) []float64 {
	_, size := cell(a, a.Min, bins)
	h := make([]float64, size)
	for _, row := range t.Rows {
		k, _ := cell(a, row[j], bins)
		h[k]++
	}
	for k := range h {
		h[k] /= float64(t.Len())
	}
	return h
}

// SampleTriples draws k distinct attribute triples of d attributes (all
// of them, in shuffled order, when there are at most k), permuted by
// shuffle (a seeded source's Shuffle, so that every run of an experiment
// scores the same triples).
func SampleTriples(d, k int, shuffle func(n int, swap func(i, j int))) [][]int {
	var all [][]int
	for a := range d {
		for b := a + 1; b < d; b++ {
			for c := b + 1; c < d; c++ {
				all = append(all, []int{a, b, c})
			}
		}
	}
	shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	return all[:min(k, len(all))]
}
