package roles

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/internal/wire"
	"github.com/dppub/dppub/method/mullda/lda"
)

// Message types.
const (
	TypeShares      = "mul-lda-dp/shares"
	TypeSums        = "mul-lda-dp/sums"
	TypeMeans       = "mul-lda-dp/means"
	TypeSecond      = "mul-lda-dp/second"
	TypeDirection   = "mul-lda-dp/direction"
	TypeProjections = "mul-lda-dp/projections"
)

// Shares are one party's zero-sum noise shares from the dealer, as
// integers in grid steps of their block's public grid
// (lda.Plan.SumsNoise, CountsNoise, SecondNoise): ḡ_m on the class sums
// (Classes·P), on the counts (Classes, empty when counts are public) and
// Ḡ_m on the upper triangle of Σxxᵀ.
type Shares struct {
	Classes, P int
	Sums       []int64
	Counts     []int64
	Upper      []int64
}

func (Shares) MessageType() string { return TypeShares }

func (m *Shares) fields() []any { return []any{&m.Classes, &m.P, &m.Sums, &m.Counts, &m.Upper} }

func (m Shares) MarshalBinary() ([]byte, error) { return wire.Marshal(m.fields()...), nil }

func (m *Shares) UnmarshalBinary(b []byte) error {
	if err := wire.Unmarshal(b, "mullda: shares", m.fields()...); err != nil {
		return err
	}
	if err := checkShape(m.Classes, m.P); err != nil {
		return err
	}
	if len(m.Sums) != m.Classes*m.P || (len(m.Counts) != 0 && len(m.Counts) != m.Classes) || len(m.Upper) != lda.UpperLen(m.P) {
		return fmt.Errorf("mullda: shares for %d classes × p=%d carry %d, %d, %d values", m.Classes, m.P, len(m.Sums), len(m.Counts), len(m.Upper))
	}
	return nil
}

// Sums are an owner's noisy class sums and class counts (exact when the
// counts are public).
type Sums struct {
	Classes, P int
	Sums       []float64 // Classes×P row-major
	Counts     []float64
}

func (Sums) MessageType() string { return TypeSums }

func (m *Sums) fields() []any { return []any{&m.Classes, &m.P, &m.Sums, &m.Counts} }

func (m Sums) MarshalBinary() ([]byte, error) { return wire.Marshal(m.fields()...), nil }

func (m *Sums) UnmarshalBinary(b []byte) error {
	if err := wire.Unmarshal(b, "mullda: sums", m.fields()...); err != nil {
		return err
	}
	return checkPerClass("sums", m.Classes, m.P, m.Sums, m.Counts)
}

// Means are the DP class means and counts the publisher computed (round 3).
type Means struct {
	Classes, P int
	Means      []float64 // Classes×P row-major
	Counts     []float64
}

func (Means) MessageType() string { return TypeMeans }

func (m *Means) fields() []any { return []any{&m.Classes, &m.P, &m.Means, &m.Counts} }

func (m Means) MarshalBinary() ([]byte, error) { return wire.Marshal(m.fields()...), nil }

func (m *Means) UnmarshalBinary(b []byte) error {
	if err := wire.Unmarshal(b, "mullda: means", m.fields()...); err != nil {
		return err
	}
	return checkPerClass("means", m.Classes, m.P, m.Means, m.Counts)
}

// Second is an owner's noisy upper triangle of Σxxᵀ.
type Second struct {
	P     int
	Upper []float64
}

func (Second) MessageType() string { return TypeSecond }

func (m *Second) fields() []any { return []any{&m.P, &m.Upper} }

func (m Second) MarshalBinary() ([]byte, error) { return wire.Marshal(m.fields()...), nil }

func (m *Second) UnmarshalBinary(b []byte) error {
	if err := wire.Unmarshal(b, "mullda: second moment", m.fields()...); err != nil {
		return err
	}
	if m.P < 1 || len(m.Upper) != lda.UpperLen(m.P) {
		return fmt.Errorf("mullda: second moment for p=%d carries %d values, want %d", m.P, len(m.Upper), lda.UpperLen(max(m.P, 0)))
	}
	return nil
}

// Direction is the discriminant direction(s) W (P×D, row-major, unit
// columns) the publisher computed (round 5).
type Direction struct {
	P, D int
	W    []float64
}

func (Direction) MessageType() string { return TypeDirection }

func (m *Direction) fields() []any { return []any{&m.P, &m.D, &m.W} }

func (m Direction) MarshalBinary() ([]byte, error) { return wire.Marshal(m.fields()...), nil }

func (m *Direction) UnmarshalBinary(b []byte) error {
	if err := wire.Unmarshal(b, "mullda: direction", m.fields()...); err != nil {
		return err
	}
	if m.P < 1 || m.D < 1 || m.D > m.P || len(m.W) != m.P*m.D {
		return fmt.Errorf("mullda: direction of %d×%d carries %d values", m.P, m.D, len(m.W))
	}
	for _, v := range m.W {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("mullda: direction holds the non-finite value %v", v)
		}
	}
	return nil
}

// Projections are an owner's X_m W and labels (RealProjections only).
type Projections struct {
	D      int
	Z      []float64 // n×D row-major
	Labels []uint64
}

func (Projections) MessageType() string { return TypeProjections }

func (m *Projections) fields() []any { return []any{&m.D, &m.Z, &m.Labels} }

func (m Projections) MarshalBinary() ([]byte, error) { return wire.Marshal(m.fields()...), nil }

func (m *Projections) UnmarshalBinary(b []byte) error {
	if err := wire.Unmarshal(b, "mullda: projections", m.fields()...); err != nil {
		return err
	}
	if m.D < 1 || len(m.Z) != m.D*len(m.Labels) {
		return fmt.Errorf("mullda: %d projection values of width %d for %d labels", len(m.Z), m.D, len(m.Labels))
	}
	return nil
}

// checkPerClass checks a message of one p-vector (what: "sums", "means")
// and one count per class.
func checkPerClass(what string, classes, p int, vectors, counts []float64) error {
	if err := checkShape(classes, p); err != nil {
		return err
	}
	if len(vectors) != classes*p || len(counts) != classes {
		return fmt.Errorf("mullda: %s for %d classes × p=%d carry %d %s and %d counts", what, classes, p, len(vectors), what, len(counts))
	}
	return nil
}

func checkShape(classes, p int) error {
	if classes < 2 || p < 1 || classes > wire.MaxFieldLen || p > wire.MaxFieldLen {
		return fmt.Errorf("mullda: message shape of %d classes × p=%d", classes, p)
	}
	return nil
}
