package ownerstats

import (
	"fmt"
	"math"
	"slices"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/engine/marginal/domain"
)

// Server answers a synthesize-rows owner's requests (method/rowsynth/roles)
// from statistics counted over a fine domain (Config.Fine) instead of
// rows, exactly: every answer is a sum of fine counts equal, bit for bit,
// to what the table path counts.
//
// Why that is exact: a record's numeric value v is clamped to the
// declared bounds (and rounded, for an integer attribute) before it is
// binned, both here (domain.Domain.Bin on the fine edges) and in the
// table path (domain.GridCounts, Domain.Bin on the session's bins). So
// the record's fine cell f holds the binned value between the cell's
// lowest value lo and highest value hi, and every binning above is
// monotone in the value: if lo and hi land in the same grid cell or
// session bin, every value of the cell does. A fine cell whose ends land
// in different cells cannot be split without the rows; the request is
// refused before anything is charged. Cells are never guessed.
//
// What it can answer: histograms on any public grid whose edges are fine
// edges (the grid Config.Grid, which domain.FineEdges contains); any
// session domain whose numeric bins are unions of fine cells (bins the
// coordinator chooses from the grid histogram, domain.BinsFromHistogram
// at the file's bins: every edge it returns is a fine edge; or the
// equal-width bins of the same count); and marginals over one or two
// attributes. A marginal over three or more attributes (the engine's
// combined cliques) is not a sum of 2-way counts and is refused: sessions
// with owners who bring statistics measure pairs only (synthesize-rows'
// max_cells = 1).
type Server struct {
	s      *Statistics
	schema data.Schema
	lay    layout
	// maps[j][f] is fine cell f's bin in the session's domain.
	maps [][]int
	dom  *domain.Domain
}

// NewServer checks that s was counted over a fine domain of schema.
func NewServer(s *Statistics, schema data.Schema) (*Server, error) {
	if s.Edges == nil {
		return nil, fmt.Errorf("ownerstats: the statistics were counted over equal-width bins, not fine cells: a synthesize-rows owner needs a file written with the fine domain (Config.Fine, dppub-beam --fine)")
	}
	if len(s.Edges) != len(schema.Attributes) || len(s.Sizes) != len(schema.Attributes) {
		return nil, fmt.Errorf("ownerstats: statistics of %d attributes for a schema of %d", len(s.Sizes), len(schema.Attributes))
	}
	cuts := map[string][]float64{}
	for j, a := range schema.Attributes {
		switch {
		case a.Kind == data.Numeric && s.Edges[j] == nil:
			return nil, fmt.Errorf("ownerstats: numeric attribute %q has no fine edges", a.Name)
		case a.Kind == data.Numeric:
			cuts[a.Name] = s.Edges[j]
		case s.Edges[j] != nil:
			return nil, fmt.Errorf("ownerstats: %s attribute %q has fine edges %v", a.Kind, a.Name, s.Edges[j])
		}
	}
	fine, err := domain.New(schema, domain.Options{Cuts: cuts})
	if err != nil {
		return nil, fmt.Errorf("ownerstats: the statistics' fine domain: %w", err)
	}
	if !slices.Equal(fine.Sizes(), s.Sizes) {
		return nil, fmt.Errorf("ownerstats: the statistics' domain sizes %v differ from the schema's fine domain %v", s.Sizes, fine.Sizes())
	}
	return &Server{s: s, schema: schema, lay: newLayout(s.Sizes)}, nil
}

// Records is the number of records counted.
func (v *Server) Records() int {
	n := 0
	for _, c := range v.s.Counts[:v.s.Sizes[0]] {
		n += int(c)
	}
	return n
}

// cellEnds are the lowest and highest binned values of fine cell f of
// numeric attribute j.
func (v *Server) cellEnds(j, f int) (lo, hi float64) {
	a, e := v.schema.Attributes[j], v.s.Edges[j]
	lo, hi = e[f], a.Max
	if f+1 < len(e) {
		if a.Integer {
			hi = e[f+1] - 1
		} else {
			hi = math.Nextafter(e[f+1], math.Inf(-1))
		}
	}
	return lo, hi
}

// Histogram returns the counts of numeric column col's values on the
// public grid of cells cells (domain.PublicGrid), equal to
// domain.GridCounts over the records' values.
func (v *Server) Histogram(col, cells int) ([]float64, error) {
	if col < 0 || col >= len(v.schema.Attributes) || v.schema.Attributes[col].Kind != data.Numeric {
		return nil, fmt.Errorf("ownerstats: histogram of column %d, not a numeric attribute", col)
	}
	a := v.schema.Attributes[col]
	grid := domain.PublicGrid(a, cells)
	cell := func(x float64) int {
		i, ok := slices.BinarySearch(grid, x)
		if !ok {
			i--
		}
		return i
	}
	out := make([]float64, len(grid))
	one := v.s.Counts[v.lay.one[col] : v.lay.one[col]+v.s.Sizes[col]]
	for f, c := range one {
		lo, hi := v.cellEnds(col, f)
		g := cell(lo)
		if cell(hi) != g {
			return nil, fmt.Errorf("ownerstats: %q's histogram on a grid of %d cells: fine cell [%v, %v] straddles a grid edge (the statistics were counted for another grid)", a.Name, cells, lo, hi)
		}
		out[g] += float64(c)
	}
	return out, nil
}

// SetDomain takes the session's domain and maps every fine cell to its
// bin; it fails, naming the attribute, when a bin is not a union of fine
// cells or when the binning could round a value otherwise than the fine
// cells did.
func (v *Server) SetDomain(o domain.Options) error {
	dom, err := domain.New(v.schema, o)
	if err != nil {
		return fmt.Errorf("ownerstats: %w", err)
	}
	maps := make([][]int, len(v.schema.Attributes))
	for j, a := range v.schema.Attributes {
		m := make([]int, v.s.Sizes[j])
		if a.Kind != data.Numeric {
			if dom.Size(j) != v.s.Sizes[j] {
				return fmt.Errorf("ownerstats: %q has %d categories in the session, %d in the statistics", a.Name, dom.Size(j), v.s.Sizes[j])
			}
			for f := range m {
				m[f] = f
			}
			maps[j] = m
			continue
		}
		if _, cut := o.Cuts[a.Name]; !cut && a.Integer && a.Min < 0 {
			// Equal-width integer bins round v−Min, the fine cells round v:
			// they differ for a negative value halfway between integers.
			return fmt.Errorf("ownerstats: %q: equal-width bins of an integer attribute with negative values (min %v) cannot be served from fine cells exactly; choose bins from the data (bin_share > 0)", a.Name, a.Min)
		}
		for f := range m {
			lo, hi := v.cellEnds(j, f)
			b, _ := dom.Bin(j, lo)
			if c, _ := dom.Bin(j, hi); c != b {
				return fmt.Errorf("ownerstats: %q: the session's bins split fine cell [%v, %v] (the statistics were counted for other bins or another grid)", a.Name, lo, hi)
			}
			m[f] = b
		}
		maps[j] = m
	}
	v.maps, v.dom = maps, dom
	return nil
}

// Marginal returns the counts of the marginal over attrs in the session's
// domain (SetDomain), equal to domain.Count over the domain's encoding
// of the records. It refuses more than two attributes.
func (v *Server) Marginal(attrs []int) (*domain.Marginal, error) {
	if v.dom == nil {
		return nil, fmt.Errorf("ownerstats: marginal over %v before the session's domain", attrs)
	}
	m, err := domain.NewMarginal(v.dom.Sizes(), attrs)
	if err != nil {
		return nil, fmt.Errorf("ownerstats: %w", err)
	}
	switch len(m.Attrs) {
	case 1:
		a := m.Attrs[0]
		for f, c := range v.s.Counts[v.lay.one[a] : v.lay.one[a]+v.s.Sizes[a]] {
			m.Counts[v.maps[a][f]] += float64(c)
		}
	case 2:
		a, b := m.Attrs[0], m.Attrs[1]
		o, sb := v.lay.two[a][b-a-1], v.s.Sizes[b]
		ma, mb, w := v.maps[a], v.maps[b], m.Sizes[1]
		for fa := range v.s.Sizes[a] {
			row := v.s.Counts[o+fa*sb : o+(fa+1)*sb]
			for fb, c := range row {
				m.Counts[ma[fa]*w+mb[fb]] += float64(c)
			}
		}
	default:
		return nil, fmt.Errorf("ownerstats: a marginal over %d attributes %v cannot be served from 1- and 2-way statistics; owners who bring statistics join sessions that measure pairs only (max_cells 1)", len(m.Attrs), m.Attrs)
	}
	return m, nil
}
