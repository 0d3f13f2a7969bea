package roles

import (
	"fmt"

	"github.com/dppub/dppub/internal/wire"
	"gonum.org/v1/gonum/mat"
)

// Message types.
const (
	TypeMaskSeed   = "ppca-dp-mh/mask-seed"
	TypeStatistics = "ppca-dp-mh/statistics"
	TypeModel      = "ppca-dp-mh/model"
	TypeRows       = "ppca-dp-mh/rows"
)

// MaskSeed is a pairwise mask seed from one owner to a later owner.
type MaskSeed struct{ Seed []byte }

func (MaskSeed) MessageType() string { return TypeMaskSeed }

func (m MaskSeed) MarshalBinary() ([]byte, error) { return wire.Marshal(&m.Seed), nil }

func (m *MaskSeed) UnmarshalBinary(b []byte) error {
	if err := wire.Unmarshal(b, "ppcadpmh: mask seed", &m.Seed); err != nil {
		return err
	}
	if len(m.Seed) != seedLen {
		return fmt.Errorf("ppcadpmh: mask seed of %d bytes, want %d", len(m.Seed), seedLen)
	}
	return nil
}

// Statistics are an owner's noisy sums: in local mode as floats, in
// secure-aggregate mode as masked fixed-point words. Packed holds Σx then
// the upper triangle of Σxxᵀ row by row.
type Statistics struct {
	N      int
	P      int
	Packed []float64
	Masked []uint64
}

func (Statistics) MessageType() string { return TypeStatistics }

func (m *Statistics) fields() []any { return []any{&m.N, &m.P, &m.Packed, &m.Masked} }

func (m Statistics) MarshalBinary() ([]byte, error) { return wire.Marshal(m.fields()...), nil }

func (m *Statistics) UnmarshalBinary(b []byte) error {
	if err := wire.Unmarshal(b, "ppcadpmh: statistics", m.fields()...); err != nil {
		return err
	}
	want := packedLen(m.P)
	if m.P < 1 || (len(m.Packed) != want && len(m.Masked) != want) {
		return fmt.Errorf("ppcadpmh: statistics for p=%d carry %d floats and %d words, want %d", m.P, len(m.Packed), len(m.Masked), want)
	}
	return nil
}

// ModelMsg is the fitted PPCA model the curator sends to every owner.
type ModelMsg struct {
	Mean        []float64
	Eigenvalues []float64
	K           int
	Sigma2      float64
	Components  []float64 // p×k row-major
}

func (ModelMsg) MessageType() string { return TypeModel }

func (m *ModelMsg) fields() []any {
	return []any{&m.Mean, &m.Eigenvalues, &m.K, &m.Sigma2, &m.Components}
}

func (m ModelMsg) MarshalBinary() ([]byte, error) { return wire.Marshal(m.fields()...), nil }

func (m *ModelMsg) UnmarshalBinary(b []byte) error {
	if err := wire.Unmarshal(b, "ppcadpmh: model", m.fields()...); err != nil {
		return err
	}
	p := len(m.Mean)
	if m.K < 1 || m.K > p || len(m.Eigenvalues) != p || len(m.Components) != p*m.K {
		return fmt.Errorf("ppcadpmh: model with p=%d, k=%d, %d eigenvalues, %d component entries is inconsistent",
			p, m.K, len(m.Eigenvalues), len(m.Components))
	}
	return nil
}

// Rows are one chunk of an owner's synthetic rows in the encoded space:
// rows First, First+1, … of the owner's stream, at most
// protocol.ChunkBytes of them per message.
type Rows struct {
	P     int
	First int
	Data  []float64 // row-major, P columns
}

func (Rows) MessageType() string { return TypeRows }

func (m *Rows) fields() []any { return []any{&m.P, &m.First, &m.Data} }

func (m Rows) MarshalBinary() ([]byte, error) { return wire.Marshal(m.fields()...), nil }

func (m *Rows) UnmarshalBinary(b []byte) error {
	if err := wire.Unmarshal(b, "ppcadpmh: rows", m.fields()...); err != nil {
		return err
	}
	if m.P < 1 || m.First < 0 || len(m.Data)%m.P != 0 {
		return fmt.Errorf("ppcadpmh: %d values from row %d are not rows of width %d", len(m.Data), m.First, m.P)
	}
	return nil
}

// Matrix views the rows as an n×p matrix.
func (m Rows) Matrix() *mat.Dense {
	if len(m.Data) == 0 {
		return nil
	}
	return mat.NewDense(len(m.Data)/m.P, m.P, m.Data)
}

func packedLen(p int) int { return p + p*(p+1)/2 }
