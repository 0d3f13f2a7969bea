package kit

import (
	"errors"
	"fmt"
	"io"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/ownerstats"
	"github.com/dppub/dppub/utility"
	"github.com/spf13/cobra"
)

// The publishing commands' quality line and dppub compare give one table
// one figure: both count the 1-way and 2-way marginals with utility's
// code (utility.Joint here, utility.SetTVD there) at utility.DefaultBins
// equal-width bins over the declared bounds, the real rows as read and
// the synthetic rows as written to the output.

// ErrNoRows is why a run from the owners' statistics files prints no
// marginal distances.
var ErrNoRows = errors.New("this process holds the owners' statistics files, not their rows")

// qualityChunk is how many rows are counted at a time.
const qualityChunk = 4096

// NewQualityCounts counts rows of schema s as dppub compare bins them.
func NewQualityCounts(s data.Schema) (*utility.Joint, error) {
	return utility.NewJoint(s, utility.DefaultBins)
}

// RealCounts counts the real rows of the tables.
func RealCounts(tables ...*data.Table) (*utility.Joint, error) {
	j, err := NewQualityCounts(tables[0].Schema)
	if err != nil {
		return nil, err
	}
	for _, t := range tables {
		if !t.Schema.EqualAttributes(tables[0].Schema) {
			return nil, fmt.Errorf("the owners' tables have other columns")
		}
		j.AddRows(t.Rows)
	}
	return j, nil
}

// SynthCounts counts a synthetic table's rows as they are written to the
// output out, a chunk at a time (the table may be streamed).
type SynthCounts struct {
	*utility.Joint
	attrs []data.Attribute
	// csv says the output rounds numeric values to their decimals
	// (data.Attribute.AsWritten); Parquet keeps them.
	csv     bool
	scratch [][]float64
}

// NewSynthCounts counts a synthetic table written to out, chunk by chunk.
func NewSynthCounts(s data.Schema, out string) (*SynthCounts, error) {
	j, err := NewQualityCounts(s)
	if err != nil {
		return nil, err
	}
	return &SynthCounts{Joint: j, attrs: s.Attributes, csv: !data.IsParquetPath(out)}, nil
}

// add counts t's rows as the output holds them.
func (c *SynthCounts) Add(t *data.Table) {
	for lo := 0; lo < t.Len(); lo += qualityChunk {
		rows := t.Rows[lo:min(lo+qualityChunk, t.Len())]
		if c.csv {
			rows = c.asWritten(rows)
		}
		c.AddRows(rows)
	}
}

// asWritten is rows as the CSV output holds them, in scratch rows reused
// from chunk to chunk.
func (c *SynthCounts) asWritten(rows [][]float64) [][]float64 {
	for len(c.scratch) < len(rows) {
		c.scratch = append(c.scratch, make([]float64, len(c.attrs)))
	}
	for i, row := range rows {
		w := c.scratch[i]
		for j, v := range row {
			w[j] = c.attrs[j].AsWritten(v)
		}
	}
	return c.scratch[:len(rows)]
}

// TableSynthCounts counts a synthetic table held whole.
func TableSynthCounts(t *data.Table, out string) (*SynthCounts, error) {
	c, err := NewSynthCounts(t.Schema, out)
	if err != nil {
		return nil, err
	}
	c.Add(t)
	return c, nil
}

// PrintQuality prints the quality section's first lines: the mean TVD of
// the 1-way and 2-way marginals of the real rows (counted by real)
// against the synthetic ones (synth), how they were binned, and that
// dppub compare gives the same figures. When they cannot be computed it
// says why and points to dppub compare instead of printing nothing.
func PrintQuality(cmd *cobra.Command, w io.Writer, real, synth *utility.Joint, whyNot error) {
	fmt.Fprintf(w, "Quality (computed on your real data, for your eyes only; not published):\n")
	var one, two float64
	err := whyNot
	if err == nil {
		one, two, err = utility.JointTVD(real, synth)
	}
	if err != nil {
		fmt.Fprintf(w, "  marginal distances not computed (%v): run dppub compare REAL SYNTHETIC --schema SCHEMA on the files\n", err)
		return
	}
	NoteQuality(cmd, "mean_one_way_tvd", one)
	fmt.Fprintf(w, "  mean total-variation distance of the 1-way marginals: %.3f", one)
	if real.Pairs() > 0 {
		NoteQuality(cmd, "mean_two_way_tvd", two)
		fmt.Fprintf(w, ", of the 2-way marginals: %.3f", two)
	}
	fmt.Fprintf(w, "\n  (%s; dppub compare gives the same figures for the same files)\n", utility.Binning(utility.DefaultBins))
}

// ReadOwnerStatistics reads an owner's statistics file for a release
// (--statistics): like an owner's rows (readOwnerTable), it must count at
// least minOwnerRows records, or the default δ = 1/n² would protect no one.
func ReadOwnerStatistics(path string) (*ownerstats.Statistics, error) {
	st, err := ownerstats.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if n := st.Moments.N; n < MinOwnerRows {
		return nil, fmt.Errorf("--statistics %q counts %d records: a release needs at least %d (with n = 1, the default δ = 1/n² would be 1, which protects no one)", Cut(path), n, MinOwnerRows)
	}
	return st, nil
}
