package domain

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
)

// tallyPage is the number of rows in a page of a Tally's tuples (and in
// the pieces Chunks returns): pages are never reallocated, so a growing
// tally copies nothing but its slot table.
const tallyPage = 1 << 16

// tallyOverhead is what a distinct tuple costs a Tally beyond its cells,
// in bytes: its weight (4) and its share of the slot table (4 bytes a
// slot, 2 to 4 slots a tuple: 12 on average).
const tallyOverhead = 16

// tallyFirstCheck is the number of rows a Tally takes in before it first
// asks whether merging pays (and again at every doubling): enough for a
// data set whose tuples repeat to show it, small enough that a table of
// distinct tuples costs little (a few MB) before it stops merging.
const tallyFirstCheck = 1 << 18

// Tally holds records over one domain as distinct tuples of cells, each
// with a weight, the number of records that hold it, merging every record
// into its tuple as it is added: its memory grows with the number of
// distinct tuples (bounded by the domain), not with the number of
// records. Everything the engine computes from records is a count over
// cells, and a tuple of weight k adds k to every count, so the counts —
// and so every release and output — are those of the records one by one.
//
// A distinct tuple costs its cells (a byte per attribute, two when the
// attribute has more than 256 cells) plus tallyOverhead bytes, where a
// record held one by one (Cells) costs its cells alone; when, at
// tallyFirstCheck rows added and at every doubling since, merging has not
// saved more than it costs, the tally stops merging and holds the rest
// one row per record, as Cells would. A Tally is not safe for concurrent
// use: a reader gives each worker its own and merges their Chunks.
type Tally struct {
	sizes  []int
	off    []int // attribute j's first byte in a key
	wide   []bool
	stride int // bytes in a key
	seed   maphash.Seed

	// keys and wts hold the tuples, row-major, in pages of tallyPage
	// rows; rows counts them. A tuple whose weight would pass
	// math.MaxUint32 goes on in a new row (the slot points there).
	keys  [][]byte
	wts   [][]uint32
	rows  int
	slots []uint32 // linear probing: a row's index + 1, 0 for empty
	used  int      // slots in use

	added, check int // rows added; when to ask whether merging pays
	plain        bool
	tail         Chunks // rows added since merging stopped
	fill         *Cells // the piece of tail AddRows fills
	scratch      *Cells
	keyBuf       []byte
}

// NewTally returns an empty tally over a domain of the given sizes
// (each at most 1<<16).
func NewTally(sizes []int) *Tally {
	t := &Tally{sizes: slices.Clone(sizes), off: make([]int, len(sizes)), wide: make([]bool, len(sizes)),
		seed: maphash.MakeSeed(), check: tallyFirstCheck}
	for j, s := range sizes {
		t.off[j] = t.stride
		t.wide[j] = s > 1<<8
		if t.wide[j] {
			t.stride += 2
		} else {
			t.stride++
		}
	}
	t.slots = make([]uint32, 1<<10)
	return t
}

// Distinct is the number of rows held: distinct tuples, plus the rows
// added one by one after merging stopped.
func (t *Tally) Distinct() int {
	return t.rows + t.tail.Distinct()
}

// Merging reports whether the tally still merges records into tuples.
func (t *Tally) Merging() bool { return !t.plain }

// AddRows discretises rows (cells of the domain's schema, as a reader
// parsed them) with d, whose sizes must be the tally's, and adds them;
// it returns how many values were clamped to their bounds.
func (t *Tally) AddRows(d *Domain, rows [][]float64) (int, error) {
	if !slices.Equal(d.Sizes(), t.sizes) {
		return 0, fmt.Errorf("domain: tally over domain sizes %v, rows encoded with %v", t.sizes, d.Sizes())
	}
	clamped := 0
	for len(rows) > 0 {
		var c *Cells
		if t.plain {
			// Straight into the last piece, as a reader without a
			// tally would.
			if t.fill == nil || t.fill.n == tallyPage {
				t.fill = newCells(t.sizes, tallyPage)
				t.fill.n = 0
				t.tail = append(t.tail, t.fill)
			}
			c = t.fill
		} else {
			if t.scratch == nil {
				t.scratch = newCells(t.sizes, tallyPage)
			}
			c = t.scratch
			c.n = 0
		}
		at := c.n
		k := min(len(rows), tallyPage-at)
		c.n = at + k
		n, err := d.EncodeInto(rows[:k], c, at)
		if err != nil {
			c.n = at
			return clamped, err
		}
		clamped += n
		rows = rows[k:]
		if !t.plain {
			if err := t.insertCells(c); err != nil {
				return clamped, err
			}
		}
	}
	return clamped, nil
}

// AddCells adds c's rows with their weights. The tally may keep c itself
// (once it has stopped merging): the caller must not change c afterwards.
func (t *Tally) AddCells(c *Cells) error {
	if !slices.Equal(c.sizes, t.sizes) {
		return fmt.Errorf("domain: tally over domain sizes %v, cells over %v", t.sizes, c.sizes)
	}
	if t.plain {
		if c.n > 0 {
			t.tail = append(t.tail, c)
		}
		return nil
	}
	return t.insertCells(c)
}

// insertCells merges every row of c into the tuples, then asks whether
// merging still pays.
func (t *Tally) insertCells(c *Cells) error {
	s := t.stride
	if cap(t.keyBuf) < c.n*s {
		t.keyBuf = make([]byte, c.n*s)
	}
	buf := t.keyBuf[:c.n*s]
	// Column by column into row-major keys: each column is read in
	// order, and a key is then one short run of bytes to hash and
	// compare.
	for j := range t.sizes {
		o := t.off[j]
		switch {
		case c.b[j] != nil && !t.wide[j]:
			for i, v := range c.b[j][:c.n] {
				buf[i*s+o] = v
			}
		case !t.wide[j]:
			for i, v := range c.w[j][:c.n] {
				buf[i*s+o] = uint8(v)
			}
		default:
			for i := range c.n {
				v := c.get(j, i)
				buf[i*s+o], buf[i*s+o+1] = uint8(v), uint8(v>>8)
			}
		}
	}
	for i := range c.n {
		w := uint32(1)
		if c.wt != nil {
			w = c.wt[i]
		}
		if err := t.insert(buf[i*s:(i+1)*s], w); err != nil {
			return err
		}
	}
	t.added += c.n
	if t.added >= t.check {
		if t.rows*(t.stride+tallyOverhead) > t.added*t.stride {
			// Merging costs more than it saves: hold the rest one row
			// per record.
			t.plain, t.slots, t.used = true, nil, 0
		}
		t.check = 2 * t.added
	}
	return nil
}

// key is row r's key.
func (t *Tally) key(r int) []byte {
	o := (r % tallyPage) * t.stride
	return t.keys[r/tallyPage][o : o+t.stride]
}

// insert adds w records of key.
func (t *Tally) insert(key []byte, w uint32) error {
	if w == 0 {
		return nil
	}
	mask := len(t.slots) - 1
	for p := int(maphash.Bytes(t.seed, key)) & mask; ; p = (p + 1) & mask {
		sl := t.slots[p]
		if sl == 0 {
			r, err := t.appendRow(key, w)
			if err != nil {
				return err
			}
			t.slots[p] = uint32(r + 1)
			t.used++
			if 2*t.used > len(t.slots) {
				t.grow()
			}
			return nil
		}
		r := int(sl - 1)
		if !bytes.Equal(t.key(r), key) {
			continue
		}
		wt := &t.wts[r/tallyPage][r%tallyPage]
		if *wt <= math.MaxUint32-w {
			*wt += w
			return nil
		}
		// The tuple's weight is full: the rest goes on in a new row.
		rest := w - (math.MaxUint32 - *wt)
		*wt = math.MaxUint32
		nr, err := t.appendRow(key, rest)
		if err != nil {
			return err
		}
		t.slots[p] = uint32(nr + 1)
		return nil
	}
}

// appendRow stores a new row of w records of key and returns its index.
func (t *Tally) appendRow(key []byte, w uint32) (int, error) {
	if t.rows >= math.MaxUint32-1 {
		return 0, fmt.Errorf("domain: more than %d distinct records", t.rows)
	}
	p := t.rows / tallyPage
	if p == len(t.keys) {
		// The first page grows with the tuples (a small table stays
		// small); later ones are allocated whole.
		n := tallyPage
		if p == 0 {
			n = 1 << 10
		}
		t.keys = append(t.keys, make([]byte, 0, n*t.stride))
		t.wts = append(t.wts, make([]uint32, 0, n))
	}
	t.keys[p] = append(t.keys[p], key...)
	t.wts[p] = append(t.wts[p], w)
	t.rows++
	return t.rows - 1, nil
}

// grow doubles the slot table, placing every tuple anew.
func (t *Tally) grow() {
	old := t.slots
	t.slots = make([]uint32, 2*len(old))
	mask := len(t.slots) - 1
	for _, sl := range old {
		if sl == 0 {
			continue
		}
		p := int(maphash.Bytes(t.seed, t.key(int(sl-1)))) & mask
		for t.slots[p] != 0 {
			p = (p + 1) & mask
		}
		t.slots[p] = sl
	}
}

// Chunks returns the tally's rows: the tuples with their weights, in
// pieces of at most tallyPage rows, then the rows added after merging
// stopped. The tally is empty afterwards; its pages are released as they
// are turned into pieces, so the records are never held twice.
func (t *Tally) Chunks() Chunks {
	t.slots, t.used = nil, 0
	var out Chunks
	for p := range t.keys {
		keys, n := t.keys[p], len(t.wts[p])
		c := newCells(t.sizes, n)
		for j := range t.sizes {
			o, s := t.off[j], t.stride
			switch {
			case c.b[j] != nil:
				for i := range n {
					c.b[j][i] = keys[i*s+o]
				}
			default:
				for i := range n {
					c.w[j][i] = uint16(keys[i*s+o]) | uint16(keys[i*s+o+1])<<8
				}
			}
		}
		c.wt = t.wts[p]
		t.keys[p], t.wts[p] = nil, nil
		out = append(out, c)
	}
	out = append(out, t.tail...)
	*t = Tally{sizes: t.sizes, off: t.off, wide: t.wide, stride: t.stride, seed: t.seed, check: tallyFirstCheck,
		slots: make([]uint32, 1<<10)}
	return out
}

// Merged returns cs's records with identical tuples merged into weighted
// rows (Tally): the same counts over fewer rows. It consumes cs: each
// piece is dropped (cs[i] = nil) once its rows are merged, so that the
// records are not held twice; use the result instead.
func (cs Chunks) Merged() (Chunks, error) {
	if len(cs) == 0 {
		return nil, nil
	}
	if err := cs.Check(); err != nil {
		return nil, err
	}
	t := NewTally(cs[0].sizes)
	for i, c := range cs {
		if err := t.AddCells(c); err != nil {
			return nil, err
		}
		cs[i] = nil
	}
	return t.Chunks(), nil
}
