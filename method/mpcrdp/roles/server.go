package roles

import (
	"fmt"
	"slices"

	"github.com/dppub/dppub/data"
	mpcrdp "github.com/dppub/dppub/method/mpcrdp/crdp"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// ServerOptions configure the trusted server.
type ServerOptions struct {
	Params Params
	// Accountant is the merged ledger: every step that reads the joined
	// records is spent on it before it runs.
	Accountant *privacy.Accountant
	Source     *randx.Source
}

// Server is the trusted server's role.
type Server struct {
	o         ServerOptions
	columns   map[string]Columns
	merged    *data.Table
	dropped   int
	pipe      *mpcrdp.Pipeline
	step      int
	pending   *mpcrdp.Step
	approvals map[string]bool
	done      bool
}

// NewServer validates o.
func NewServer(o ServerOptions) (*Server, error) {
	if err := o.Params.Validate(); err != nil {
		return nil, err
	}
	if o.Accountant == nil || o.Source == nil {
		return nil, fmt.Errorf("mpcrdp: the server needs an accountant and a randomness source")
	}
	return &Server{o: o, columns: map[string]Columns{}}, nil
}

// ID is the server's name.
func (s *Server) ID() string { return s.o.Params.Server }

// Start does nothing: the parties speak first.
func (s *Server) Start() ([]protocol.Envelope, error) { return nil, nil }

// Done reports whether the release is published.
func (s *Server) Done() bool { return s.done }

// Handle collects columns and approvals.
func (s *Server) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	if s.o.Params.partyIndex(e.From) < 0 {
		return nil, fmt.Errorf("mpcrdp: message from %q, not a party", e.From)
	}
	switch e.Type {
	case TypeColumns:
		var m Columns
		if err := m.UnmarshalBinary(e.Payload); err != nil {
			return nil, err
		}
		if _, dup := s.columns[e.From]; dup || s.pipe != nil {
			return nil, nil // a replay: ignore
		}
		s.columns[e.From] = m
		return s.onceAll(len(s.columns), s.start)
	case TypeApproval:
		var m Approval
		if err := m.UnmarshalBinary(e.Payload); err != nil {
			return nil, err
		}
		if s.pending == nil || m.Step != s.step {
			return nil, fmt.Errorf("mpcrdp: approval of step %d from %s, none pending", m.Step, e.From)
		}
		s.approvals[e.From] = true
		return s.onceAll(len(s.approvals), s.runPending)
	}
	return nil, fmt.Errorf("mpcrdp: server cannot handle %q", e.Type)
}

// onceAll waits until got, the messages of a round that have arrived, is
// one from every party; then it runs the round's step and advances.
func (s *Server) onceAll(got int, step func() error) ([]protocol.Envelope, error) {
	if got < len(s.o.Params.Parties) {
		return nil, nil
	}
	if err := step(); err != nil {
		return nil, err
	}
	return s.advance()
}

// start joins the columns and builds the pipeline.
func (s *Server) start() error {
	var tables []*data.Table
	var parties []mpcrdp.PartyFeatures
	var analyses []mpcrdp.PartyAnalysis
	for _, id := range s.o.Params.Parties {
		m := s.columns[id]
		t, err := m.Table()
		if err != nil {
			return fmt.Errorf("mpcrdp: %s: %w", id, err)
		}
		tables = append(tables, t)
		pf := mpcrdp.PartyFeatures{Name: id}
		for _, name := range t.Schema.Names() {
			if name != s.o.Params.Label {
				pf.Features = append(pf.Features, name)
			}
		}
		parties = append(parties, pf)
		m.Analysis.Party = id
		analyses = append(analyses, m.Analysis)
	}
	merged, dropped, err := Join(tables)
	if err != nil {
		return err
	}
	s.merged, s.dropped = merged, dropped
	s.pipe, err = mpcrdp.NewPipeline(mpcrdp.PipelineOptions{Table: merged, Label: s.o.Params.Label,
		Parties: parties, Analyses: analyses, Config: s.o.Params.Config, QuerySet: s.o.Params.QuerySet, Source: s.o.Source})
	return err
}

// advance runs steps without charges until one needs approval (sending
// its charge request) or the pipeline ends (sending the summary).
func (s *Server) advance() ([]protocol.Envelope, error) {
	for {
		st, err := s.pipe.Next()
		if err != nil {
			return nil, err
		}
		if st == nil {
			return s.publish()
		}
		if len(st.Charges) > 0 {
			s.pending, s.approvals = st, map[string]bool{}
			return s.broadcast(ChargeRequest{Step: s.step, Name: st.Name, Charges: st.Charges})
		}
		if err := s.pipe.Run(); err != nil {
			return nil, err
		}
	}
}

func (s *Server) runPending() error {
	for _, ch := range s.pending.Charges {
		if err := s.o.Accountant.Spend(ch); err != nil {
			return fmt.Errorf("mpcrdp: server refuses step %q: %w", s.pending.Name, err)
		}
	}
	s.pending = nil
	s.step++
	return s.pipe.Run()
}

func (s *Server) publish() ([]protocol.Envelope, error) {
	s.done = true
	r := s.pipe.Result()
	sum := Summary{MCD: r.MCD, Best: r.Best, Adjusted: r.Adjusted, Final: r.Final,
		Notion: string(s.o.Params.Config.Notion), Factor: r.Factor, Release: string(s.o.Params.Config.Release)}
	return s.broadcast(Published{Summary: sum})
}

func (s *Server) broadcast(m protocol.Message) ([]protocol.Envelope, error) {
	return protocol.Broadcast(s.o.Params.Session, s.o.Params.Server, s.o.Params.Parties, m)
}

// Result is what the server holds once done.
type Result struct {
	Merged   *data.Table
	Dropped  int // IDs missing from some party, left out of the join
	Pipeline *mpcrdp.Pipeline
	Result   *mpcrdp.Result
}

// Result returns the outcome once Done.
func (s *Server) Result() (*Result, error) {
	if !s.done {
		return nil, fmt.Errorf("mpcrdp: the session is not finished")
	}
	return &Result{Merged: s.merged, Dropped: s.dropped, Pipeline: s.pipe, Result: s.pipe.Result()}, nil
}

// Join merges vertically partitioned tables on their IDs (inner join, in
// the first table's order): the result's attributes are every table's, in
// table order. It reports how many of the first table's IDs some other
// table lacks.
func Join(tables []*data.Table) (*data.Table, int, error) {
	if len(tables) == 0 {
		return nil, 0, fmt.Errorf("mpcrdp: join of no tables")
	}
	schema := data.Schema{ID: tables[0].Schema.ID}
	index := make([]map[string]int, len(tables))
	for k, t := range tables {
		if len(t.IDs) != t.Len() {
			return nil, 0, fmt.Errorf("mpcrdp: table %d has no IDs", k+1)
		}
		for _, a := range t.Schema.Attributes {
			if slices.Contains(schema.Names(), a.Name) {
				return nil, 0, fmt.Errorf("mpcrdp: attribute %q is held by two parties", a.Name)
			}
			schema.Attributes = append(schema.Attributes, a)
		}
		index[k] = make(map[string]int, t.Len())
		for i, id := range t.IDs {
			if _, dup := index[k][id]; dup {
				return nil, 0, fmt.Errorf("mpcrdp: table %d holds ID %q twice", k+1, id)
			}
			index[k][id] = i
		}
	}
	out := &data.Table{Schema: schema}
	dropped := 0
next:
	for _, id := range tables[0].IDs {
		row := make([]float64, 0, len(schema.Attributes))
		for k, t := range tables {
			i, ok := index[k][id]
			if !ok {
				dropped++
				continue next
			}
			row = append(row, t.Rows[i]...)
		}
		out.Rows = append(out.Rows, row)
		out.IDs = append(out.IDs, id)
	}
	if out.Len() == 0 {
		return nil, dropped, fmt.Errorf("mpcrdp: no ID is held by every party")
	}
	return out, dropped, nil
}
