package roles

import (
	"fmt"
	"slices"

	"github.com/dppub/dppub/internal/wire"
	privbayes "github.com/dppub/dppub/method/privbayes/bayesnet"
)

// Message types.
const (
	TypePrior  = "dp-subn3/prior"
	TypeUpdate = "dp-subn3/update"
)

// PriorMsg is the curator's prior for the next party: the current model,
// standing for N records (no model and N = 0 for the first party).
type PriorMsg struct {
	N     int
	Model *privbayes.Model
}

func (PriorMsg) MessageType() string { return TypePrior }

func (m PriorMsg) MarshalBinary() ([]byte, error) { return marshalCounted(m.N, m.Model), nil }

func (m *PriorMsg) UnmarshalBinary(b []byte) error {
	var err error
	if m.N, m.Model, err = unmarshalCounted(b, "prior"); err != nil {
		return err
	}
	if (m.Model == nil) != (m.N == 0) || m.N < 0 {
		return fmt.Errorf("dpsubn3: prior for %d records with model %v", m.N, m.Model != nil)
	}
	return nil
}

// UpdateMsg is a party's updated model and its (public) record count.
type UpdateMsg struct {
	Records int
	Model   *privbayes.Model
}

func (UpdateMsg) MessageType() string { return TypeUpdate }

func (m UpdateMsg) MarshalBinary() ([]byte, error) { return marshalCounted(m.Records, m.Model), nil }

func (m *UpdateMsg) UnmarshalBinary(b []byte) error {
	var err error
	if m.Records, m.Model, err = unmarshalCounted(b, "update"); err != nil {
		return err
	}
	if m.Model == nil || m.Records < 1 {
		return fmt.Errorf("dpsubn3: update with %d records and model %v", m.Records, m.Model != nil)
	}
	return nil
}

// marshalCounted writes both messages' layout: a record count, then the
// model (writeModel).
func marshalCounted(n int, model *privbayes.Model) []byte {
	var w wire.Writer
	w.Int(n)
	writeModel(&w, model)
	return w.Data()
}

// unmarshalCounted reads what marshalCounted wrote; its errors name the
// message (what).
func unmarshalCounted(b []byte, what string) (int, *privbayes.Model, error) {
	r := wire.NewReader(b)
	n := r.Int()
	model, err := readModel(r)
	if err == nil {
		err = r.Finish()
	}
	if err != nil {
		return 0, nil, fmt.Errorf("dpsubn3: %s: %w", what, err)
	}
	return n, model, nil
}

// writeModel writes a presence flag, the cards, each family (child,
// parents) and its conditional table.
func writeModel(w *wire.Writer, m *privbayes.Model) {
	if m == nil {
		w.Int(0)
		return
	}
	w.Int(1)
	w.Uint64s(toU64(m.Cards))
	w.Int(len(m.Net))
	for i, f := range m.Net {
		w.Int(f.Child)
		w.Uint64s(toU64(f.Parents))
		w.Float64s(m.Cond[i])
	}
}

func readModel(r *wire.Reader) (*privbayes.Model, error) {
	switch r.Int() {
	case 0:
		return nil, r.Err()
	case 1:
	default:
		return nil, fmt.Errorf("bad model flag")
	}
	m := &privbayes.Model{Cards: fromU64(r.Uint64s())}
	n := r.Int()
	if r.Err() != nil || n < 0 || n > len(m.Cards) {
		return nil, fmt.Errorf("model with %d families for %d attributes", n, len(m.Cards))
	}
	for range n {
		f := privbayes.Family{Child: r.Int(), Parents: fromU64(r.Uint64s())}
		m.Net = append(m.Net, f)
		m.Cond = append(m.Cond, r.Float64s())
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

func toU64(v []int) []uint64 {
	out := make([]uint64, len(v))
	for i, x := range v {
		out[i] = uint64(x)
	}
	return out
}

func fromU64(v []uint64) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(min(x, 1<<31))
	}
	return out
}

func sameCards(m *privbayes.Model, cards []int) error {
	if !slices.Equal(m.Cards, cards) {
		return fmt.Errorf("dpsubn3: model over domains %v, the session's are %v", m.Cards, cards)
	}
	return nil
}
