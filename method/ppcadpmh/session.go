package ppcadpmh

import (
	"fmt"
	"github.com/dppub/dppub/ownerstats"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/method/ppcadpmh/ppca"
	proto "github.com/dppub/dppub/method/ppcadpmh/roles"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// Spec is PPCA-DP-MH's definition.
var Spec = method.RowsSpec(Name,
	"synthetic data from owners of rows via DP covariance and probabilistic PCA",
	RoleCurator, open).Streaming().WithDemo(demo)

// session is what the curator sends every owner.
type session struct {
	method.RowsOf[Settings]
	derived method.Derived[derived]
}

// derived is what every side derives from the session, once.
type derived struct {
	agreed *proto.Agreed
	enc    *data.Encoder
}

func open(r method.RowsOf[Settings]) (*session, error) {
	s := &session{RowsOf: r}
	s.Settings.Mechanism = s.Settings.mechanism()
	if _, _, err := s.params(); err != nil {
		return nil, err
	}
	return s, nil
}

// params are the protocol parameters, agreed once with their noise plan,
// and the session's encoder.
func (s *session) params() (*proto.Agreed, *data.Encoder, error) {
	d, err := s.derived.Get(s.derive)
	return d.agreed, d.enc, err
}

// derive derives the protocol parameters, on every side from the same
// session.
func (s *session) derive() (derived, error) {
	st := s.Settings
	if err := st.Validate(); err != nil {
		return derived{}, err
	}
	enc, err := data.NewEncoder(s.Schema, data.EncoderOptions{})
	if err != nil {
		return derived{}, err
	}
	bounds, err := RowBoundsOf(enc)
	if err != nil {
		return derived{}, err
	}
	if st.GenericBounds {
		bounds = ppca.GenericBounds(enc.Dim())
	}
	p := proto.Params{
		Session: s.ID, Owners: s.Owners, Curator: s.Coordinator,
		Plan: ppca.PlanOptions{Calibration: st.Calibration, Mechanism: st.mechanism(),
			Epsilon: st.Epsilon, Delta: st.Delta, Bounds: bounds},
		Noise: st.Noise, Fit: ppca.FitOptions{Contribution: st.Contribution, K: st.K},
		PaperLatent: st.PaperLatent,
	}
	agreed, err := proto.Agree(p)
	return derived{agreed: agreed, enc: enc}, err
}

func (s *session) Members() []method.Member { return s.OwnerMembers(s.Settings.Budget()) }

func (s *session) Unsound() bool { return s.Settings.unsound() }

func (s *session) Join(l method.Local) (protocol.Role, error) {
	params, enc, err := s.params()
	if err != nil {
		return nil, err
	}
	st, err := l.SharedStatistics(s.Schema)
	if err != nil {
		return nil, err
	}
	if st != nil {
		return s.joinStatistics(l, params, st)
	}
	t, err := l.SharedTable(s.Schema)
	if err != nil {
		return nil, err
	}
	// One pass over the rows, encoded on the fly: no n×p matrix.
	m, clamped, err := ppca.TableMoments(t, enc, 0)
	if err != nil {
		return nil, err
	}
	l.Note(Name, t.Len(), clamped, "columns", enc.Dim())
	return proto.NewOwner(proto.OwnerOptions{ID: l.Name, Agreed: params, Moments: m, Table: t, Encoder: enc,
		Accountant: l.Accountant, Source: l.Source})
}

// ScanStatistics says how an owner whose rows are in a delimited file
// may bring their statistics instead, computed in one streaming pass over
// the file (ownerstats.ScanFile) rather than from the table read whole:
// the owner's role needs only n, Σx and Σxxᵀ, which are the same bits
// either way, and n synthetic rows are drawn from the model whatever
// holds the rows. It returns the configuration to scan with (the
// moments do not depend on the marginals' bins), and false when the role
// needs the rows themselves (paper_latent projects them). own is the
// owner's schema: one other than the session's is refused, in
// SharedTable's words, before a row is read.
func (s *session) ScanStatistics(owner string, own data.Schema) (ownerstats.Config, bool, error) {
	if !own.Equal(s.Schema) {
		return ownerstats.Config{}, false, fmt.Errorf("%s's schema differs from the session's", owner)
	}
	if s.Settings.PaperLatent {
		return ownerstats.Config{}, false, nil
	}
	return ownerstats.Config{Schema: own}, true, nil
}

// joinStatistics builds an owner from statistics computed elsewhere with
// the same encoding (exact integers: the same bits as from its rows).
func (s *session) joinStatistics(l method.Local, params *proto.Agreed, st *ownerstats.Statistics) (protocol.Role, error) {
	if st.Moments == nil {
		return nil, fmt.Errorf("%s's statistics hold no PPCA moments", l.Name)
	}
	if s.Settings.PaperLatent {
		return nil, fmt.Errorf("paper_latent projects the owners' real rows: %s brings only statistics", l.Name)
	}
	l.Note(Name, int(st.Moments.N), 0, "source", "statistics")
	return proto.NewOwner(proto.OwnerOptions{ID: l.Name, Agreed: params, Moments: st.Moments,
		Accountant: l.Accountant, Source: l.Source})
}

// Result is the in-process detail of a run (Outcome.Detail).
type Result struct {
	Model   *ppca.Model
	Encoder *data.Encoder
}

// RowSink, attached to the curator (method.LocalOptions.Attach), takes the
// synthetic rows decoded, a chunk at a time and in the order of the
// outcome's table, instead of that table (Outcome.Table is then nil): the
// rows, the bulk of a release, need never be held whole.
type RowSink = method.RowSink

func (s *session) Coordinate(src *randx.Source, attach any) (*method.Coordination, error) {
	params, enc, err := s.params()
	if err != nil {
		return nil, err
	}
	sink, err := method.Attached[RowSink](attach)
	if err != nil {
		return nil, err
	}
	curator := proto.NewAgreedCurator(params)
	if sink != nil {
		// Decoding is row by row, so a chunk decodes to the same rows as
		// it would within the whole matrix.
		curator.SetSink(func(_ string, _ int, rows *mat.Dense) error { return sink(enc.Decode(rows)) })
	}
	publish := func(res *proto.Result, accts []*privacy.Accountant) (*method.Outcome, error) {
		report, err := Report(ReportOptions{Params: params.Params(), Plan: params.Derived(), Accountants: accts, Counts: res.Counts,
			Secure: src.IsSecure(), Randomness: src.Describe()})
		if err != nil {
			return nil, err
		}
		summary := fmt.Sprintf("model: k = %d components of p = %d, noise variance σ² = %.4g", res.Model.K, enc.Dim(), res.Model.Sigma2)
		out := &method.Outcome{Report: report, Summary: summary, Detail: &Result{Model: res.Model, Encoder: enc}}
		if res.Synthetic != nil {
			out.Table = enc.Decode(res.Synthetic)
		}
		return out, nil
	}
	return method.Coordinated(curator, publish), nil
}

// RowBoundsOf reads the column groups of an encoder: one group per
// attribute (a one-hot block or a single scalar column).
func RowBoundsOf(enc *data.Encoder) (ppca.RowBounds, error) {
	b := ppca.RowBounds{P: enc.Dim()}
	next := 0
	for _, a := range enc.Attributes() {
		cols, err := enc.Columns(a)
		if err != nil {
			return b, err
		}
		for k, c := range cols {
			if c != next+k {
				return b, fmt.Errorf("encoder columns of %q are not contiguous", a)
			}
		}
		next += len(cols)
		b.Groups = append(b.Groups, len(cols))
	}
	return b, b.Validate()
}
