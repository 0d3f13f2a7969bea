package budgetstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dppub/dppub/dp"
	bolt "go.etcd.io/bbolt"
)

// damageLedger writes a ledger with enough spends that its entries
// bucket spans branch and leaf pages, and enough transactions that some
// pages are free, and returns its path.
func damageLedger(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "pristine.db")
	s := open(t, path)
	for _, d := range []string{"adult-a", "nltcs"} {
		if err := s.Define(d, dp.Approx(1000, 1e-3)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 300 {
		if err := s.Spend("adult-a", fmt.Sprintf("session-%03d", i), charge(fmt.Sprintf("marginal %d of a long session", i), dp.Pure(0.5))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Reserve("nltcs", "running", dp.Pure(1), accountant(t, dp.Pure(1))); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// ledgerPage is one page of a ledger file as bbolt sees it.
type ledgerPage struct {
	id  int
	typ string // meta, freelist, branch, leaf or free
}

// ledgerPages reads the page size from meta page 0 (the header is 16
// bytes; the meta's magic and version, 4 bytes each, precede the page
// size) and classifies every page with bbolt's own Tx.Page, skipping the
// continuation pages of an overflowing one.
func ledgerPages(t *testing.T, path string) (pageSize, inUse int, pages []ledgerPage) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pageSize = int(binary.LittleEndian.Uint32(b[16+8:]))
	if pageSize < 1024 || len(b)%pageSize != 0 {
		t.Fatalf("page size %d for a file of %d bytes", pageSize, len(b))
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, PreLoadFreelist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.View(func(tx *bolt.Tx) error {
		for id := 0; ; id++ {
			info, err := tx.Page(id)
			if err != nil || info == nil {
				inUse = id
				return err
			}
			pages = append(pages, ledgerPage{id, info.Type})
			id += info.OverflowCount
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return pageSize, inUse, pages
}

// damage is one way to corrupt a page in place.
type damage struct {
	name string
	// live: damage to a page in use must be found on opening.
	live bool
	// whole: the whole page is overwritten, as by a write torn by a
	// crash; one meta page so damaged leaves a working ledger.
	whole bool
	do    func(page []byte, rng *rand.Rand)
}

var damages = []damage{
	{"zeroed", true, true, func(p []byte, _ *rand.Rand) { clear(p) }},
	{"random bytes", true, true, func(p []byte, rng *rand.Rand) { fill(p, rng) }},
	// The header is id (8 bytes), flags (2), count (2), overflow (4).
	{"page id", true, false, func(p []byte, _ *rand.Rand) { binary.LittleEndian.PutUint64(p, binary.LittleEndian.Uint64(p)+7) }},
	{"type flags", true, false, func(p []byte, _ *rand.Rand) {
		binary.LittleEndian.PutUint16(p[8:], binary.LittleEndian.Uint16(p[8:])^0x13)
	}},
	{"element count", false, false, func(p []byte, _ *rand.Rand) { binary.LittleEndian.PutUint16(p[10:], 0xffff) }},
	{"overflow count", false, false, func(p []byte, _ *rand.Rand) { binary.LittleEndian.PutUint32(p[12:], 1<<30) }},
	// Behind an intact header: element offsets, page numbers, keys, values.
	{"body", false, false, func(p []byte, rng *rand.Rand) { fill(p[16:], rng) }},
}

func fill(b []byte, rng *rand.Rand) {
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
}

// Every kind of page of a ledger, damaged in every way: opening it and
// using it never panics (nor faults). Damage to a page in use is found
// when the ledger is opened, and named as a damaged ledger with what to
// do; damage to a free page, or one meta page overwritten whole (a write
// torn by a crash: bbolt falls back to the other, the commit before),
// leaves a working ledger. Damage
// inside a page's body that bbolt cannot see (a value's bytes) must give
// a working ledger or a clear error, never a panic.
func TestDamagedLedgerNeverPanics(t *testing.T) {
	pristine := damageLedger(t)
	pageSize, inUse, pages := ledgerPages(t, pristine)
	kinds := map[string]int{}
	for _, p := range pages {
		kinds[p.typ]++
	}
	for _, k := range []string{"meta", "freelist", "branch", "leaf", "free"} {
		if kinds[k] == 0 {
			t.Fatalf("the test ledger has no %s page (pages %v): it cannot test them", k, kinds)
		}
	}
	t.Logf("%d pages of %d bytes in use (%v)", inUse, pageSize, kinds)
	orig, err := os.ReadFile(pristine)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(38, 1))
	dir := t.TempDir()
	for _, p := range pages {
		for _, d := range damages {
			t.Run(fmt.Sprintf("%s page %d/%s", p.typ, p.id, d.name), func(t *testing.T) {
				b := append([]byte(nil), orig...)
				d.do(b[p.id*pageSize:(p.id+1)*pageSize], rng)
				path := filepath.Join(dir, fmt.Sprintf("p%d-%s.db", p.id, strings.ReplaceAll(d.name, " ", "-")))
				if err := os.WriteFile(path, b, 0o600); err != nil {
					t.Fatal(err)
				}
				mustFind := d.live && p.typ != "free" && !(p.typ == "meta" && d.whole)
				useDamaged(t, path, mustFind, p.typ == "free" || (p.typ == "meta" && d.whole))
			})
		}
	}
	t.Run("both meta pages zeroed", func(t *testing.T) {
		b := append([]byte(nil), orig...)
		clear(b[:2*pageSize])
		path := filepath.Join(dir, "metas.db")
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		useDamaged(t, path, true, false)
	})
	for _, c := range []struct {
		name string
		size int
	}{{"empty", 0}, {"one page", pageSize}, {"cut to half", len(orig) / 2 / pageSize * pageSize}, {"cut mid-page", inUse*pageSize - pageSize/2}} {
		t.Run("file "+c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".db")
			if err := os.WriteFile(path, orig[:c.size], 0o600); err != nil {
				t.Fatal(err)
			}
			useDamaged(t, path, true, false)
		})
	}
	t.Run("not a ledger", func(t *testing.T) {
		path := filepath.Join(dir, "text.db")
		if err := os.WriteFile(path, []byte(strings.Repeat("age,smoker,region\n30,no,north\n", 1000)), 0o600); err != nil {
			t.Fatal(err)
		}
		useDamaged(t, path, true, false)
	})
}

// useDamaged opens the damaged ledger at path and uses it as a member
// would. mustFind: opening must fail with a *DamagedError that names the
// file and says to restore it from a backup; the file must not change.
// intact: the damage cannot matter, so every call must succeed.
func useDamaged(t *testing.T, path string, mustFind, intact bool) {
	t.Helper()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(Options{Path: path, LockTimeout: 100 * time.Millisecond})
	if mustFind {
		after, rerr := os.ReadFile(path)
		switch {
		case err == nil:
			s.Close()
			t.Fatal("a damaged ledger opened")
		case !isDamaged(err, path):
			t.Fatalf("error %q is not a damaged ledger naming the file and a backup", err)
		case rerr != nil || string(after) != string(before):
			t.Fatalf("opening the damaged ledger changed it (%v)", rerr)
		}
		return
	}
	if err != nil {
		if intact || !isDamaged(err, path) {
			t.Fatalf("open: %v", err)
		}
		return
	}
	defer func() {
		if err := s.Close(); err != nil && (intact || !isDamaged(err, path)) {
			t.Errorf("close: %v", err)
		}
	}()
	calls := []struct {
		name string
		call func() error
	}{
		{"verify", s.Verify},
		{"balance", func() error { _, err := s.Balance("adult-a"); return err }},
		{"entries", func() error { _, err := s.Entries("adult-a"); return err }},
		{"reservations", func() error { _, err := s.Reservations("nltcs"); return err }},
		{"accountant", func() error { _, err := s.LoadAccountant("adult-a", "p"); return err }},
		{"spend", func() error { return s.Spend("adult-a", "after", charge("more", dp.Pure(0.5))) }},
		{"reserve", func() error {
			_, err := s.Reserve("adult-a", "next", dp.Pure(0.5), accountant(t, dp.Pure(0.5)))
			return err
		}},
		{"release", func() error { _, err := s.ReleaseOpen("nltcs", "restarted"); return err }},
	}
	for _, c := range calls {
		err := c.call()
		switch {
		case err == nil:
		case intact:
			t.Errorf("%s on a ledger whose damage cannot matter: %v", c.name, err)
		case !strings.HasPrefix(err.Error(), "budgetstore: "):
			t.Errorf("%s: error %q does not come from the store", c.name, err)
		}
	}
}

func isDamaged(err error, path string) bool {
	var d *DamagedError
	return errors.As(err, &d) && d.Path == path && strings.Contains(err.Error(), path) &&
		strings.Contains(err.Error(), "restore it from a backup")
}
