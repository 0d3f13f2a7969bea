package budgetstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
)

// bbolt's file format (version 2), as far as checkPages reads it. bbolt
// trusts its pages: a page count or element count taken from a damaged
// page makes it allocate or loop without bound (an out-of-memory crash,
// which no recover stops: freelist counts, tx.Check's overflow loop), and
// a page number beyond the file makes it read outside its memory map.
// checkPages therefore reads the file's bytes itself first, and bbolt
// opens only a file whose meta page, free list and every page reachable
// from the root lie within the file and hold what they claim.
const (
	pageHeaderSize = 16 // id uint64, flags uint16, count uint16, overflow uint32
	elementSize    = 16 // branch: pos, ksize uint32, pgid uint64; leaf: flags, pos, ksize, vsize uint32
	metaChecked    = 56 // the meta's bytes its FNV-64a checksum covers
	bucketHeader   = 16 // a bucket value: root pgid, sequence uint64

	boltMagic   = 0xED0CDAED
	boltVersion = 2

	flagBranch   = 0x01
	flagLeaf     = 0x02
	flagFreelist = 0x10
	bucketLeaf   = 0x01

	noFreelist = ^uint64(0)
	// maxDepth bounds the nesting of buckets and of B+tree levels (a
	// ledger's buckets nest two deep; a tree of a million keys is a few
	// levels).
	maxDepth = 64
)

// meta is the part of a meta page checkPages uses.
type meta struct {
	pageSize       int
	root, freelist uint64
	pgid, txid     uint64
}

// readMeta decodes the meta page at off, or says why it is not valid.
func readMeta(b []byte, off int) (meta, error) {
	m := b[min(off+pageHeaderSize, len(b)):]
	if len(m) < metaChecked+8 {
		return meta{}, errors.New("missing")
	}
	le := binary.LittleEndian
	h := fnv.New64a()
	h.Write(m[:metaChecked])
	switch {
	case le.Uint32(m) != boltMagic:
		return meta{}, errors.New("not a bbolt meta page")
	case le.Uint32(m[4:]) != boltVersion:
		return meta{}, fmt.Errorf("bbolt format version %d", le.Uint32(m[4:]))
	case le.Uint64(m[metaChecked:]) != h.Sum64():
		return meta{}, errors.New("checksum mismatch")
	}
	return meta{pageSize: int(le.Uint32(m[8:])), root: le.Uint64(m[16:]), freelist: le.Uint64(m[32:]),
		pgid: le.Uint64(m[40:]), txid: le.Uint64(m[48:])}, nil
}

// currentMeta is the meta page bbolt uses: of the valid ones, the later
// commit. Page 1 is read at page 0's page size, or at the system's when
// page 0 is damaged, as bbolt does. A meta page torn by a crash during a
// commit (torn: one of the two is not valid) leaves the other, the commit
// before: the ledger as it was before the commit that did not complete,
// whose charges were then never acknowledged, so never released.
func currentMeta(b []byte) (m meta, torn bool, err error) {
	m0, err0 := readMeta(b, 0)
	off1 := os.Getpagesize()
	if err0 == nil {
		off1 = m0.pageSize
	}
	m1, err1 := readMeta(b, off1)
	switch {
	case err0 != nil && err1 != nil:
		return meta{}, true, fmt.Errorf("neither meta page is valid (page 0: %v; page 1: %v)", err0, err1)
	case err1 != nil || (err0 == nil && m0.txid > m1.txid):
		return m0, err1 != nil, nil
	}
	return m1, err0 != nil, nil
}

// pageChecker walks a ledger file's pages.
type pageChecker struct {
	b    []byte
	m    meta
	free map[uint64]bool
	seen map[uint64]bool
}

// checkPages checks the ledger file b: its current meta page, its free
// list and every page reachable from its root bucket (see the constants
// above). torn reports a meta page torn by a crash (see currentMeta).
func checkPages(b []byte) (torn bool, err error) {
	m, torn, err := currentMeta(b)
	if err != nil {
		return torn, err
	}
	return torn, checkTree(b, m)
}

func checkTree(b []byte, m meta) error {
	ps := m.pageSize
	switch {
	case ps < 512 || ps > 1<<20 || ps&(ps-1) != 0:
		return fmt.Errorf("page size %d", ps)
	case m.pgid < 3 || m.pgid > uint64(len(b)/ps):
		return fmt.Errorf("the file is %d bytes, but its pages reach to byte %d: it was cut short", len(b), m.pgid*uint64(ps))
	case m.freelist == noFreelist:
		return errors.New("its free-page list is not stored (not a ledger written by dppub)")
	}
	c := &pageChecker{b: b, m: m, free: map[uint64]bool{}, seen: map[uint64]bool{0: true, 1: true}}
	if err := c.freelist(); err != nil {
		return err
	}
	return c.tree(m.root, 0)
}

// page returns the bytes of page id and of its overflow pages, after
// checking its header: its own id, its type, and that it ends within the
// file's pages.
func (c *pageChecker) page(id uint64, flags ...uint16) ([]byte, uint16, error) {
	if id < 2 || id >= c.m.pgid {
		return nil, 0, fmt.Errorf("page %d is outside the file's %d pages", id, c.m.pgid)
	}
	ps := uint64(c.m.pageSize)
	h := c.b[id*ps:]
	le := binary.LittleEndian
	got, flag, overflow := le.Uint64(h), le.Uint16(h[8:]), uint64(le.Uint32(h[12:]))
	switch {
	case got != id:
		return nil, 0, fmt.Errorf("page %d says it is page %d", id, got)
	case id+overflow >= c.m.pgid:
		return nil, 0, fmt.Errorf("page %d claims %d overflow pages, beyond the file's %d pages", id, overflow, c.m.pgid)
	}
	for _, f := range flags {
		if flag == f {
			return c.b[id*ps : (id+overflow+1)*ps], flag, c.claim(id, overflow)
		}
	}
	return nil, 0, fmt.Errorf("page %d has type flags %#x", id, flag)
}

// claim records that pages id to id+overflow are in use, once.
func (c *pageChecker) claim(id, overflow uint64) error {
	for p := id; p <= id+overflow; p++ {
		switch {
		case c.seen[p]:
			return fmt.Errorf("page %d is used twice", p)
		case c.free[p]:
			return fmt.Errorf("page %d is in use and on the free list", p)
		}
		c.seen[p] = true
	}
	return nil
}

// freelist reads the free list: a count (0xFFFF: the count is the first
// id slot) and the free page ids, each within the file.
func (c *pageChecker) freelist() error {
	p, _, err := c.page(c.m.freelist, flagFreelist)
	if err != nil {
		return fmt.Errorf("free list: %w", err)
	}
	le := binary.LittleEndian
	ids := p[pageHeaderSize:]
	n := uint64(le.Uint16(p[10:]))
	if n == 0xFFFF {
		n, ids = le.Uint64(ids), ids[8:]
	}
	if n > uint64(len(ids)/8) {
		return fmt.Errorf("free list: page %d claims %d free pages, more than it holds", c.m.freelist, n)
	}
	for i := range n {
		id := le.Uint64(ids[8*i:])
		if id < 2 || id >= c.m.pgid || c.seen[id] || c.free[id] {
			return fmt.Errorf("free list: page %d lists page %d, which is a meta page, the free list itself, outside the file or listed twice", c.m.freelist, id)
		}
		c.free[id] = true
	}
	return nil
}

// tree checks the B+tree whose root is page id, and the buckets its
// leaves hold.
func (c *pageChecker) tree(id uint64, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("page %d: pages or buckets nest more than %d deep", id, maxDepth)
	}
	p, flag, err := c.page(id, flagBranch, flagLeaf)
	if err != nil {
		return err
	}
	elems, err := elements(p, id)
	if err != nil {
		return err
	}
	for _, e := range elems {
		if flag == flagBranch {
			err = c.tree(e.pgid, depth+1)
		} else if e.flags&bucketLeaf != 0 {
			err = c.bucket(e.value, id, depth+1)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// bucket checks a bucket stored as a leaf value: its root page's tree,
// or the page inlined after its header (root 0).
func (c *pageChecker) bucket(v []byte, leaf uint64, depth int) error {
	if len(v) < bucketHeader {
		return fmt.Errorf("page %d: a bucket value of %d bytes", leaf, len(v))
	}
	if root := binary.LittleEndian.Uint64(v); root != 0 {
		return c.tree(root, depth)
	}
	inline := v[bucketHeader:]
	if len(inline) < pageHeaderSize || binary.LittleEndian.Uint16(inline[8:]) != flagLeaf {
		return fmt.Errorf("page %d: an inline bucket that is not a leaf page", leaf)
	}
	elems, err := elements(inline, leaf)
	if err != nil {
		return err
	}
	for _, e := range elems {
		if e.flags&bucketLeaf != 0 {
			if err := c.bucket(e.value, leaf, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// element is one decoded element of a branch or leaf page.
type element struct {
	flags uint32
	pgid  uint64 // branch: the child page
	value []byte // leaf
}

// elements decodes the elements of page p (id names it in errors),
// checking that each key and value lies within the page's bytes.
func elements(p []byte, id uint64) ([]element, error) {
	le := binary.LittleEndian
	flag, n := le.Uint16(p[8:]), int(le.Uint16(p[10:]))
	if pageHeaderSize+n*elementSize > len(p) {
		return nil, fmt.Errorf("page %d claims %d elements, more than its %d bytes hold", id, n, len(p))
	}
	out := make([]element, n)
	for i := range out {
		off := pageHeaderSize + i*elementSize
		e := p[off : off+elementSize]
		var pos, ksize, vsize uint64
		if flag == flagBranch {
			pos, ksize = uint64(le.Uint32(e)), uint64(le.Uint32(e[4:]))
			out[i].pgid = le.Uint64(e[8:])
		} else {
			out[i].flags = le.Uint32(e)
			pos, ksize, vsize = uint64(le.Uint32(e[4:])), uint64(le.Uint32(e[8:])), uint64(le.Uint32(e[12:]))
		}
		start := uint64(off) + pos
		if start+ksize+vsize > uint64(len(p)) {
			return nil, fmt.Errorf("page %d: element %d's key and value lie beyond the page", id, i)
		}
		out[i].value = p[start+ksize : start+ksize+vsize]
	}
	return out, nil
}
