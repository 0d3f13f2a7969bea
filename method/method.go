package method

import (
	"fmt"
	"github.com/dppub/dppub/ownerstats"
	"log/slog"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// Split says how a method's owners hold the data.
type Split int

const (
	// Central: one owner holds the whole table.
	Central Split = iota
	// Rows: owners of rows hold the same attributes of different people
	// (a horizontal split: hospitals with different patients).
	Rows
	// Columns: parties of columns hold different attributes of the same
	// people (a vertical split: a bank and an insurer).
	Columns
)

var splitNames = [...]string{Central: "central", Rows: "rows", Columns: "columns"}

func (s Split) String() string {
	if s < 0 || int(s) >= len(splitNames) {
		return fmt.Sprintf("Split(%d)", int(s))
	}
	return splitNames[s]
}

// Settings are one method's settings: a struct with JSON tags whose zero
// fields take the method's defaults (SetDefaults fills them in), checked
// once by Validate before any session is opened.
type Settings interface {
	SetDefaults()
	Validate() error
}

// Member is one participant of a session other than its coordinator.
type Member struct {
	Name string
	Role string
	// Budget is what the session may spend of the member's data; nil for
	// members that hold none (a dealer, a third party).
	Budget *dp.Guarantee
	// Delta, for a ρ-zCDP Budget, is the δ at which the session is
	// reported against an (ε, δ) lifetime budget: the whole session counts
	// as (dp.ZCDPEpsilon(ρ charged, Delta), Delta) there (see package
	// budgetstore). 0 when the settings give no δ; such a session runs
	// only against ρ lifetime budgets.
	Delta float64
	// Draws says that the member's randomness is drawn from the
	// coordinator's, in member order, when that is seeded; members that
	// draw nothing (false) take no seed.
	Draws bool
}

// Local is what a member brings to its role.
type Local struct {
	Name string
	// Table is the member's own data in its own schema (nil for members
	// that hold none); the session checks it against what it expects.
	Table *data.Table
	// Statistics, instead of Table, are the member's exact statistics
	// computed elsewhere (a statistics file of the Beam pipeline) under its
	// own Schema; only methods that need statistics alone accept them.
	Statistics *ownerstats.Statistics
	Schema     data.Schema
	// Accountant holds the member's budget for the session and is charged
	// by the role before any noisy value leaves.
	Accountant *privacy.Accountant
	// Source is the member's randomness.
	Source *randx.Source
	// Attach is a method-specific attachment (e.g. Mul-LDA-DP's handle on
	// the publishing ledger); nil when the run provides none.
	Attach any
	Log    *slog.Logger
	// Facts, when set, receives what Join learns about the member's data.
	Facts *Facts
	// Dir is the directory against which files the settings name are
	// read on the member's own machine (e.g. key files); empty in one
	// process.
	Dir string
	// Peers signs the member's own statements and checks the other
	// members' (their keys, relayed by the coordinator); a role that
	// relies on keys relayed by the coordinator refuses to run without.
	Peers Peers
	// Neighbours, when set, is the relation the member's own budget is
	// stated under (its consortium entry): a method that lets a session
	// choose the relation refuses to join a session under another.
	Neighbours dp.Neighbours
}

// Coordination is the coordinator's part of a session.
type Coordination struct {
	Role protocol.Role
	// Publish builds the outcome once every role is done, from the
	// accountants of the members that hold a budget, in member order.
	Publish func(accts []*privacy.Accountant) (*Outcome, error)
	// Cleanup, if set, runs when the session ends, successful or not.
	Cleanup func()
}

// Session is one agreed run of a method. JSON-encoded, it is what the
// coordinator sends every member, and each builds its role from it.
type Session interface {
	// Header names the session and its coordinator.
	Head() Header
	// Members lists the participants other than the coordinator, in the
	// order their randomness is drawn.
	Members() []Member
	// Unsound reports whether the run's output is not (fully) covered by
	// DP or its guarantee is weaker than charged; members refuse such a
	// session unless their policy allows it.
	Unsound() bool
	// Join builds one member's role after checking the session against
	// the member's own data.
	Join(l Local) (protocol.Role, error)
	// Coordinate builds the coordinator's role; src is the coordinator's
	// randomness, from which it may draw (after the members' draws).
	Coordinate(src *randx.Source, attach any) (*Coordination, error)
}

// Header is the part every session shares; embed it in a session struct.
type Header struct {
	ID          string `json:"id"`
	Coordinator string `json:"coordinator"`
}

// Head returns the header.
func (h Header) Head() Header { return h }

// Header returns the header a session opened with o starts with.
func (o Open) Header() Header { return Header{ID: o.ID, Coordinator: o.Coordinator} }

// Open is what a coordinator knows when it opens a session.
type Open struct {
	// ID is the session ID (drawn by the runner).
	ID string
	// Coordinator is the coordinator's name.
	Coordinator string
	// Members are the names available for each member role, in order.
	// A role a session does not use may be offered and is ignored.
	Members map[string][]string
	// Schemas are the public schemas: one shared schema for a Rows
	// method, one per party of columns (in Members order) for Columns.
	Schemas []data.Schema
}

// Names returns the names offered for role, or an error naming the role
// when there are fewer than min.
func (o Open) Names(role string, min int) ([]string, error) {
	names := o.Members[role]
	if len(names) < min {
		return nil, fmt.Errorf("%d member(s) with role %q, the method needs at least %d", len(names), role, min)
	}
	return names, nil
}

// Only returns the one name offered for role.
func (o Open) Only(role string) (string, error) {
	names := o.Members[role]
	if len(names) != 1 {
		return "", fmt.Errorf("the method needs exactly one member with role %q, found %d", role, len(names))
	}
	return names[0], nil
}

// Schema returns the one shared schema of a Rows method.
func (o Open) Schema() (data.Schema, error) {
	if len(o.Schemas) != 1 {
		return data.Schema{}, fmt.Errorf("the method needs one shared schema, got %d", len(o.Schemas))
	}
	return o.Schemas[0], nil
}

// Outcome is what a run publishes.
type Outcome struct {
	// Table is the published table (written as CSV), if any.
	Table *data.Table
	// Artifact is any other published artifact (written as JSON).
	Artifact any
	// Data, if set, is the main output's exact bytes (e.g. a model file
	// or a CSV that is not a data table), written as they are.
	Data []byte
	// Report is the privacy report.
	Report *privacy.Report
	// Files are further published files, each written beside the output
	// under the output's name plus its suffix (e.g. ".model.json").
	Files []OutputFile
	// Summary is printed after the report.
	Summary string
	// Detail is the method's own in-process result (a model, an encoder):
	// for callers in the same process, never published as such.
	Detail any
}

// OutputFile is one further published file.
type OutputFile struct {
	Suffix string
	Data   []byte
}

// RoleOwner is the role of every member that holds data, owners of rows
// and parties of columns alike.
const RoleOwner = "owner"

// Facts are what a member learns about its own data while joining, for
// its own eyes (never published): rows read, values clamped.
type Facts struct {
	Rows, Clamped int
}

// RecordDefaults is implemented by settings with a default that depends
// on the owners' public record counts (δ = 1/n² of the records, at most
// dp.MaxDefaultDelta): a one-process run, which knows them, fills it
// before validating; over the network the value must be given. records
// is the number of records of the data set the run publishes: the sum of
// the owners' records for owners of rows (one owner with 2 rows must not
// make δ = 0.25 for everyone), the common record count for parties of
// columns.
type RecordDefaults interface {
	DefaultRecords(records int)
}

// SharedTable returns the member's table after checking that its schema
// is the session's shared one (a method of owners of rows).
func (l Local) SharedTable(schema data.Schema) (*data.Table, error) {
	if l.Table == nil && l.Statistics != nil {
		return nil, fmt.Errorf("%s brings statistics, but this method needs its rows", l.Name)
	}
	if l.Table == nil {
		return nil, fmt.Errorf("%s holds no data", l.Name)
	}
	if !l.Table.Schema.Equal(schema) {
		return nil, fmt.Errorf("%s's schema differs from the session's", l.Name)
	}
	return l.Table, nil
}

// SharedStatistics returns the member's statistics after checking that
// the schema they were computed under is the session's shared one; nil
// when the member brings rows instead.
func (l Local) SharedStatistics(schema data.Schema) (*ownerstats.Statistics, error) {
	if l.Statistics == nil {
		return nil, nil
	}
	if !l.Schema.Equal(schema) {
		return nil, fmt.Errorf("%s's statistics were computed under another schema than the session's", l.Name)
	}
	return l.Statistics, nil
}

// Note records what the member learnt about its data, in Facts and in
// its log.
func (l Local) Note(method string, rows, clamped int, attrs ...any) {
	if l.Facts != nil {
		l.Facts.Rows, l.Facts.Clamped = rows, clamped
	}
	if l.Log != nil {
		l.Log.Info(method+": data loaded", append([]any{"rows", rows, "clamped", clamped}, attrs...)...)
	}
}

// RowsSession is the part every session of owners of rows shares: embed it.
type RowsSession struct {
	Header
	// Schema is the owners' shared schema; Owners the owners in order.
	Schema data.Schema `json:"schema"`
	Owners []string    `json:"owners"`
}

// OpenRows reads what a session of owners of rows opens with: at least
// one owner and their shared schema.
func OpenRows(o Open) (RowsSession, error) {
	owners, err := o.Names(RoleOwner, 1)
	if err != nil {
		return RowsSession{}, err
	}
	schema, err := o.Schema()
	if err != nil {
		return RowsSession{}, err
	}
	return RowsSession{Header: o.Header(), Schema: schema, Owners: owners}, nil
}

// OwnerMembers lists the owners, in order, each with budget b and its
// randomness drawn from the coordinator's when seeded.
func (r RowsSession) OwnerMembers(b dp.Guarantee) []Member {
	return r.OwnerMembersAt(b, 0)
}

// OwnerMembersAt is OwnerMembers for a zCDP budget b reported at δ
// (Member.Delta).
func (r RowsSession) OwnerMembersAt(b dp.Guarantee, delta float64) []Member {
	ms := make([]Member, len(r.Owners))
	for i, o := range r.Owners {
		ms[i] = Member{Name: o, Role: RoleOwner, Budget: &b, Delta: delta, Draws: true}
	}
	return ms
}

// RowsOf is the session most methods of owners of rows send: the shared
// part and the method's settings S. A method embeds it in its own session
// type (which carries the method's behaviour); the JSON is the shared
// fields, then "settings".
type RowsOf[S any] struct {
	RowsSession
	Settings S `json:"settings"`
}

// RowsSpec defines a method of owners of rows whose coordinator (role
// coordinator) sends every owner one session T. Its settings are *S;
// open builds the session from what OpenRows read and the validated
// settings, and checks that the protocol's parameters derive from it.
// The methods' skeleton (spec literal, OpenRows, copying the settings,
// strict decoding) lives here once.
func RowsSpec[S any, PS interface {
	*S
	Settings
}, T any, PT interface {
	*T
	Session
}](name, summary, coordinator string, open func(RowsOf[S]) (PT, error)) Spec {
	return Spec{
		Name:        name,
		Summary:     summary,
		Split:       Rows,
		Coordinator: coordinator,
		MemberRoles: []string{RoleOwner},
		NewSettings: func() Settings { return PS(new(S)) },
		Open: func(st Settings, o Open) (Session, error) {
			rows, err := OpenRows(o)
			if err != nil {
				return nil, err
			}
			s, err := open(RowsOf[S]{RowsSession: rows, Settings: *st.(PS)})
			if err != nil {
				return nil, err
			}
			return s, nil
		},
		Decode: DecodeSession[T, PT],
	}
}

// ColumnsSpec defines a method of parties of columns whose coordinator
// (role coordinator) sends every member one session T; the parties have
// role owner, followed by roles (a third party, say). Its settings are
// *S; open builds the session from the validated settings and what the
// coordinator knows. The skeleton (spec literal, copying the settings,
// strict decoding) lives here once, as RowsSpec's does for owners of rows.
func ColumnsSpec[S any, PS interface {
	*S
	Settings
}, T any, PT interface {
	*T
	Session
}](name, summary, coordinator string, roles []string, open func(S, Open) (PT, error)) Spec {
	return Spec{
		Name:        name,
		Summary:     summary,
		Split:       Columns,
		Coordinator: coordinator,
		MemberRoles: append([]string{RoleOwner}, roles...),
		NewSettings: func() Settings { return PS(new(S)) },
		Open: func(st Settings, o Open) (Session, error) {
			s, err := open(*st.(PS), o)
			if err != nil {
				return nil, err
			}
			return s, nil
		},
		Decode: DecodeSession[T, PT],
	}
}

// Resulting is a coordinator's role that yields a result R once done.
type Resulting[R any] interface {
	protocol.Role
	Result() (R, error)
}

// Coordinated is the usual Coordination: the coordinator's role r, and a
// Publish that builds the outcome with publish from r's result and the
// members' accountants.
func Coordinated[R any](r Resulting[R], publish func(res R, accts []*privacy.Accountant) (*Outcome, error)) *Coordination {
	return &Coordination{Role: r, Publish: func(accts []*privacy.Accountant) (*Outcome, error) {
		res, err := r.Result()
		if err != nil {
			return nil, err
		}
		return publish(res, accts)
	}}
}
