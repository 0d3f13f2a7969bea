package ledger

import "fmt"

// Memory is a Ledger held in memory, for tests and in-process runs.
type Memory struct {
	lockedTree
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
	return &Memory{lockedTree: lockedTree{tree: t}}, nil
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
