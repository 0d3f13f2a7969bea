package roles

import (
	"encoding/json"
	"fmt"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/internal/wire"
	mpcrdp "github.com/dppub/dppub/method/mpcrdp/crdp"
	"github.com/dppub/dppub/privacy"
)

// Message types.
const (
	TypeColumns       = "mp-crdp/columns"
	TypeChargeRequest = "mp-crdp/charge-request"
	TypeApproval      = "mp-crdp/approval"
	TypePublished     = "mp-crdp/published"
)

// Columns is a party's raw columns (its features, and the label if it
// holds it) with the IDs that align them, and its local analysis.
type Columns struct {
	Schema   data.Schema // the columns' attributes and the ID name
	IDs      []string
	Values   []float64 // row-major, len(IDs) × len(Schema.Attributes)
	Analysis mpcrdp.PartyAnalysis
}

func (Columns) MessageType() string { return TypeColumns }

func (m Columns) MarshalBinary() ([]byte, error) {
	s, err := json.Marshal(m.Schema)
	if err != nil {
		return nil, fmt.Errorf("mpcrdp: columns schema: %w", err)
	}
	return wire.Marshal(m.fields(&s)...), nil
}

// fields lists the columns' fields in their wire order, the schema as its
// JSON.
func (m *Columns) fields(schema *[]byte) []any {
	a := &m.Analysis
	return []any{schema, &m.IDs, &m.Values, &a.Party, &a.Sensitivity, &a.K, &a.MeanDegree}
}

func (m *Columns) UnmarshalBinary(b []byte) error {
	var schema []byte
	if err := wire.Unmarshal(b, "mpcrdp: columns", m.fields(&schema)...); err != nil {
		return err
	}
	if err := json.Unmarshal(schema, &m.Schema); err != nil {
		return fmt.Errorf("mpcrdp: columns schema: %w", err)
	}
	if a := len(m.Schema.Attributes); len(m.Values) != len(m.IDs)*a || a == 0 {
		return fmt.Errorf("mpcrdp: columns: %d values for %d rows of %d attributes", len(m.Values), len(m.IDs), a)
	}
	return nil
}

// Table rebuilds the party's table.
func (m Columns) Table() (*data.Table, error) {
	a := len(m.Schema.Attributes)
	t := &data.Table{Schema: m.Schema, IDs: m.IDs, Rows: make([][]float64, len(m.IDs))}
	for i := range t.Rows {
		t.Rows[i] = m.Values[i*a : (i+1)*a : (i+1)*a]
	}
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("mpcrdp: columns: %w", err)
	}
	return t, nil
}

// ChargeRequest asks every party to spend a step's charges.
type ChargeRequest struct {
	Step    int
	Name    string
	Charges []privacy.Charge
}

func (ChargeRequest) MessageType() string { return TypeChargeRequest }

func (m ChargeRequest) MarshalBinary() ([]byte, error) {
	c, err := json.Marshal(m.Charges)
	if err != nil {
		return nil, fmt.Errorf("mpcrdp: charges: %w", err)
	}
	return wire.Marshal(&m.Step, &m.Name, &c), nil
}

func (m *ChargeRequest) UnmarshalBinary(b []byte) error {
	var c []byte
	if err := wire.Unmarshal(b, "mpcrdp: charge request", &m.Step, &m.Name, &c); err != nil {
		return err
	}
	if err := json.Unmarshal(c, &m.Charges); err != nil {
		return fmt.Errorf("mpcrdp: charge request: %w", err)
	}
	for i, ch := range m.Charges {
		if err := ch.Spec.Guarantee.Validate(); err != nil {
			return fmt.Errorf("mpcrdp: charge request %d: %w", i, err)
		}
	}
	return nil
}

// Approval says a party has spent a step's charges.
type Approval struct{ Step int }

func (Approval) MessageType() string { return TypeApproval }

func (m Approval) MarshalBinary() ([]byte, error) { return wire.Marshal(&m.Step), nil }

func (m *Approval) UnmarshalBinary(b []byte) error {
	return wire.Unmarshal(b, "mpcrdp: approval", &m.Step)
}

// Summary is what the server tells the parties was published: the selected
// features, the thresholds and the sensitivity factor (all public in the
// report).
type Summary struct {
	MCD      float64  `json:"mcd"`
	Best     []string `json:"best"`
	Adjusted []string `json:"adjusted"`
	Final    []string `json:"final"`
	Notion   string   `json:"notion"`
	Factor   float64  `json:"factor"`
	Release  string   `json:"release"`
}

// Published carries the summary.
type Published struct{ Summary Summary }

func (Published) MessageType() string { return TypePublished }

func (m Published) MarshalBinary() ([]byte, error) {
	b, err := json.Marshal(m.Summary)
	if err != nil {
		return nil, fmt.Errorf("mpcrdp: summary: %w", err)
	}
	return wire.Marshal(&b), nil
}

func (m *Published) UnmarshalBinary(b []byte) error {
	var s []byte
	if err := wire.Unmarshal(b, "mpcrdp: published", &s); err != nil {
		return err
	}
	if err := json.Unmarshal(s, &m.Summary); err != nil {
		return fmt.Errorf("mpcrdp: published: %w", err)
	}
	return nil
}
