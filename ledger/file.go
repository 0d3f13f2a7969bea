package ledger

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"

	"github.com/dppub/dppub/internal/fsutil"
)

// Files in a ledger directory.
const (
	DataFile       = "entries.log"
	CheckpointFile = "checkpoint"
)

// fileMagic starts the data file; it is written atomically at creation, so
// a data file without it is not ours (or is corrupt).
const fileMagic = "dppub ledger v1\n"

// Record framing: a header of the body length and its CRC-32C (so that a
// damaged length is never mistaken for a torn write), the body (an entry's
// canonical encoding), and the body's CRC-32C.
const (
	headerLen     = 8
	trailerLen    = 4
	maxRecordBody = MaxPayloadLen + 4096
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrCorrupt marks a data file damaged other than by a torn final write.
var ErrCorrupt = errors.New("corrupt ledger file")

// TornTail describes an incomplete final record that Open found, left by a
// write interrupted by a crash.
type TornTail struct {
	// Offset is where the incomplete record starts: the length of the valid
	// prefix, to which Open truncated the file (unless read-only).
	Offset int64
	// Bytes is the length of the incomplete record.
	Bytes int64
	// Truncated says whether the file was cut back to Offset.
	Truncated bool
}

func (t TornTail) String() string {
	action := "truncated"
	if !t.Truncated {
		action = "ignored (read-only)"
	}
	return fmt.Sprintf("torn tail of %d bytes at offset %d %s", t.Bytes, t.Offset, action)
}

// FileLedger is a Ledger persisted in a directory: an append-only data file
// of framed records, fsynced on every append unless Options.NoSync. The
// Merkle hashes are recomputed on Open (about two SHA-256 per entry), so no
// second file can disagree with the data. One process at a time may open a
// directory for writing (an advisory lock where the platform has one).
type FileLedger struct {
	lockedTree
	dir      string
	f        *os.File
	noSync   bool
	readOnly bool
	offsets  []int64 // start of each record
	size     int64   // end of the last valid record
	torn     *TornTail
	broken   error // set when a failed write left the file state unknown
	closed   bool
}

var _ Ledger = (*FileLedger)(nil)

// Open opens the ledger in dir, creating it unless o.ReadOnly. It reads
// every record, checking checksums, sequence numbers and the hash chain
// (not signatures: that is Verify's job, and members may have left the
// keyring since). An incomplete final record is cut off and reported by
// TornTail; any other damage is an ErrCorrupt error naming the offset.
func Open(dir string, o Options) (*FileLedger, error) {
	t, err := newTree(o)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, DataFile)
	if !o.ReadOnly {
		if err := create(dir, path); err != nil {
			return nil, err
		}
	}
	f, err := openData(path, o.ReadOnly)
	if err != nil {
		return nil, err
	}
	l := &FileLedger{lockedTree: lockedTree{tree: t}, dir: dir, f: f, noSync: o.NoSync, readOnly: o.ReadOnly}
	if err := l.load(); err != nil {
		_ = unlockFile(f)
		_ = f.Close()
		return nil, err
	}
	return l, nil
}

// create writes an empty data file (just the magic) atomically if there is
// none.
func create(dir, path string) error {
	if _, err := os.Stat(path); err == nil || !errors.Is(err, os.ErrNotExist) {
		return nil // exists, or openData will report why not
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("ledger: create directory %q: %w", dir, err)
	}
	return fsutil.WriteFileAtomic(path, 0o600, func(w io.Writer) error {
		_, err := io.WriteString(w, fileMagic)
		return err
	})
}

func openData(path string, readOnly bool) (*os.File, error) {
	flag := os.O_RDWR
	if readOnly {
		flag = os.O_RDONLY
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return nil, fmt.Errorf("ledger: open %q: %w", path, err)
	}
	if !readOnly {
		if err := lockFile(f); err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("ledger: lock %q (is another process appending?): %w", path, err)
		}
	}
	return f, nil
}

// load scans the data file and rebuilds the tree.
func (l *FileLedger) load() error {
	fi, err := l.f.Stat()
	if err != nil {
		return fmt.Errorf("ledger: stat %q: %w", l.f.Name(), err)
	}
	end := fi.Size()
	r := bufio.NewReaderSize(io.NewSectionReader(l.f, 0, end), 1<<16)
	magic := make([]byte, len(fileMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != fileMagic {
		return fmt.Errorf("ledger: %w: %q does not start with %q", ErrCorrupt, l.f.Name(), fileMagic)
	}
	off := int64(len(fileMagic))
	for off < end {
		body, torn, err := l.readRecord(r, off, end)
		if err != nil {
			return err
		}
		if torn {
			return l.cutTornTail(off, end)
		}
		if err := l.addLoaded(body, off); err != nil {
			return err
		}
		off += headerLen + int64(len(body)) + trailerLen
	}
	l.size = off
	return nil
}

// readRecord reads the record at off from r (positioned there). torn
// reports an incomplete final record; err any other damage.
func (l *FileLedger) readRecord(r *bufio.Reader, off, end int64) (body []byte, torn bool, err error) {
	if end-off < headerLen {
		return nil, true, nil
	}
	var hdr [headerLen]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, false, fmt.Errorf("ledger: read %q at offset %d: %w", l.f.Name(), off, err)
	}
	n := binary.BigEndian.Uint32(hdr[:4])
	if crc32.Checksum(hdr[:4], castagnoli) != binary.BigEndian.Uint32(hdr[4:]) {
		if allZero(hdr[:]) && zeroTail(r) {
			return nil, true, nil // space the file system extended but never filled
		}
		return nil, false, l.corrupt(off, "record header checksum mismatch")
	}
	if n > maxRecordBody {
		return nil, false, l.corrupt(off, fmt.Sprintf("record length %d exceeds %d", n, maxRecordBody))
	}
	if end-off < headerLen+int64(n)+trailerLen {
		return nil, true, nil
	}
	rec := make([]byte, int(n)+trailerLen)
	if _, err := io.ReadFull(r, rec); err != nil {
		return nil, false, fmt.Errorf("ledger: read %q at offset %d: %w", l.f.Name(), off, err)
	}
	body = rec[:n]
	if crc32.Checksum(body, castagnoli) != binary.BigEndian.Uint32(rec[n:]) {
		return nil, false, l.corrupt(off, "record body checksum mismatch")
	}
	return body, false, nil
}

// addLoaded checks a record read from disk against the chain and adds it.
func (l *FileLedger) addLoaded(body []byte, off int64) error {
	var e Entry
	if err := e.UnmarshalBinary(body); err != nil {
		return l.corrupt(off, err.Error())
	}
	if e.Seq != l.tree.n {
		return l.corrupt(off, fmt.Sprintf("entry seq %d at index %d", e.Seq, l.tree.n))
	}
	if head := l.tree.head(); e.PrevHash != head {
		return l.corrupt(off, fmt.Sprintf("entry %d prev hash %x, previous entry hashes to %x", e.Seq, e.PrevHash, head))
	}
	if err := l.tree.add(body); err != nil {
		return err
	}
	l.offsets = append(l.offsets, off)
	return nil
}

func (l *FileLedger) cutTornTail(off, end int64) error {
	l.size = off
	l.torn = &TornTail{Offset: off, Bytes: end - off}
	if l.readOnly {
		return nil
	}
	if err := l.f.Truncate(off); err != nil {
		return fmt.Errorf("ledger: truncate torn tail of %q at offset %d: %w", l.f.Name(), off, err)
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("ledger: sync %q after truncating: %w", l.f.Name(), err)
	}
	l.torn.Truncated = true
	return nil
}

func (l *FileLedger) corrupt(off int64, why string) error {
	return fmt.Errorf("ledger: %w: %q record %d at offset %d: %s", ErrCorrupt, l.f.Name(), len(l.offsets), off, why)
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// zeroTail reports whether the rest of r is zero bytes.
func zeroTail(r io.Reader) bool {
	buf := make([]byte, 1<<15)
	for {
		n, err := r.Read(buf)
		if !allZero(buf[:n]) {
			return false
		}
		if err == io.EOF {
			return true
		}
		if err != nil {
			return false
		}
	}
}

// Dir is the ledger's directory.
func (l *FileLedger) Dir() string { return l.dir }

// TornTail returns the incomplete final record Open found, or nil.
func (l *FileLedger) TornTail() *TornTail {
	if l.torn == nil {
		return nil
	}
	t := *l.torn
	return &t
}

// Close releases the file. Later calls fail.
func (l *FileLedger) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	_ = unlockFile(l.f)
	if err := l.f.Close(); err != nil {
		return fmt.Errorf("ledger: close %q: %w", l.f.Name(), err)
	}
	return nil
}

// Append implements Ledger. The entry is durable (unless Options.NoSync)
// when Append returns without error.
func (l *FileLedger) Append(e *Entry) (uint64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.writable(); err != nil {
		return 0, err
	}
	enc, err := l.tree.check(e)
	if err != nil {
		return 0, err
	}
	if err := l.write(frame(enc)); err != nil {
		return 0, err
	}
	if err := l.tree.add(enc); err != nil {
		return 0, err
	}
	l.offsets = append(l.offsets, l.size)
	l.size += int64(headerLen + len(enc) + trailerLen)
	return l.tree.n - 1, nil
}

func (l *FileLedger) writable() error {
	switch {
	case l.closed:
		return errors.New("ledger: append to closed ledger")
	case l.readOnly:
		return fmt.Errorf("ledger: append to %q: %w", l.dir, ErrReadOnly)
	case l.broken != nil:
		return fmt.Errorf("ledger: append refused after an earlier write failure (reopen to recover): %w", l.broken)
	}
	return nil
}

// write puts rec after the last record and syncs. On failure it tries to
// cut the file back; if that fails too, the ledger refuses further writes
// (reopening recovers, treating whatever reached the disk as a torn tail or
// as a complete record).
func (l *FileLedger) write(rec []byte) error {
	_, err := l.f.WriteAt(rec, l.size)
	if err == nil && !l.noSync {
		err = l.f.Sync()
	}
	if err == nil {
		return nil
	}
	err = fmt.Errorf("ledger: write record at offset %d of %q: %w", l.size, l.f.Name(), err)
	if terr := l.f.Truncate(l.size); terr != nil {
		l.broken = err
	} else if serr := l.f.Sync(); serr != nil {
		l.broken = err
	}
	return err
}

func frame(body []byte) []byte {
	rec := make([]byte, headerLen, headerLen+len(body)+trailerLen)
	binary.BigEndian.PutUint32(rec, uint32(len(body)))
	binary.BigEndian.PutUint32(rec[4:], crc32.Checksum(rec[:4], castagnoli))
	rec = append(rec, body...)
	return binary.BigEndian.AppendUint32(rec, crc32.Checksum(body, castagnoli))
}

// Entry implements Ledger. It rereads the record from disk and checks its
// checksums again.
func (l *FileLedger) Entry(i uint64) (*Entry, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return nil, errors.New("ledger: read from closed ledger")
	}
	if i >= l.tree.n {
		return nil, fmt.Errorf("ledger: entry %d out of range [0, %d)", i, l.tree.n)
	}
	start, end := l.offsets[i], l.size
	if i+1 < uint64(len(l.offsets)) {
		end = l.offsets[i+1]
	}
	rec := make([]byte, end-start)
	if _, err := l.f.ReadAt(rec, start); err != nil {
		return nil, fmt.Errorf("ledger: read entry %d at offset %d: %w", i, start, err)
	}
	body := rec[headerLen : len(rec)-trailerLen]
	if !bytes.Equal(frame(body), rec) {
		return nil, fmt.Errorf("ledger: %w: entry %d at offset %d changed on disk since Open", ErrCorrupt, i, start)
	}
	var e Entry
	if err := e.UnmarshalBinary(body); err != nil {
		return nil, fmt.Errorf("ledger: entry %d: %w", i, err)
	}
	return &e, nil
}

// Checkpoint implements Ledger. Unless read-only, it also saves the signed
// checkpoint atomically as CheckpointFile in the directory (see
// LatestCheckpoint).
func (l *FileLedger) Checkpoint() ([]byte, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	cp, err := l.tree.checkpoint()
	if err != nil || l.readOnly {
		return cp, err
	}
	err = fsutil.WriteFileAtomic(filepath.Join(l.dir, CheckpointFile), 0o644, func(w io.Writer) error {
		_, err := w.Write(cp)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("ledger: save checkpoint: %w", err)
	}
	return cp, nil
}

// LatestCheckpoint reads the checkpoint last saved in dir by Checkpoint.
// It is what the operator claims; verify it against the operator's key.
func LatestCheckpoint(dir string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(dir, CheckpointFile))
	if err != nil {
		return nil, fmt.Errorf("ledger: read checkpoint: %w", err)
	}
	return b, nil
}
