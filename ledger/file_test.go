package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// diskLog is a closed ledger of n entries and what the test needs of it.
type diskLog struct {
	dir        string
	data       []byte  // the data file
	offsets    []int64 // record starts
	checkpoint []byte  // signed at size n
}

// writeLog writes n entries with a fresh fixture into a fresh directory
// and closes the ledger.
func writeLog(t *testing.T, n int) (*fixture, diskLog) {
	t.Helper()
	f := newFixture(t)
	dir := t.TempDir()
	l, err := Open(dir, f.options())
	if err != nil {
		t.Fatal(err)
	}
	f.fill(t, l, n)
	cp, err := l.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	offsets := append([]int64(nil), l.offsets...)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, DataFile))
	if err != nil {
		t.Fatal(err)
	}
	return f, diskLog{dir: dir, data: data, offsets: offsets, checkpoint: cp}
}

// openBytes writes data as the data file of a fresh directory and opens it.
func openBytes(t *testing.T, f *fixture, data []byte, readOnly bool) (*FileLedger, string, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, DataFile), data, 0o600); err != nil {
		t.Fatal(err)
	}
	o := f.options()
	o.ReadOnly = readOnly
	l, err := Open(dir, o)
	if err == nil {
		t.Cleanup(func() { l.Close() })
	}
	return l, dir, err
}

func TestFileReopenContinues(t *testing.T) {
	f, d := writeLog(t, 5)
	saved, err := LatestCheckpoint(d.dir)
	if err != nil || !bytes.Equal(saved, d.checkpoint) {
		t.Fatalf("saved checkpoint %q, %v", saved, err)
	}
	l := f.open(t, d.dir)
	if l.Len() != 5 || l.TornTail() != nil {
		t.Fatalf("reopened: len %d, torn %v", l.Len(), l.TornTail())
	}
	again, err := l.Checkpoint()
	if err != nil || !bytes.Equal(again, d.checkpoint) {
		t.Fatalf("checkpoint after reopen differs: %s vs %s (%v)", again, d.checkpoint, err)
	}
	f.fill(t, l, 3)
	cp, _ := l.Checkpoint()
	if _, err := f.verify(l, cp); err != nil {
		t.Fatal(err)
	}
	p, _ := l.ProveConsistency(5, 8)
	if _, _, err := VerifyConsistency(d.checkpoint, cp, p, f.verifier); err != nil {
		t.Fatal(err)
	}
}

// TestFileEveryByteFlipDetected flips every byte of a small data file: the
// checksums make Open refuse it (a flip is never taken for a torn tail),
// and anything that did open must fail Verify.
func TestFileEveryByteFlipDetected(t *testing.T) {
	f, d := writeLog(t, 3)
	byOpen := 0
	for pos := range d.data {
		data := bytes.Clone(d.data)
		data[pos] ^= 0x10
		l, _, err := openBytes(t, f, data, true)
		if err != nil {
			if pos >= len(fileMagic) && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("byte %d: error %v, want ErrCorrupt", pos, err)
			}
			byOpen++
			continue
		}
		if _, err := f.verify(l, d.checkpoint); err == nil {
			t.Fatalf("flipping byte %d of %d went undetected (torn tail %v)", pos, len(d.data), l.TornTail())
		}
	}
	t.Logf("%d of %d flips refused by Open, the rest by Verify", byOpen, len(d.data))
	if byOpen != len(d.data) {
		t.Errorf("only %d of %d flips refused by Open: checksums should catch all", byOpen, len(d.data))
	}
}

// TestFileTamperWithRecomputedChecksums: an attacker who alters a byte of an
// entry and fixes the checksums is caught by the chain or by Verify.
func TestFileTamperWithRecomputedChecksums(t *testing.T) {
	f, d := writeLog(t, 3)
	bounds := append(d.offsets, int64(len(d.data)))
	atOpen, atVerify := 0, 0
	for r := range d.offsets {
		body := d.data[bounds[r]+headerLen : bounds[r+1]-trailerLen]
		for j := range body {
			alt := bytes.Clone(body)
			alt[j] ^= 0x01
			data := bytes.Join([][]byte{d.data[:bounds[r]], frame(alt), d.data[bounds[r+1]:]}, nil)
			l, _, err := openBytes(t, f, data, true)
			if err != nil {
				atOpen++
				continue
			}
			if _, err := f.verify(l, d.checkpoint); err == nil {
				t.Fatalf("record %d byte %d altered with valid checksums went undetected", r, j)
			}
			atVerify++
		}
	}
	t.Logf("re-checksummed tampering: %d caught at Open (chain, seq, format), %d by Verify (signature, root)", atOpen, atVerify)
	if atVerify == 0 {
		t.Error("no tampering reached Verify: the test does not exercise it")
	}
}

func TestFileReorderAndDropDetected(t *testing.T) {
	f, d := writeLog(t, 4)
	b := append(d.offsets, int64(len(d.data)))
	rec := func(i int) []byte { return d.data[b[i]:b[i+1]] }
	head := d.data[:b[0]]

	swapped := bytes.Join([][]byte{head, rec(0), rec(2), rec(1), rec(3)}, nil)
	if _, _, err := openBytes(t, f, swapped, true); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "seq 2 at index 1") {
		t.Fatalf("swapped records 1 and 2: error %v", err)
	}
	dropped := bytes.Join([][]byte{head, rec(0), rec(1), rec(3)}, nil)
	if _, _, err := openBytes(t, f, dropped, true); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("dropped record 2: error %v", err)
	}
	// Dropping the last record leaves a valid shorter log; the checkpoint
	// the owners hold exposes it.
	l, _, err := openBytes(t, f, d.data[:b[3]], true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.verify(l, d.checkpoint); err == nil || !strings.Contains(err.Error(), "dropped") {
		t.Fatalf("dropped last record: error %v", err)
	}
}

// TestFileTornTailEveryOffset simulates a crash during the last append:
// the data file is cut at every byte offset inside the last record.
func TestFileTornTailEveryOffset(t *testing.T) {
	f, d := writeLog(t, 4)
	// The checkpoint of the surviving 3-entry prefix.
	prefix, _, err := openBytes(t, f, d.data[:d.offsets[3]], false)
	if err != nil {
		t.Fatal(err)
	}
	cp3, _ := prefix.Checkpoint()
	last := d.offsets[3]
	for cut := last + 1; cut < int64(len(d.data)); cut++ {
		for _, readOnly := range []bool{false, true} {
			l, dir, err := openBytes(t, f, d.data[:cut], readOnly)
			if err != nil {
				t.Fatalf("cut at %d (read-only %v): %v", cut, readOnly, err)
			}
			torn := l.TornTail()
			want := TornTail{Offset: last, Bytes: cut - last, Truncated: !readOnly}
			if torn == nil || *torn != want {
				t.Fatalf("cut at %d: torn tail %v, want %v", cut, torn, want)
			}
			if l.Len() != 3 {
				t.Fatalf("cut at %d: %d entries survive, want 3", cut, l.Len())
			}
			if _, err := f.verify(l, cp3); err != nil {
				t.Fatalf("cut at %d: surviving prefix fails Verify: %v", cut, err)
			}
			fi, _ := os.Stat(filepath.Join(dir, DataFile))
			if wantSize := map[bool]int64{false: last, true: cut}[readOnly]; fi.Size() != wantSize {
				t.Fatalf("cut at %d (read-only %v): file size %d, want %d", cut, readOnly, fi.Size(), wantSize)
			}
			if !readOnly {
				// The recovered ledger takes the lost entry again.
				f.fill(t, l, 1)
				cp, _ := l.Checkpoint()
				if cp4 := d.checkpoint; !bytes.Equal(cp, cp4) {
					t.Fatalf("cut at %d: re-appended log differs from the original", cut)
				}
			}
		}
	}
	if _, err := f.verify(prefix, d.checkpoint); err == nil {
		t.Fatal("3-entry prefix verified against the 4-entry checkpoint")
	}
}

func TestFileZeroFilledTailIsTorn(t *testing.T) {
	f, d := writeLog(t, 2)
	l, _, err := openBytes(t, f, append(bytes.Clone(d.data), make([]byte, 300)...), false)
	if err != nil {
		t.Fatal(err)
	}
	if torn := l.TornTail(); torn == nil || torn.Bytes != 300 || l.Len() != 2 {
		t.Fatalf("zero tail: torn %v, len %d", torn, l.Len())
	}
	// Zeros followed by anything else are not a torn write.
	junk := append(append(bytes.Clone(d.data), make([]byte, 20)...), 1)
	if _, _, err := openBytes(t, f, junk, false); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("zeros then junk: error %v, want ErrCorrupt", err)
	}
}

func TestFileChecksumMismatchInMiddleQuotesOffset(t *testing.T) {
	f, d := writeLog(t, 3)
	data := bytes.Clone(d.data)
	data[d.offsets[1]+headerLen+20] ^= 0xff
	_, _, err := openBytes(t, f, data, false)
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), fmt.Sprintf("record 1 at offset %d", d.offsets[1])) {
		t.Fatalf("error %v", err)
	}
	// Not repaired: the file is unchanged.
	if got, _ := os.ReadFile(filepath.Join(d.dir, DataFile)); !bytes.Equal(got, d.data) {
		t.Fatal("original changed")
	}
}

func TestFileChangedAfterOpen(t *testing.T) {
	f, d := writeLog(t, 3)
	l := f.open(t, d.dir)
	w, err := os.OpenFile(filepath.Join(d.dir, DataFile), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteAt([]byte{'X'}, d.offsets[2]+headerLen+30)
	w.Close()
	if _, err := l.Entry(2); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Entry after on-disk change: error %v, want ErrCorrupt", err)
	}
	if _, err := f.verify(l, d.checkpoint); err == nil {
		t.Fatal("Verify passed after an on-disk change")
	}
}

func TestFileOpenModes(t *testing.T) {
	f, d := writeLog(t, 2)
	l := f.open(t, d.dir)
	if _, err := Open(d.dir, f.options()); err == nil {
		t.Fatal("second writer opened a locked ledger")
	}
	o := f.options()
	o.ReadOnly = true
	ro, err := Open(d.dir, o)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, err := AppendNew(ro, f.alice, "k", "s", t0, nil); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("read-only append: error %v", err)
	}
	if _, err := Open(filepath.Join(d.dir, "absent"), o); err == nil {
		t.Fatal("read-only open created a ledger")
	}
	if _, _, err := openBytes(t, f, []byte("not a ledger"), true); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("foreign file: error %v", err)
	}
	l.Close()
	if _, err := AppendNew(l, f.alice, "k", "s", t0, nil); err == nil {
		t.Fatal("append after Close succeeded")
	}
}
