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
// binned as MarginalTVD bins them), from sparse counts, so that a set of
// many large attributes costs only its occupied cells. The tables must
// have the same attributes, rows and bins ≥ 1 (SetsTVD checks).
func SetTVD(real, synth *data.Table, set []int, bins int) float64 {
	hr, hs := jointCounts(real, set, bins), jointCounts(synth, set, bins)
	nr, ns := float64(real.Len()), float64(synth.Len())
	d := 0.0
	for key, c := range hr {
		d += math.Abs(c/nr - hs[key]/ns)
	}
	for key, c := range hs {
		if _, ok := hr[key]; !ok {
			d += c / ns
		}
	}
	return d / 2
}

func jointCounts(t *data.Table, set []int, bins int) map[int]float64 {
	h := map[int]float64{}
	for _, row := range t.Rows {
		key := 0
		for _, j := range set {
			k, size := cell(t.Schema.Attributes[j], row[j], bins)
			key = key*size + k
		}
		h[key]++
	}
	return h
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
