package domain

import (
	"fmt"
	"math"
	"slices"

	"github.com/dppub/dppub/data"
)

// DefaultBins is the number of equal-width bins a numeric attribute is
// discretised into when Options names no other count.
const DefaultBins = 16

// maxDomainSize bounds one attribute's domain: cells are stored as uint16.
const maxDomainSize = math.MaxUint16 + 1

// Options choose the discretisation. Bins come only from the declared
// schema (bounds and categories), never from the private values.
type Options struct {
	// Bins is the number of equal-width bins over a numeric attribute's
	// declared [Min, Max] (default DefaultBins). An integer attribute with
	// fewer distinct values gets one bin per value.
	Bins int
	// BinsFor overrides Bins for the named numeric attributes.
	BinsFor map[string]int
	// Cuts gives the named numeric attributes explicit bins instead: the
	// edges Min = c_0 < c_1 < … < c_k ≤ Max, bin b holding [c_b, c_{b+1})
	// and the last bin [c_{k−1}, Max] (integers: c_b … c_{b+1}−1, so a bin
	// whose edges differ by one holds a single value, which decodes to
	// itself; a continuous bin [v, Nextafter(v, +∞)) holds v alone, and an
	// edge at Max makes the last bin Max alone: singleValueEdges). The
	// edges must be public: from the schema, or released under DP
	// (measurement.ChooseCuts).
	Cuts map[string][]float64
	// Within gives the named numeric attributes pieces that refine their
	// bins for decoding only: a value decoded from a bin is drawn in one
	// of the bin's pieces, chosen by the pieces' weights, instead of
	// uniformly across the bin. The marginals stay those of the bins; the
	// pieces and weights must be public (ChooseBins' release, post-
	// processed).
	Within map[string]Pieces
	// PublicValueBins gives every numeric attribute without Cuts its
	// equal-width bins with each of its public values (the minimum, the
	// maximum, zero inside the bounds) split off as a bin of its own
	// (PublicValueCuts): the default of the engines whose bins are not
	// chosen from the data (parties of columns), so that a column that is
	// mostly 0, or capped at its maximum, keeps that point mass. The bins
	// still come from the schema alone.
	PublicValueBins bool
}

// Pieces refine a numeric attribute's bins for decoding (Options.
// Within): Edges are lower edges as in Options.Cuts and include
// every lower edge of the attribute's bins; Weights[p] ≥ 0 is piece p's
// share of its bin (any scale). A bin whose pieces all weigh 0 decodes
// uniformly.
type Pieces struct {
	Edges   []float64 `json:"edges"`
	Weights []float64 `json:"weights"`
}

// attrDomain is the discretisation of one attribute.
type attrDomain struct {
	attr data.Attribute
	size int
	// span is the number of integers in [Min, Max] for integer attributes.
	span int64
	// edges, if set, are the bins' lower edges plus Max (continuous) or
	// Max+1 (integers): bin b is [edges[b], edges[b+1]).
	edges []float64
	// within, if set, refines the bins for decoding (Options.Within).
	within *decodePieces
}

// Domain maps every attribute of a schema to a finite set {0, …, size−1}:
// categorical and binary attributes to their category index, numeric ones
// to equal-width bins over their declared public bounds.
type Domain struct {
	schema data.Schema
	attrs  []attrDomain
}

// New validates the schema and the bin counts.
func New(s data.Schema, o Options) (*Domain, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("domain: %w", err)
	}
	if o.Bins == 0 {
		o.Bins = DefaultBins
	}
	if o.Bins < 1 || o.Bins > maxDomainSize {
		return nil, fmt.Errorf("domain: bins = %d, need 1..%d", o.Bins, maxDomainSize)
	}
	for name, b := range o.BinsFor {
		a, err := s.Attribute(name)
		if err != nil {
			return nil, fmt.Errorf("domain: bins for %q: %w", name, err)
		}
		if a.Kind != data.Numeric {
			return nil, fmt.Errorf("domain: bins for %q: attribute is %s, not numeric", name, a.Kind)
		}
		if b < 1 || b > maxDomainSize {
			return nil, fmt.Errorf("domain: bins for %q = %d, need 1..%d", name, b, maxDomainSize)
		}
	}
	for name, c := range o.Cuts {
		a, err := s.Attribute(name)
		if err != nil {
			return nil, fmt.Errorf("domain: cuts for %q: %w", name, err)
		}
		if err := checkCuts(a, c); err != nil {
			return nil, err
		}
	}
	d := &Domain{schema: s, attrs: make([]attrDomain, len(s.Attributes))}
	for j, a := range s.Attributes {
		ad := attrDomain{attr: a}
		switch a.Kind {
		case data.Numeric:
			bins := o.Bins
			if b, ok := o.BinsFor[a.Name]; ok {
				bins = b
			}
			ad.size = bins
			if a.Integer {
				ad.span = int64(a.Max-a.Min) + 1
				ad.size = int(min(int64(bins), ad.span))
			}
			c, ok := o.Cuts[a.Name]
			if !ok && o.PublicValueBins {
				c = PublicValueCuts(a, bins)
				ok = c != nil
			}
			if ok {
				top := a.Max
				if a.Integer {
					top++
				}
				ad.edges = append(slices.Clone(c), top)
				ad.size = len(c)
			}
		default:
			ad.size = len(a.Categories)
			if ad.size > maxDomainSize {
				return nil, fmt.Errorf("domain: attribute %q has %d categories, at most %d are supported", a.Name, ad.size, maxDomainSize)
			}
		}
		d.attrs[j] = ad
	}
	for name, p := range o.Within {
		j, err := s.Index(name)
		if err != nil {
			return nil, fmt.Errorf("domain: pieces for %q: %w", name, err)
		}
		if d.attrs[j].within, err = d.layPieces(j, p); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// Schema is the schema the domain discretises.
func (d *Domain) Schema() data.Schema { return d.schema }

// SyntheticSchema is the schema of the tables DecodeRows makes: the
// domain's without its ID column, since synthetic rows stand for no one
// and carry no identifier (WDBC's schema names one).
func (d *Domain) SyntheticSchema() data.Schema {
	s := d.schema
	s.ID = ""
	return s
}

// Len is the number of attributes.
func (d *Domain) Len() int { return len(d.attrs) }

// Size is the domain size of attribute j.
func (d *Domain) Size(j int) int { return d.attrs[j].size }

// Sizes returns every attribute's domain size.
func (d *Domain) Sizes() []int {
	s := make([]int, len(d.attrs))
	for j, a := range d.attrs {
		s[j] = a.size
	}
	return s
}

// Name is the name of attribute j.
func (d *Domain) Name(j int) string { return d.attrs[j].attr.Name }

// Index returns the position of the named attribute.
func (d *Domain) Index(name string) (int, error) {
	j, err := d.schema.Index(name)
	if err != nil {
		return 0, fmt.Errorf("domain: %w", err)
	}
	return j, nil
}

// Cells is the number of cells of the marginal over attrs, and false if it
// exceeds maxCells.
func (d *Domain) Cells(attrs []int) (int, bool) {
	return cellsOf(d.Sizes(), attrs)
}

// maxCells bounds any one marginal table (its cell index is an int32).
const maxCells = 1 << 30

func cellsOf(sizes []int, attrs []int) (int, bool) {
	c := 1
	for _, a := range attrs {
		c *= sizes[a]
		if c > maxCells {
			return 0, false
		}
	}
	return c, true
}

// Bin returns the cell of value v of attribute j and whether v lay outside
// the declared bounds and was clamped (numeric attributes only).
func (d *Domain) Bin(j int, v float64) (int, bool) {
	// Pointers, not copies: Bin runs for every numeric cell of a file.
	ad := &d.attrs[j]
	a := &ad.attr
	if a.Kind != data.Numeric {
		return int(v), false
	}
	clamped := v < a.Min || v > a.Max
	v = math.Min(math.Max(v, a.Min), a.Max)
	if ad.edges != nil {
		if a.Integer {
			v = math.Round(v)
		}
		b, _ := slices.BinarySearch(ad.edges, v)
		if b == len(ad.edges) || ad.edges[b] != v {
			b-- // v lies inside bin b−1
		}
		return min(max(b, 0), ad.size-1), clamped
	}
	if a.Integer {
		off := int64(math.Round(v - a.Min))
		if int64(ad.size) == ad.span {
			return int(off), clamped // one bin per value
		}
		// ⌊off·size/(Max − Min)⌋ in integers: the continuous rule below
		// for an integer v, so Max alone would start a bin of its own and
		// joins the last one instead.
		return int(min(off*int64(ad.size)/(ad.span-1), int64(ad.size)-1)), clamped
	}
	b := int((v - a.Min) / (a.Max - a.Min) * float64(ad.size))
	return min(max(b, 0), ad.size-1), clamped
}

// BinRange returns the values bin b of numeric attribute j stands for: the
// interval [lo, hi) for a continuous attribute, the integers lo..hi for an
// integer one.
func (d *Domain) BinRange(j, b int) (lo, hi float64) {
	ad := d.attrs[j]
	a := ad.attr
	if ad.edges != nil {
		lo, hi := ad.edges[b], ad.edges[b+1]
		if a.Integer {
			hi-- // integers lo..hi
		}
		return lo, hi
	}
	if a.Integer {
		if int64(ad.size) == ad.span {
			return a.Min + float64(b), a.Min + float64(b)
		}
		// Bin b holds the offsets off with ⌊off·size/(Max − Min)⌋ = b: from
		// ⌈b·(Max − Min)/size⌉ to the next bin's first offset − 1, the last
		// bin up to Max.
		w, k := ad.span-1, int64(ad.size)
		first := (int64(b)*w + k - 1) / k
		next := (int64(b+1)*w + k - 1) / k
		if b == ad.size-1 {
			next = w + 1
		}
		return a.Min + float64(first), a.Min + float64(next-1)
	}
	w := (a.Max - a.Min) / float64(ad.size)
	return a.Min + float64(b)*w, a.Min + float64(b+1)*w
}

// Dataset is a discretised table in column-major order: Cols[j][i] is the
// cell of attribute j in record i.
type Dataset struct {
	Sizes []int
	Cols  [][]uint16
}

// NewDataset allocates n records over domain sizes, all in cell 0.
func NewDataset(sizes []int, n int) *Dataset {
	ds := &Dataset{Sizes: append([]int(nil), sizes...), Cols: make([][]uint16, len(sizes))}
	for j := range sizes {
		ds.Cols[j] = make([]uint16, n)
	}
	return ds
}

// Len is the number of records.
func (ds *Dataset) Len() int {
	if len(ds.Cols) == 0 {
		return 0
	}
	return len(ds.Cols[0])
}

// Row writes record i's cells (one per attribute) into dst, grown as
// needed, and returns it.
func (ds *Dataset) Row(i int, dst []int) []int {
	dst = slices.Grow(dst[:0], len(ds.Cols))[:len(ds.Cols)]
	for j, col := range ds.Cols {
		dst[j] = int(col[i])
	}
	return dst
}

// EncodeStats counts what encoding did. Clamped is not private: report it
// only to the data owner.
type EncodeStats struct {
	Clamped int
}

// Encode discretises a table with the domain's attributes: the real
// table's, or a synthetic one's, which has them without the ID column
// (SyntheticSchema); IDs are never encoded.
func (d *Domain) Encode(t *data.Table) (*Dataset, EncodeStats, error) {
	var st EncodeStats
	if !t.Schema.EqualAttributes(d.schema) {
		return nil, st, fmt.Errorf("domain: table schema (%v) differs from the domain's (%v)", t.Schema.Names(), d.schema.Names())
	}
	if err := t.Validate(); err != nil {
		return nil, st, fmt.Errorf("domain: %w", err)
	}
	ds := NewDataset(d.Sizes(), t.Len())
	for i, row := range t.Rows {
		for j, v := range row {
			b, c := d.Bin(j, v)
			if c {
				st.Clamped++
			}
			ds.Cols[j][i] = uint16(b)
		}
	}
	return ds, st, nil
}

// EncodeInto discretises rows (cells of the domain's schema, as a reader
// parsed them) into records at, at+1, … of cs (over the domain's sizes,
// with room for them) and returns how many values were clamped to their
// bounds.
func (d *Domain) EncodeInto(rows [][]float64, cs *Cells, at int) (int, error) {
	if !slices.Equal(cs.sizes, d.Sizes()) || at < 0 || at+len(rows) > cs.Len() {
		return 0, fmt.Errorf("domain: %d rows at %d into %d records over domain sizes %v, want %v", len(rows), at, cs.Len(), cs.sizes, d.Sizes())
	}
	clamped := 0
	for j, ad := range d.attrs {
		numeric := ad.attr.Kind == data.Numeric
		for i, row := range rows {
			v := row[j]
			if !numeric {
				if !(v >= 0 && int(v) < ad.size && v == math.Trunc(v)) {
					return 0, fmt.Errorf("domain: attribute %q: category index %v out of range [0, %d)", ad.attr.Name, v, ad.size)
				}
				cs.Set(j, at+i, int(v))
				continue
			}
			b, c := d.Bin(j, v)
			if c {
				clamped++
			}
			cs.Set(j, at+i, b)
		}
	}
	return clamped, nil
}

// PublicValueCuts returns the lower edges (as Options.Cuts) of
// numeric attribute a's bins equal-width bins over its declared bounds,
// as New cuts them, with each of its public values (PublicValues)
// split off as a bin of its own (singleValueEdges): 18 bins instead of
// 16 for a range [0, Max], 19 for one that straddles 0 at an equal-width
// edge, 20 when 0 splits an equal-width bin in three. Nil when every
// equal-width bin already holds one value (an integer attribute of at
// most bins values) or a is not numeric.
//
// Why this is sound: the bins depend on the schema alone and still
// partition the declared range, so one record still moves one count from
// one cell to another in every marginal (sensitivities unchanged), and no
// budget is spent on them. What it costs is cells: two or three more per
// numeric attribute in every marginal it is in, measured with the same
// noise per cell.
func PublicValueCuts(a data.Attribute, bins int) []float64 {
	if a.Kind != data.Numeric || bins < 1 || (a.Integer && int64(a.Max-a.Min)+1 <= int64(bins)) {
		return nil
	}
	d, err := New(data.Schema{Attributes: []data.Attribute{a}}, Options{Bins: bins})
	if err != nil {
		return nil
	}
	out := singleValueEdges(a)
	for b := range d.Size(0) {
		lo, _ := d.BinRange(0, b)
		out = append(out, lo)
	}
	slices.Sort(out)
	if out = slices.Compact(out); checkCuts(a, out) != nil {
		return nil // more bins than a domain holds: the equal-width ones
	}
	return out
}

// checkCuts validates explicit bin edges of attribute a.
func checkCuts(a data.Attribute, c []float64) error {
	if a.Kind != data.Numeric {
		return fmt.Errorf("domain: cuts for %q: attribute is %s, not numeric", a.Name, a.Kind)
	}
	if len(c) < 1 || len(c) > maxDomainSize || c[0] != a.Min {
		return fmt.Errorf("domain: cuts for %q: need 1..%d edges starting at the minimum %v, got %v", a.Name, maxDomainSize, a.Min, c)
	}
	for i, v := range c {
		if i > 0 && !(v > c[i-1]) || v > a.Max || (a.Integer && v != math.Trunc(v)) {
			return fmt.Errorf("domain: cuts for %q: edges %v must increase within [%v, %v] (integers for an integer attribute)", a.Name, c, a.Min, a.Max)
		}
	}
	return nil
}
