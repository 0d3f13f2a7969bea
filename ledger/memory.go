package ledger

import (
	"fmt"
	"sync"

	"golang.org/x/mod/sumdb/tlog"
)

// Memory is a Ledger held in memory, for tests and in-process runs.
type Memory struct {
	mu      sync.RWMutex
	tree    *tree
	records [][]byte // canonical encodings
}

var _ Ledger = (*Memory)(nil)

// NewMemory returns an empty in-memory ledger. o.NoSync and o.ReadOnly are
// ignored.
func NewMemory(o Options) (*Memory, error) {
	t, err := newTree(o)
	if err != nil {
		return nil, err
	}
	return &Memory{tree: t}, nil
}

// Append implements Ledger.
func (m *Memory) Append(e *Entry) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	enc, err := m.tree.check(e)
	if err != nil {
		return 0, err
	}
	if err := m.tree.add(enc); err != nil {
		return 0, err
	}
	m.records = append(m.records, enc)
	return m.tree.n - 1, nil
}

// Len implements Ledger.
func (m *Memory) Len() uint64 {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.tree.n
}

// Entry implements Ledger.
func (m *Memory) Entry(i uint64) (*Entry, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if i >= m.tree.n {
		return nil, fmt.Errorf("ledger: entry %d out of range [0, %d)", i, m.tree.n)
	}
	var e Entry
	if err := e.UnmarshalBinary(m.records[i]); err != nil {
		return nil, fmt.Errorf("ledger: entry %d: %w", i, err)
	}
	return &e, nil
}

// Checkpoint implements Ledger.
func (m *Memory) Checkpoint() ([]byte, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.tree.checkpoint()
}

// ProveInclusion implements Ledger.
func (m *Memory) ProveInclusion(i, treeSize uint64) (tlog.RecordProof, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.tree.proveInclusion(i, treeSize)
}

// ProveConsistency implements Ledger.
func (m *Memory) ProveConsistency(oldSize, newSize uint64) (tlog.TreeProof, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.tree.proveConsistency(oldSize, newSize)
}
