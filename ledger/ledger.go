package ledger

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// Ledger is an append-only, signed, Merkle-checkpointed log. Memory and
// FileLedger implement it; a replicated backend may later. Implementations
// are safe for concurrent use.
type Ledger interface {
	// Append verifies e (member sender, signature, Seq == Len(),
	// PrevHash == hash of the last entry) and adds it, returning its index.
	Append(e *Entry) (index uint64, err error)
	// Len is the number of entries.
	Len() uint64
	// Entry returns a fresh copy of entry i.
	Entry(i uint64) (*Entry, error)
	// Checkpoint returns the current tree head signed by the operator.
	Checkpoint() (signedNote []byte, err error)
	// ProveInclusion proves that entry i is in the tree of treeSize entries.
	ProveInclusion(i uint64, treeSize uint64) (tlog.RecordProof, error)
	// ProveConsistency proves that the tree of oldSize entries is a prefix
	// of the tree of newSize entries.
	ProveConsistency(oldSize, newSize uint64) (tlog.TreeProof, error)
}

// Errors an append can be refused with, besides ErrUnknownSender and
// ErrBadSignature; test with errors.Is.
var (
	ErrWrongSeq    = errors.New("wrong sequence number")
	ErrBrokenChain = errors.New("previous hash does not match")
	ErrReadOnly    = errors.New("ledger opened read-only")
)

// DefaultOrigin is the checkpoint origin when neither Options.Origin nor a
// signer is given.
const DefaultOrigin = "dppub-ledger"

// Options configures a ledger.
type Options struct {
	// Keyring lists the members who may append.
	Keyring Keyring
	// Signer is the log operator's (the publisher's) checkpoint key. Without
	// it Checkpoint fails; everything else works.
	Signer note.Signer
	// Origin is the first line of checkpoints and should name this log
	// uniquely; it defaults to the signer's name, else DefaultOrigin.
	Origin string
	// NoSync skips the fsync after each append (tests and benchmarks only:
	// a crash may then lose acknowledged entries).
	NoSync bool
	// ReadOnly opens an existing FileLedger for auditing: nothing on disk
	// is changed (a torn tail is reported and ignored, not cut off) and
	// Append is refused.
	ReadOnly bool
}

func (o Options) origin() (string, error) {
	origin := o.Origin
	if origin == "" && o.Signer != nil {
		origin = o.Signer.Name()
	}
	if origin == "" {
		origin = DefaultOrigin
	}
	if err := checkOrigin(origin); err != nil {
		return "", err
	}
	return origin, nil
}

// Head returns the Seq and PrevHash that the next entry of l must carry.
// Two senders racing for the same head get one refusal (ErrWrongSeq or
// ErrBrokenChain); the loser rebuilds its entry and retries.
func Head(l Ledger) (seq uint64, prev [32]byte, err error) {
	n := l.Len()
	if n == 0 {
		return 0, prev, nil
	}
	last, err := l.Entry(n - 1)
	if err != nil {
		return 0, prev, err
	}
	h, err := last.Hash()
	if err != nil {
		return 0, prev, err
	}
	return n, h, nil
}

// AppendNew builds an entry at the head of l, signs it as id and appends it.
func AppendNew(l Ledger, id *Identity, kind, session string, t time.Time, payload []byte) (uint64, error) {
	seq, prev, err := Head(l)
	if err != nil {
		return 0, err
	}
	e := &Entry{Seq: seq, Kind: kind, Session: session, Time: t, Payload: payload, PrevHash: prev}
	if err := id.Sign(e); err != nil {
		return 0, err
	}
	return l.Append(e)
}

// lockedTree is what both backends hold alike: the tree behind a
// read-write lock, which also guards each backend's own records. It
// answers Len and the proofs for both.
type lockedTree struct {
	mu   sync.RWMutex
	tree *tree
}

// Len implements Ledger.
func (l *lockedTree) Len() uint64 {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.tree.n
}

// ProveInclusion implements Ledger.
func (l *lockedTree) ProveInclusion(i, treeSize uint64) (tlog.RecordProof, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.tree.proveInclusion(i, treeSize)
}

// ProveConsistency implements Ledger.
func (l *lockedTree) ProveConsistency(oldSize, newSize uint64) (tlog.TreeProof, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.tree.proveConsistency(oldSize, newSize)
}

// tree is the in-memory state both backends share: the tlog stored hashes
// (the leaves are also the entries' chain hashes) and the checkpoint setup.
// It is not synchronised; its owner locks.
type tree struct {
	ring   Keyring
	signer note.Signer
	origin string
	n      uint64
	hashes []tlog.Hash
}

func newTree(o Options) (*tree, error) {
	origin, err := o.origin()
	if err != nil {
		return nil, err
	}
	return &tree{ring: o.Keyring, signer: o.Signer, origin: origin}, nil
}

// head is the hash the next entry's PrevHash must equal.
func (t *tree) head() tlog.Hash {
	if t.n == 0 {
		return tlog.Hash{}
	}
	return t.hashes[tlog.StoredHashIndex(0, int64(t.n-1))]
}

// check returns the encoding of e if it may be appended next.
func (t *tree) check(e *Entry) ([]byte, error) {
	if e == nil {
		return nil, errors.New("ledger: append: nil entry")
	}
	if e.Seq != t.n {
		return nil, fmt.Errorf("ledger: append: %w: entry by %q has seq %d, the next is %d", ErrWrongSeq, e.Sender, e.Seq, t.n)
	}
	if head := t.head(); e.PrevHash != head {
		return nil, fmt.Errorf("ledger: append: %w: seq %d by %q has prev hash %x, the head is %x",
			ErrBrokenChain, e.Seq, e.Sender, e.PrevHash, head)
	}
	if err := t.ring.VerifyEntry(e); err != nil {
		return nil, fmt.Errorf("ledger: append: %w", err)
	}
	enc, err := e.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("ledger: append: %w", err)
	}
	return enc, nil
}

// add extends the tree with the entry encoded as enc. It does not check
// the chain: callers have (check, or the scan in Open).
func (t *tree) add(enc []byte) error {
	hs, err := tlog.StoredHashes(int64(t.n), enc, t)
	if err != nil {
		return fmt.Errorf("ledger: hash entry %d: %w", t.n, err)
	}
	t.hashes = append(t.hashes, hs...)
	t.n++
	return nil
}

// ReadHashes implements tlog.HashReader over the stored hashes.
func (t *tree) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, x := range indexes {
		if x < 0 || x >= int64(len(t.hashes)) {
			return nil, fmt.Errorf("ledger: stored hash %d out of range [0, %d)", x, len(t.hashes))
		}
		out[i] = t.hashes[x]
	}
	return out, nil
}

func (t *tree) checkpoint() ([]byte, error) {
	root, err := tlog.TreeHash(int64(t.n), t)
	if err != nil {
		return nil, fmt.Errorf("ledger: tree hash at size %d: %w", t.n, err)
	}
	return SignCheckpoint(Checkpoint{Origin: t.origin, Size: t.n, Hash: root}, t.signer)
}

func (t *tree) proveInclusion(i, size uint64) (tlog.RecordProof, error) {
	if i >= size || size > t.n {
		return nil, fmt.Errorf("ledger: inclusion proof of entry %d in tree size %d: need index < size <= %d", i, size, t.n)
	}
	p, err := tlog.ProveRecord(int64(size), int64(i), t)
	if err != nil {
		return nil, fmt.Errorf("ledger: inclusion proof of entry %d in tree size %d: %w", i, size, err)
	}
	return p, nil
}

// proveConsistency returns an empty proof from the empty tree, which every
// tree extends.
func (t *tree) proveConsistency(oldSize, newSize uint64) (tlog.TreeProof, error) {
	if oldSize > newSize || newSize > t.n {
		return nil, fmt.Errorf("ledger: consistency proof from size %d to %d: need old <= new <= %d", oldSize, newSize, t.n)
	}
	if oldSize == 0 {
		return tlog.TreeProof{}, nil
	}
	p, err := tlog.ProveTree(int64(newSize), int64(oldSize), t)
	if err != nil {
		return nil, fmt.Errorf("ledger: consistency proof from size %d to %d: %w", oldSize, newSize, err)
	}
	return p, nil
}
