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
	var w wire.Writer
	w.Bytes(s)
	w.Int(len(m.IDs))
	for _, id := range m.IDs {
		w.String(id)
	}
	w.Float64s(m.Values)
	w.String(m.Analysis.Party)
	w.Float64(m.Analysis.Sensitivity)
	w.Int(m.Analysis.K)
	w.Float64(m.Analysis.MeanDegree)
	return w.Data(), nil
}

func (m *Columns) UnmarshalBinary(b []byte) error {
	r := wire.NewReader(b)
	schema := r.Bytes()
	n := r.Int()
	if n < 0 || n > wire.MaxFieldLen {
		return fmt.Errorf("mpcrdp: columns: %d IDs", n)
	}
	m.IDs = nil
	for i := 0; i < n && r.Err() == nil; i++ {
		m.IDs = append(m.IDs, r.String())
	}
	m.Values = r.Float64s()
	m.Analysis.Party = r.String()
	m.Analysis.Sensitivity = r.Float64()
	m.Analysis.K = r.Int()
	m.Analysis.MeanDegree = r.Float64()
	if err := r.Finish(); err != nil {
		return fmt.Errorf("mpcrdp: columns: %w", err)
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
	var w wire.Writer
	w.Int(m.Step)
	w.String(m.Name)
	w.Bytes(c)
	return w.Data(), nil
}

func (m *ChargeRequest) UnmarshalBinary(b []byte) error {
	r := wire.NewReader(b)
	m.Step, m.Name = r.Int(), r.String()
	c := r.Bytes()
	if err := r.Finish(); err != nil {
		return fmt.Errorf("mpcrdp: charge request: %w", err)
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

func (m Approval) MarshalBinary() ([]byte, error) {
	var w wire.Writer
	w.Int(m.Step)
	return w.Data(), nil
}

func (m *Approval) UnmarshalBinary(b []byte) error {
	r := wire.NewReader(b)
	m.Step = r.Int()
	if err := r.Finish(); err != nil {
		return fmt.Errorf("mpcrdp: approval: %w", err)
	}
	return nil
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
	var w wire.Writer
	w.Bytes(b)
	return w.Data(), nil
}

func (m *Published) UnmarshalBinary(b []byte) error {
	r := wire.NewReader(b)
	s := r.Bytes()
	if err := r.Finish(); err != nil {
		return fmt.Errorf("mpcrdp: published: %w", err)
	}
	if err := json.Unmarshal(s, &m.Summary); err != nil {
		return fmt.Errorf("mpcrdp: published: %w", err)
	}
	return nil
}
