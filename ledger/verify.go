package ledger

import (
	"crypto/sha256"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// Report is what Verify established about a ledger.
type Report struct {
	// Entries is the number of entries walked; all of them are signed by
	// members, sequential and chained.
	Entries uint64
	// Checkpoint is the signed tree head that was verified, and Signer
	// the name of its verified signer.
	Checkpoint Checkpoint
	Signer     string
	// Head is the hash of the last entry (zero for an empty ledger) and
	// Root the Merkle root over all Entries.
	Head tlog.Hash
	Root tlog.Hash
	// BySender and ByKind count entries.
	BySender map[string]uint64
	ByKind   map[string]uint64
	// First and Last are the earliest and latest entry times.
	First, Last time.Time
}

// Uncovered is the number of entries after the checkpoint: verified as
// signed and chained, but not yet vouched for by a signed tree head.
func (r *Report) Uncovered() uint64 { return r.Entries - r.Checkpoint.Size }

// String summarises the report, one fact a line.
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ledger OK: %d entries, each signed by a member, sequential and hash-chained\n", r.Entries)
	fmt.Fprintf(&b, "checkpoint: %v, signed by %s, matches the recomputed Merkle root\n", r.Checkpoint, r.Signer)
	if u := r.Uncovered(); u > 0 {
		fmt.Fprintf(&b, "not covered by the checkpoint: the last %d entries (root over all %d: %s)\n", u, r.Entries, r.Root)
	}
	fmt.Fprintf(&b, "head entry hash: %s\n", r.Head)
	if r.Entries > 0 {
		fmt.Fprintf(&b, "times: %s to %s\n", r.First.Format(time.RFC3339Nano), r.Last.Format(time.RFC3339Nano))
	}
	fmt.Fprintf(&b, "by sender: %s\n", countList(r.BySender))
	fmt.Fprintf(&b, "by kind: %s\n", countList(r.ByKind))
	return b.String()
}

func countList(m map[string]uint64) string {
	if len(m) == 0 {
		return "none"
	}
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// Verify audits the whole of l as any party can: it checks the
// checkpoint's signature by verifier, then every entry's sequence number,
// hash chain and sender's signature against ring, recomputes the Merkle tree
// independently of l and compares its root at the checkpoint's size with
// the signed one. Entries after the checkpoint are checked too and counted
// in Report.Uncovered. A log shorter than the checkpoint fails.
func Verify(l Ledger, ring Keyring, checkpoint []byte, verifier note.Verifier) (*Report, error) {
	cp, err := OpenCheckpoint(checkpoint, verifier)
	if err != nil {
		return nil, fmt.Errorf("ledger: verify: %w", err)
	}
	n := l.Len()
	if cp.Size > n {
		return nil, fmt.Errorf("ledger: verify: log has %d entries but checkpoint %v covers %d: entries were dropped", n, cp, cp.Size)
	}
	r := &Report{Checkpoint: cp, Signer: verifier.Name(), BySender: map[string]uint64{}, ByKind: map[string]uint64{}}
	t := &tree{}
	for i := range n {
		e, err := l.Entry(i)
		if err != nil {
			return nil, fmt.Errorf("ledger: verify: %w", err)
		}
		if err := verifyNext(t, e, ring); err != nil {
			return nil, fmt.Errorf("ledger: verify: entry %d: %w", i, err)
		}
		r.count(e)
	}
	if err := r.checkRoots(t); err != nil {
		return nil, err
	}
	return r, nil
}

// verifyNext checks that e extends t and adds it.
func verifyNext(t *tree, e *Entry, ring Keyring) error {
	if e.Seq != t.n {
		return fmt.Errorf("%w: seq %d at index %d", ErrWrongSeq, e.Seq, t.n)
	}
	if head := t.head(); e.PrevHash != head {
		return fmt.Errorf("%w: prev hash %x, previous entry hashes to %x", ErrBrokenChain, e.PrevHash, head)
	}
	if err := ring.VerifyEntry(e); err != nil {
		return err
	}
	enc, err := e.MarshalBinary()
	if err != nil {
		return err
	}
	return t.add(enc)
}

func (r *Report) count(e *Entry) {
	if r.Entries == 0 || e.Time.Before(r.First) {
		r.First = e.Time
	}
	if r.Entries == 0 || e.Time.After(r.Last) {
		r.Last = e.Time
	}
	r.Entries++
	r.BySender[e.Sender]++
	r.ByKind[e.Kind]++
}

func (r *Report) checkRoots(t *tree) error {
	root, err := tlog.TreeHash(int64(r.Checkpoint.Size), t)
	if err != nil {
		return fmt.Errorf("ledger: verify: %w", err)
	}
	if root != r.Checkpoint.Hash {
		return fmt.Errorf("ledger: verify: Merkle root of the first %d entries is %s, checkpoint %v says %s: history was rewritten",
			r.Checkpoint.Size, root, r.Checkpoint.Origin, r.Checkpoint.Hash)
	}
	if r.Root, err = tlog.TreeHash(int64(t.n), t); err != nil {
		return fmt.Errorf("ledger: verify: %w", err)
	}
	r.Head = t.head()
	return nil
}

// VerifyInclusion is the light-client check of one entry an owner relies
// on: the checkpoint is signed by verifier, e is signed by a member of ring
// and has Seq index, and proof (from Ledger.ProveInclusion(index, size))
// places it at index in the tree the checkpoint signs. It returns the
// verified checkpoint.
func VerifyInclusion(e *Entry, index uint64, proof tlog.RecordProof, checkpoint []byte, verifier note.Verifier, ring Keyring) (Checkpoint, error) {
	cp, err := OpenCheckpoint(checkpoint, verifier)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("ledger: verify inclusion: %w", err)
	}
	if index >= cp.Size {
		return Checkpoint{}, fmt.Errorf("ledger: verify inclusion: index %d is not below checkpoint size %d", index, cp.Size)
	}
	if e.Seq != index {
		return Checkpoint{}, fmt.Errorf("ledger: verify inclusion: %w: entry seq %d, index %d", ErrWrongSeq, e.Seq, index)
	}
	if err := ring.VerifyEntry(e); err != nil {
		return Checkpoint{}, fmt.Errorf("ledger: verify inclusion: %w", err)
	}
	h, err := e.Hash()
	if err != nil {
		return Checkpoint{}, fmt.Errorf("ledger: verify inclusion: %w", err)
	}
	if err := tlog.CheckRecord(proof, int64(cp.Size), cp.Hash, int64(index), h); err != nil {
		return Checkpoint{}, fmt.Errorf("ledger: verify inclusion: entry %d (hash %s) is not in %v: %w", index, h, cp, err)
	}
	return cp, nil
}

// VerifyConsistency checks that the log signed in newCheckpoint extends the
// one in oldCheckpoint (same origin, not shorter, proof from
// Ledger.ProveConsistency(old size, new size)): nobody rewrote history
// between two checkpoints the caller saw. It returns both checkpoints.
func VerifyConsistency(oldCheckpoint, newCheckpoint []byte, proof tlog.TreeProof, verifier note.Verifier) (oldCP, newCP Checkpoint, err error) {
	if oldCP, err = OpenCheckpoint(oldCheckpoint, verifier); err != nil {
		return oldCP, newCP, fmt.Errorf("ledger: verify consistency: old: %w", err)
	}
	if newCP, err = OpenCheckpoint(newCheckpoint, verifier); err != nil {
		return oldCP, newCP, fmt.Errorf("ledger: verify consistency: new: %w", err)
	}
	if oldCP.Origin != newCP.Origin {
		return oldCP, newCP, fmt.Errorf("ledger: verify consistency: origins %q and %q differ", oldCP.Origin, newCP.Origin)
	}
	if oldCP.Size > newCP.Size {
		return oldCP, newCP, fmt.Errorf("ledger: verify consistency: log shrank from %d to %d entries", oldCP.Size, newCP.Size)
	}
	if oldCP.Size == 0 {
		empty, _ := tlog.TreeHash(0, nil)
		if oldCP.Hash != empty || len(proof) != 0 {
			return oldCP, newCP, fmt.Errorf("ledger: verify consistency: empty checkpoint with root %s or non-empty proof", oldCP.Hash)
		}
		return oldCP, newCP, nil
	}
	if err := tlog.CheckTree(proof, int64(newCP.Size), newCP.Hash, int64(oldCP.Size), oldCP.Hash); err != nil {
		return oldCP, newCP, fmt.Errorf("ledger: verify consistency: %v does not extend %v: %w", newCP, oldCP, err)
	}
	return oldCP, newCP, nil
}

// Show writes one line per entry: index, seq, time, sender, kind, session,
// payload size and the first 8 bytes of the payload's SHA-256.
func Show(w io.Writer, l Ledger) error {
	for i := range l.Len() {
		e, err := l.Entry(i)
		if err != nil {
			return fmt.Errorf("ledger: show: %w", err)
		}
		sum := sha256.Sum256(e.Payload)
		session := e.Session
		if session == "" {
			session = "-"
		}
		_, err = fmt.Fprintf(w, "%d seq=%d %s %s %s session=%s payload=%dB sha256=%x\n",
			i, e.Seq, e.Time.UTC().Format(time.RFC3339Nano), e.Sender, e.Kind, session, len(e.Payload), sum[:8])
		if err != nil {
			return fmt.Errorf("ledger: show: %w", err)
		}
	}
	return nil
}
