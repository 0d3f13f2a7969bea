// Decoding: a discretised dataset back to the schema's values, drawn inside
// each bin (or its public pieces) from chunked, reproducible randomness.

package domain

import (
	"fmt"
	"math"
	"slices"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/randx"
)

// decodePieces are Pieces laid out for drawing: edges plus the top as in
// attrDomain.edges, cum[p] the weights of pieces 0..p−1 summed, and
// first[b] bin b's first piece (first[size] = the number of pieces).
type decodePieces struct {
	edges, cum []float64
	first      []int
}

// Decode maps a discretised dataset back to the schema: categories to
// their index, a numeric bin to a value drawn uniformly from the bin (an
// integer one for integer attributes), a bin that holds one value
// (singleValueEdges) to that value. The draw is post-processing.
func (d *Domain) Decode(ds *Dataset, src *randx.Source) (*data.Table, error) {
	return d.DecodeRows(ds, ds.Len(), src)
}

// DecodeChunk is how many records DecodeRows and DecodeChunkInto decode
// with one stream of randomness.
const DecodeChunk = 1 << 16

// DecodeSources returns the randomness of each chunk of DecodeChunk
// records when rows records are decoded: src itself when they fit in one
// chunk (so a table that small decodes as it always did), else one child
// of src per chunk, drawn up front so that the chunks can be decoded in
// any order, on any number of cores, with the same result.
func DecodeSources(rows int, src *randx.Source) []*randx.Source {
	k := (rows + DecodeChunk - 1) / DecodeChunk
	if k <= 1 {
		return []*randx.Source{src}
	}
	out := make([]*randx.Source, k)
	for i := range out {
		out[i] = src.Child()
	}
	return out
}

// DecodeRows decodes rows synthetic records, record r being ds's record r
// mod ds.Len() (GUMOptions.Fit: records beyond those fitted repeat them,
// each numeric value drawn afresh inside its bin).
func (d *Domain) DecodeRows(ds *Dataset, rows int, src *randx.Source) (*data.Table, error) {
	if ds.Len() == 0 && rows > 0 {
		return nil, fmt.Errorf("domain: %d rows to decode from an empty dataset", rows)
	}
	t := &data.Table{Schema: d.SyntheticSchema(), Rows: make([][]float64, rows)}
	w := len(d.attrs)
	cells := make([]float64, rows*w)
	for i := range t.Rows {
		t.Rows[i] = cells[i*w : (i+1)*w : (i+1)*w]
	}
	for k, s := range DecodeSources(rows, src) {
		lo := k * DecodeChunk
		part := &data.Table{Schema: t.Schema, Rows: t.Rows[lo:min(rows, lo+DecodeChunk)]}
		if err := d.decodeInto(ds, lo, s, part); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// DecodeChunkInto decodes chunk k (records k·DecodeChunk onwards, at most
// DecodeChunk of rows) into t, reusing its rows, with the chunk's source
// from DecodeSources.
func (d *Domain) DecodeChunkInto(ds *Dataset, rows, k int, src *randx.Source, t *data.Table) error {
	lo := k * DecodeChunk
	if ds.Len() == 0 || lo < 0 || lo >= rows {
		return fmt.Errorf("domain: chunk %d of %d rows (%d records) to decode", k, rows, ds.Len())
	}
	n := min(rows, lo+DecodeChunk) - lo
	w := len(d.attrs)
	if cap(t.Rows) < n || (n > 0 && len(t.Rows[:1][0]) != w) {
		t.Rows = make([][]float64, n)
		cells := make([]float64, n*w)
		for i := range t.Rows {
			t.Rows[i] = cells[i*w : (i+1)*w : (i+1)*w]
		}
	}
	t.Schema, t.Rows, t.IDs = d.SyntheticSchema(), t.Rows[:n], nil
	return d.decodeInto(ds, lo, src, t)
}

// decodeInto decodes records lo, lo+1, … (mod ds.Len()) into t's rows,
// attribute by attribute (the order the draws have always been made in).
func (d *Domain) decodeInto(ds *Dataset, lo int, src *randx.Source, t *data.Table) error {
	if len(ds.Cols) != len(d.attrs) {
		return fmt.Errorf("domain: dataset has %d attributes, domain %d", len(ds.Cols), len(d.attrs))
	}
	n := ds.Len()
	for j, ad := range d.attrs {
		col := ds.Cols[j]
		for i, row := range t.Rows {
			r := (lo + i) % n
			b := col[r]
			if int(b) >= ad.size {
				return fmt.Errorf("domain: record %d holds cell %d of attribute %q, domain size %d", r, b, ad.attr.Name, ad.size)
			}
			row[j] = d.decodeCell(j, int(b), src)
		}
	}
	return nil
}

func (d *Domain) decodeCell(j, b int, src *randx.Source) float64 {
	a := d.attrs[j].attr
	if a.Kind != data.Numeric {
		return float64(b)
	}
	lo, hi := d.BinRange(j, b)
	if w := d.attrs[j].within; w != nil {
		lo, hi = w.draw(b, lo, hi, a.Integer, src)
	}
	if a.Integer {
		return lo + float64(src.Int64N(int64(hi-lo)+1))
	}
	if hi <= math.Nextafter(lo, math.Inf(1)) {
		// A single-value bin or piece, [v, Nextafter(v, +∞)) or the
		// maximum's [Max, Max] (singleValueEdges): exactly v. A uniform
		// draw would round to the next float64, outside the bin, half of
		// the time.
		return lo
	}
	return lo + src.Float64()*(hi-lo)
}

// draw picks one of bin b's pieces by weight and returns its range (as
// BinRange's: integers lo..hi), or the bin's own lo, hi when its pieces
// weigh nothing.
func (w *decodePieces) draw(b int, lo, hi float64, integer bool, src *randx.Source) (float64, float64) {
	first, end := w.first[b], w.first[b+1]
	base, total := w.cum[first], w.cum[end]-w.cum[first]
	if !(total > 0) || end-first < 2 {
		return lo, hi
	}
	// u in (base, base+total]: the piece p with cum[p] < u ≤ cum[p+1]
	// weighs more than nothing.
	u := base + (1-src.Float64())*total
	i, _ := slices.BinarySearch(w.cum[first+1:end+1], u)
	p := min(first+i, end-1)
	lo, hi = w.edges[p], w.edges[p+1]
	if integer {
		hi--
	}
	return lo, hi
}

// layPieces checks that p refines attribute j's bins and lays it out for
// decodeCell.
func (d *Domain) layPieces(j int, p Pieces) (*decodePieces, error) {
	a := d.attrs[j].attr
	if err := checkCuts(a, p.Edges); err != nil {
		return nil, fmt.Errorf("domain: pieces: %w", err)
	}
	if len(p.Weights) != len(p.Edges) {
		return nil, fmt.Errorf("domain: pieces for %q: %d weights for %d pieces", a.Name, len(p.Weights), len(p.Edges))
	}
	top := a.Max
	if a.Integer {
		top++
	}
	dp := &decodePieces{edges: append(slices.Clone(p.Edges), top), cum: make([]float64, len(p.Weights)+1)}
	for i, w := range p.Weights {
		if !(w >= 0) || math.IsInf(w, 1) {
			return nil, fmt.Errorf("domain: pieces for %q: weight %v, need a finite value ≥ 0", a.Name, w)
		}
		dp.cum[i+1] = dp.cum[i] + w
	}
	for b := range d.attrs[j].size {
		lo, _ := d.BinRange(j, b)
		i, ok := slices.BinarySearch(p.Edges, lo)
		if !ok {
			return nil, fmt.Errorf("domain: pieces for %q: bin %d's lower edge %v is not a piece edge", a.Name, b, lo)
		}
		dp.first = append(dp.first, i)
	}
	dp.first = append(dp.first, len(p.Edges))
	return dp, nil
}
