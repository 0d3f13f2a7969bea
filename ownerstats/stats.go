// Package ownerstats is an owner's statistics as the Beam pipeline computes
// them, record by record, and as the core computes them in process: the
// exact PPCA-DP-MH moments (ppca.Moments: n, Σx, Σxxᵀ in 128-bit fixed
// point) and the counts of every 1-way and 2-way marginal over the
// marginal engine's discretised domain (domain.Domain). Both are exact
// integers, so any order of records, split between workers and order of
// merges gives the same bits. No noise is added here: the owner releases
// these through dppub's mechanisms (package dp), never inside a pipeline.
//
// With Config.Fine the marginals are counted over a fine domain (every
// numeric attribute cut at domain.FineEdges) from which a
// synthesize-rows owner answers its session's histograms and marginals
// exactly by summing fine cells (Statistics.Histogram, MarginalIn); see
// fine.go for which requests that covers.
package ownerstats

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/internal/wire"
	"github.com/dppub/dppub/method/ppcadpmh/ppca"
)

// Config is what every worker needs to encode a record: the schema, how
// the file is read, its first line (header or separator detection) and
// the marginal domain's bins. It is JSON so a pipeline can ship it.
type Config struct {
	Schema  data.Schema
	Read    data.ReadOptions
	First   string
	Bins    int            `json:",omitempty"` // domain.Options.Bins
	BinsFor map[string]int `json:",omitempty"`
	// Fine counts the marginals over the fine domain a synthesize-rows
	// owner needs instead of the engine's equal-width bins: each numeric
	// attribute cut at domain.FineEdges(a, its bins, Grid) and at its
	// equal-width bins' edges, every edge the session's public grid and
	// its bins (chosen from the data, or equal-width) can have, so that
	// any of them is a sum of fine cells. The file records the edges.
	Fine bool `json:",omitempty"`
	// Grid is the number of cells of the public grid the session releases
	// numeric histograms on (default domain.DefaultGrid; Fine only).
	Grid int `json:",omitempty"`
}

// cuts are the fine domain's edges by attribute name (nil unless Fine).
func (c Config) cuts() (map[string][]float64, error) {
	if !c.Fine {
		return nil, nil
	}
	// The equal-width domain of the same bins (a session that does not
	// choose its bins from the data): its lower edges must be fine edges
	// too. They are FineEdges' equal-width edges (domain.Domain cuts an
	// integer attribute at Min + ⌈b·(Max − Min)/bins⌉ as FineEdges does);
	// adding them keeps that true should either rule change.
	eq, err := domain.New(c.Schema, domain.Options{Bins: c.Bins, BinsFor: c.BinsFor})
	if err != nil {
		return nil, err
	}
	out := map[string][]float64{}
	for j, a := range c.Schema.Attributes {
		if a.Kind != data.Numeric {
			continue
		}
		bins := c.Bins
		if b, ok := c.BinsFor[a.Name]; ok {
			bins = b
		}
		e := domain.FineEdges(a, bins, c.Grid)
		for b := range eq.Size(j) {
			lo, _ := eq.BinRange(j, b)
			e = append(e, lo)
		}
		slices.Sort(e)
		out[a.Name] = slices.Compact(e)
	}
	return out, nil
}

// Statistics are one owner's exact statistics.
type Statistics struct {
	Moments *ppca.Moments
	// Sizes are the domain sizes of the attributes; Counts the 1-way
	// marginal of every attribute in order, then the 2-way marginal of
	// every pair a < b in order, each in domain.Count's cell order.
	Sizes  []int
	Counts []uint64
	// Edges, when the marginals were counted over a fine domain
	// (Config.Fine), are each numeric attribute's lower cell edges (nil
	// for the others): the cuts of that domain. Nil for the engine's
	// equal-width bins.
	Edges [][]float64
}

// layout is where each marginal starts in Counts.
type layout struct {
	sizes []int
	one   []int   // one[a]: offset of a's 1-way marginal
	two   [][]int // two[a][b-a-1]: offset of (a, b)'s 2-way marginal
	total int
}

func newLayout(sizes []int) layout {
	l := layout{sizes: sizes, one: make([]int, len(sizes)), two: make([][]int, len(sizes))}
	for a, s := range sizes {
		l.one[a] = l.total
		l.total += s
	}
	for a := range sizes {
		for b := a + 1; b < len(sizes); b++ {
			l.two[a] = append(l.two[a], l.total)
			l.total += sizes[a] * sizes[b]
		}
	}
	return l
}

// Marginal returns the counts of the marginal over attrs (one attribute,
// or two in increasing order), in domain.Count's cell order.
func (s *Statistics) Marginal(attrs ...int) ([]uint64, error) {
	l := newLayout(s.Sizes)
	switch {
	case len(attrs) == 1 && attrs[0] >= 0 && attrs[0] < len(s.Sizes):
		a := attrs[0]
		return s.Counts[l.one[a] : l.one[a]+s.Sizes[a]], nil
	case len(attrs) == 2 && attrs[0] >= 0 && attrs[0] < attrs[1] && attrs[1] < len(s.Sizes):
		a, b := attrs[0], attrs[1]
		o := l.two[a][b-a-1]
		return s.Counts[o : o+s.Sizes[a]*s.Sizes[b]], nil
	}
	return nil, fmt.Errorf("ownerstats: no marginal over %v (1 attribute, or 2 in increasing order, of %d)", attrs, len(s.Sizes))
}

// Equal reports whether two statistics are identical, bit for bit.
func (s *Statistics) Equal(o *Statistics) bool {
	if !s.Moments.Equal(o.Moments) || len(s.Sizes) != len(o.Sizes) || len(s.Counts) != len(o.Counts) {
		return false
	}
	for i := range s.Sizes {
		if s.Sizes[i] != o.Sizes[i] {
			return false
		}
	}
	for i := range s.Counts {
		if s.Counts[i] != o.Counts[i] {
			return false
		}
	}
	if len(s.Edges) != len(o.Edges) {
		return false
	}
	for j := range s.Edges {
		if !slices.Equal(s.Edges[j], o.Edges[j]) {
			return false
		}
	}
	return true
}

// Encoders are the core's per-record encodings for one configuration.
type Encoders struct {
	Row    *data.RowEncoder
	Domain *domain.Domain
	Dim    int
	layout layout
	edges  [][]float64
	// numeric[j] says attribute j is numeric: only those need
	// Domain.Bin; the cell of any other is its category index.
	numeric []bool
	// unit[c] says encoded column c belongs to a categorical or binary
	// attribute (its entry is 0 or 1); cellCol[j][b] is the column
	// holding 1 when such an attribute j is in cell b (-1 for a binary
	// attribute's cell 0, encoded as 0), nil for a numeric j.
	unit    []bool
	cellCol [][]int
}

// NewEncoders builds the core's encoders for c: data.Encoder (PPCA-DP-MH's
// one-hot and [0, 1] scaling) and domain.Domain (the marginal engine's
// bins, or with Fine the fine cells).
func (c Config) NewEncoders() (*Encoders, error) {
	enc, err := data.NewEncoder(c.Schema, data.EncoderOptions{})
	if err != nil {
		return nil, err
	}
	re, err := enc.RowEncoder(c.Schema)
	if err != nil {
		return nil, err
	}
	if c.Grid < 0 || c.Grid == 1 {
		return nil, fmt.Errorf("ownerstats: grid of %d cells, need at least 2", c.Grid)
	}
	cuts, err := c.cuts()
	if err != nil {
		return nil, err
	}
	dom, err := domain.New(c.Schema, domain.Options{Bins: c.Bins, BinsFor: c.BinsFor, Cuts: cuts})
	if err != nil {
		return nil, err
	}
	e := &Encoders{Row: re, Domain: dom, Dim: enc.Dim(), layout: newLayout(dom.Sizes())}
	e.unit = make([]bool, e.Dim)
	e.cellCol = make([][]int, len(c.Schema.Attributes))
	for j, a := range c.Schema.Attributes {
		e.numeric = append(e.numeric, a.Kind == data.Numeric)
		if a.Kind == data.Numeric {
			continue
		}
		cols, err := enc.Columns(a.Name)
		if err != nil {
			return nil, err
		}
		if a.Kind == data.Binary {
			cols = []int{-1, cols[0]}
		}
		if len(cols) != dom.Size(j) {
			return nil, fmt.Errorf("ownerstats: attribute %q has %d encoded cells and %d domain cells", a.Name, len(cols), dom.Size(j))
		}
		for _, col := range cols {
			if col >= 0 {
				e.unit[col] = true
			}
		}
		e.cellCol[j] = cols
	}
	if cuts != nil {
		e.edges = make([][]float64, len(c.Schema.Attributes))
		for j, a := range c.Schema.Attributes {
			e.edges[j] = cuts[a.Name]
		}
	}
	return e, nil
}

// New returns empty statistics for the encoders.
func (e *Encoders) New() *Statistics {
	return &Statistics{Moments: ppca.NewMoments(e.Dim), Sizes: e.Domain.Sizes(), Counts: make([]uint64, e.layout.total), Edges: e.edges}
}

// Scratch is one worker's reusable buffers.
type Scratch struct {
	idx   []int
	val   []float64
	units []int
	cells []int
	// counts, if set (count32), are addPartial's 32-bit counters of
	// rows records not yet in the statistics' Counts (flush).
	counts []uint32
	rows   uint64
}

// Add adds one record (a row of the schema) to s: its encoded row to the
// moments and one count to every marginal. Each record contributes once,
// with every encoded entry in [0, 1], exactly as in the core.
func (e *Encoders) Add(s *Statistics, row []float64, sc *Scratch) error {
	return e.add(s, row, sc, false)
}

// addPartial is Add less the moments' terms between categorical and
// binary columns only (ppca.Moments.AddSplit): s is incomplete until
// settle adds them from its marginal counts. Scan's workers use it; it
// leaves out about half the 128-bit additions of a row of Adult.
func (e *Encoders) addPartial(s *Statistics, row []float64, sc *Scratch) error {
	return e.add(s, row, sc, true)
}

func (e *Encoders) add(s *Statistics, row []float64, sc *Scratch, partial bool) error {
	var err error
	sc.idx, sc.val, _, err = e.Row.Sparse(row, sc.idx[:0], sc.val[:0])
	if err != nil {
		return err
	}
	if partial {
		// Move the unit columns' entries (each exactly 1: a one-hot
		// entry, or a binary attribute's positive category) out of
		// idx/val, keeping both in column order.
		n := 0
		sc.units = sc.units[:0]
		for k, c := range sc.idx {
			if e.unit[c] {
				if sc.val[k] != 1 {
					return fmt.Errorf("ownerstats: encoded column %d of a category holds %v, not 1", c, sc.val[k])
				}
				sc.units = append(sc.units, c)
				continue
			}
			sc.idx[n], sc.val[n] = c, sc.val[k]
			n++
		}
		s.Moments.AddSplit(sc.idx[:n], sc.val[:n], sc.units)
	} else {
		s.Moments.AddSparse(sc.idx, sc.val)
	}
	sc.cells = sc.cells[:0]
	for j, v := range row[:e.Domain.Len()] {
		// Domain.Bin's answer for a category index is int(v): calling
		// it for the 9 of Adult's 15 attributes that are not numeric
		// cost as much as the 6 numeric ones (it copies the attribute).
		c := int(v)
		if e.numeric[j] {
			c, _ = e.Domain.Bin(j, v)
		}
		sc.cells = append(sc.cells, c)
	}
	if partial && sc.counts != nil {
		count(sc.counts, &e.layout, sc.cells)
		sc.rows++
		return nil
	}
	count(s.Counts, &e.layout, sc.cells)
	return nil
}

// count adds one record in cells to the 1- and 2-way counts. The pair
// counts are most of the work per record (one increment per pair of
// attributes): each attribute's offsets, the later cells and their sizes
// are sliced once so that the inner loop indexes three slices of one
// length (a profile at 10⁶ rows: a third of Add).
func count[T uint32 | uint64](counts []T, l *layout, cells []int) {
	for a, ca := range cells {
		counts[l.one[a]+ca]++
		two, rest, sizes := l.two[a], cells[a+1:], l.sizes[a+1:]
		two, sizes = two[:len(rest)], sizes[:len(rest)]
		for k, cb := range rest {
			counts[two[k]+ca*sizes[k]+cb]++
		}
	}
}

// maxRows32 is how many records a worker counts in 32-bit counters
// before flush moves them into s.Counts: no counter can exceed the
// number of records counted, so none wraps.
// A variable so that a test can flush often.
var maxRows32 uint64 = 1<<32 - 1

// count32 makes addPartial count into sc's 32-bit counters, half the
// memory of s.Counts (17 676 counts of Adult's default domain: 71 KB
// instead of 141 KB, beside the moments' 92 KB, in each core's cache),
// until flush.
func (e *Encoders) count32(sc *Scratch) {
	if sc.counts == nil {
		sc.counts = make([]uint32, e.layout.total)
	}
}

// flush moves sc's 32-bit counts into s.Counts and zeroes them.
func (sc *Scratch) flush(s *Statistics) {
	if sc.rows == 0 {
		return
	}
	for i, c := range sc.counts {
		s.Counts[i] += uint64(c)
	}
	clear(sc.counts)
	sc.rows = 0
}

// settle adds to s's moments what addPartial left out, from s's counts:
// for a unit column (a categorical attribute's category, a binary one's
// positive category) its Σx term and its square are 1 in every row in
// its cell, so they add that cell's 1-way count; the product of two unit
// columns of different attributes is 1 in the rows in both cells, their
// 2-way count; two columns of one attribute are never 1 together. The
// counts are exact, so the moments are then Add's, bit for bit.
func (e *Encoders) settle(s *Statistics) {
	l := e.layout
	for a, ca := range e.cellCol {
		if ca == nil {
			continue
		}
		for x, p := range ca {
			if c := s.Counts[l.one[a]+x]; p >= 0 && c > 0 {
				s.Moments.AddUnits(p, -1, c)
				s.Moments.AddUnits(p, p, c)
			}
		}
		for b := a + 1; b < len(e.cellCol); b++ {
			cb := e.cellCol[b]
			if cb == nil {
				continue
			}
			o := l.two[a][b-a-1]
			for x, p := range ca {
				for y, q := range cb {
					if c := s.Counts[o+x*len(cb)+y]; p >= 0 && q >= 0 && c > 0 {
						s.Moments.AddUnits(p, q, c)
					}
				}
			}
		}
	}
}

// Merge adds o into s, exactly.
func (s *Statistics) Merge(o *Statistics) error {
	if len(o.Counts) != len(s.Counts) {
		return fmt.Errorf("ownerstats: merging %d counts into %d", len(o.Counts), len(s.Counts))
	}
	if (o.Edges == nil) != (s.Edges == nil) {
		return fmt.Errorf("ownerstats: merging statistics over another domain (fine cells %v into %v)", o.Edges != nil, s.Edges != nil)
	}
	if err := s.Moments.Merge(o.Moments); err != nil {
		return err
	}
	for i, c := range o.Counts {
		s.Counts[i] += c
	}
	return nil
}

// FromTable computes the statistics the core's in-process way: the
// moments by ppca.TableMoments, every marginal by domain.Count over
// domain.Domain.Encode's dataset.
func FromTable(t *data.Table, c Config) (*Statistics, error) {
	e, err := c.NewEncoders()
	if err != nil {
		return nil, err
	}
	enc, err := data.NewEncoder(c.Schema, data.EncoderOptions{})
	if err != nil {
		return nil, err
	}
	m, _, err := ppca.TableMoments(t, enc, 0)
	if err != nil {
		return nil, err
	}
	ds, _, err := e.Domain.Encode(t)
	if err != nil {
		return nil, err
	}
	s := e.New()
	s.Moments = m
	l := e.layout
	for a := range l.sizes {
		if err := fill(s.Counts[l.one[a]:], ds, a); err != nil {
			return nil, err
		}
		for b := a + 1; b < len(l.sizes); b++ {
			if err := fill(s.Counts[l.two[a][b-a-1]:], ds, a, b); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

func fill(dst []uint64, ds *domain.Dataset, attrs ...int) error {
	m, err := domain.Count(ds, attrs)
	if err != nil {
		return err
	}
	for i, c := range m.Counts {
		dst[i] = uint64(c)
	}
	return nil
}

// The file starts with a tag naming its version. Version 1 holds the
// moments, the domain sizes and the counts; version 2 adds each
// attribute's fine cell edges (Config.Fine). Statistics without edges are
// still written as version 1, so files PPCA-DP-MH owners wrote before
// keep their bytes and older readers keep reading them.
const (
	fileTag  = "dppub-owner-statistics\x01"
	fileTag2 = "dppub-owner-statistics\x02"
)

// MarshalBinary writes the statistics file.
func (s *Statistics) MarshalBinary() ([]byte, error) {
	mb, err := s.Moments.MarshalBinary()
	if err != nil {
		return nil, err
	}
	var w wire.Writer
	if s.Edges == nil {
		w.Tag(fileTag)
	} else {
		w.Tag(fileTag2)
	}
	w.Bytes(mb)
	sizes := make([]uint64, len(s.Sizes))
	for i, v := range s.Sizes {
		sizes[i] = uint64(v)
	}
	w.Uint64s(sizes)
	w.Uint64s(s.Counts)
	if s.Edges != nil {
		if len(s.Edges) != len(s.Sizes) {
			return nil, fmt.Errorf("ownerstats: edges of %d attributes for %d domain sizes", len(s.Edges), len(s.Sizes))
		}
		for _, e := range s.Edges {
			w.Float64s(e)
		}
	}
	return w.Data(), nil
}

// UnmarshalBinary reads a statistics file of either version.
func (s *Statistics) UnmarshalBinary(b []byte) error {
	r := wire.NewReader(b)
	v2 := bytes.HasPrefix(b, []byte(fileTag2))
	if v2 {
		r.Tag(fileTag2)
	} else {
		r.Tag(fileTag)
	}
	mb, sizes, counts := r.Bytes(), r.Uint64s(), r.Uint64s()
	var edges [][]float64
	if v2 {
		edges = make([][]float64, len(sizes))
		for j := range edges {
			if e := r.Float64s(); len(e) > 0 {
				edges[j] = e
			}
		}
	}
	if err := r.Finish(); err != nil {
		return fmt.Errorf("ownerstats: %w", err)
	}
	m := new(ppca.Moments)
	if err := m.UnmarshalBinary(mb); err != nil {
		return err
	}
	s.Moments, s.Sizes, s.Counts, s.Edges = m, make([]int, len(sizes)), counts, edges
	for i, v := range sizes {
		if v < 1 || v > 1<<16 {
			return fmt.Errorf("ownerstats: attribute %d has domain size %d", i, v)
		}
		s.Sizes[i] = int(v)
		if edges != nil && edges[i] != nil && len(edges[i]) != int(v) {
			return fmt.Errorf("ownerstats: attribute %d has %d fine edges for domain size %d", i, len(edges[i]), v)
		}
	}
	if l := newLayout(s.Sizes); l.total != len(counts) {
		return fmt.Errorf("ownerstats: %d counts for domain sizes %v, want %d", len(counts), s.Sizes, l.total)
	}
	return nil
}

// ReadFile reads a statistics file.
func ReadFile(path string) (*Statistics, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("ownerstats: %w", err)
	}
	s := new(Statistics)
	return s, s.UnmarshalBinary(b)
}

// ParseConfig reads a Config from JSON.
func ParseConfig(b []byte) (Config, error) {
	var c Config
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("ownerstats: config: %w", err)
	}
	return c, nil
}

// JSON is the configuration as workers receive it (ParseConfig reads it).
func (c Config) JSON() ([]byte, error) { return json.Marshal(c) }
