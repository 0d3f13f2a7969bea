package method

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/dppub/dppub/model"
	"github.com/dppub/dppub/randx"
)

// Spec defines one method: a session method (Open and Decode, run by
// RunLocal or across processes) or a central one (Run, by RunCentral).
type Spec struct {
	// Name is the method's name on the command line, e.g. "ppca-dp-mh".
	Name string
	// Summary is one line saying what the method publishes.
	Summary string
	Split   Split
	// Coordinator is the role of the member that opens sessions and
	// publishes the result (e.g. "curator"); MemberRoles are the roles
	// its sessions may ask to join, in the order they are drawn.
	Coordinator string
	MemberRoles []string
	// NewSettings returns zero settings (a pointer to the method's
	// settings struct).
	NewSettings func() Settings
	// Open opens a session at the coordinator from validated settings.
	Open func(st Settings, o Open) (Session, error)
	// Decode reads a session that a coordinator sent.
	Decode func(payload []byte) (Session, error)
	// Run publishes from one owner's whole table in one place (a Central
	// method, which has no session: nothing leaves the owner but the
	// outcome). It gets validated settings and l.Table, l.Source (never
	// nil) and l.Name (may be empty); it opens its accountants itself
	// from the settings' budget, since a central method may hold several
	// (personalised budgets per party of columns), and fills l.Facts.
	Run func(ctx context.Context, st Settings, l Local) (*Outcome, error)
	// StreamsRows says that the coordinator takes a RowSink as its
	// attachment and hands it the synthetic rows as they are decoded, so
	// that a command can write them to any output (standard output too)
	// without holding them whole.
	StreamsRows bool
	// ReadModel, when the method publishes a model file in a format of
	// its own (not package model's), reads such a file as the model
	// classifier 'dppub predict' applies; the file's "method" key names
	// the method.
	ReadModel func(b []byte) (*model.Model, error)
	// Demo, if set, lays a built-in dataset out as a ready-to-run
	// consortium on one machine for the method (WithDemo).
	Demo func(DemoInput) (*Demo, error)
}

// Streaming returns the spec with StreamsRows set.
func (s Spec) Streaming() Spec {
	s.StreamsRows = true
	return s
}

// Multiparty reports whether the method runs as a session of roles (in
// one process or across processes).
func (s Spec) Multiparty() bool { return s.Open != nil && s.Decode != nil }

// RunCentral runs a central method on one owner's data: the settings'
// defaults are filled (with RecordDefaults from the table's record
// count), validated once, and the method's Run publishes. The randomness
// defaults to a secure source.
func RunCentral(ctx context.Context, s Spec, st Settings, l Local) (*Outcome, error) {
	if s.Run == nil {
		return nil, fmt.Errorf("%s runs as a session of roles, not in one place", s.Name)
	}
	if l.Source == nil {
		l.Source = randx.NewSecure()
	}
	st.SetDefaults()
	if d, ok := st.(RecordDefaults); ok && l.Table != nil && l.Table.Len() > 0 {
		d.DefaultRecords(l.Table.Len())
	}
	if err := st.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, SettingsError{err})
	}
	out, err := s.Run(ctx, st, l)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	return out, nil
}

// Settings decodes raw JSON settings over the defaults, refusing unknown
// fields (a typo must not silently fall back to a default), and
// validates them.
func (s Spec) Settings(raw json.RawMessage) (Settings, error) {
	st := s.NewSettings()
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := CheckExplicit(raw, st); err != nil {
			return nil, fmt.Errorf("%s: %w", s.Name, SettingsError{err})
		}
		if err := DecodeStrict(raw, st); err != nil {
			return nil, fmt.Errorf("%s settings: %w", s.Name, err)
		}
	}
	st.SetDefaults()
	if err := st.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, SettingsError{err})
	}
	return st, nil
}

// SettingsError marks a mistake in a method's settings (as opposed to a
// failure of the run): a command line reports it as a usage error.
type SettingsError struct{ Err error }

func (e SettingsError) Error() string { return e.Err.Error() }
func (e SettingsError) Unwrap() error { return e.Err }

// FieldError is a mistake in one setting, named by its JSON key, so that
// a command line which binds the key as a flag can name the flag instead
// ("--rho must be positive", not "rho must be positive").
type FieldError struct {
	Key string
	Err error
}

func (e FieldError) Error() string { return e.Key + " " + e.Err.Error() }
func (e FieldError) Unwrap() error { return e.Err }

// Fieldf returns a FieldError for key whose text follows the key:
// Fieldf("rho", "must be positive, got %v", r).
func Fieldf(key, format string, a ...any) error {
	return FieldError{Key: key, Err: fmt.Errorf(format, a...)}
}

// DecodeStrict decodes JSON into v, refusing unknown fields and trailing
// data.
func DecodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("trailing data after the JSON value")
	}
	return nil
}

// DecodeSession is the usual Spec.Decode: strict JSON into a fresh T.
func DecodeSession[T any, P interface {
	*T
	Session
}](payload []byte) (Session, error) {
	var s T
	if err := DecodeStrict(payload, &s); err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	return P(&s), nil
}

var (
	registryMu sync.RWMutex
	registry   = map[string]Spec{}
)

// Register adds a method. It panics on a duplicate or incomplete spec:
// registration is one line per method (method/registry), where that is a
// programming error. A spec runs either as sessions (Open and Decode, a
// coordinator) or in one place (Run, Split Central), never both.
func Register(s Spec) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if s.Name == "" || s.NewSettings == nil || (s.Open == nil) != (s.Decode == nil) || s.Multiparty() == (s.Run != nil) {
		panic(fmt.Sprintf("method: incomplete spec %q", s.Name))
	}
	if s.Multiparty() && s.Coordinator == "" {
		panic(fmt.Sprintf("method: %q runs sessions but names no coordinator role", s.Name))
	}
	if (s.Run != nil) != (s.Split == Central) {
		panic(fmt.Sprintf("method: %q: a method runs in one place (Run) exactly when its split is central", s.Name))
	}
	if _, dup := registry[s.Name]; dup {
		panic(fmt.Sprintf("method: %q registered twice", s.Name))
	}
	registry[s.Name] = s
}

// Lookup returns the method called name.
func Lookup(name string) (Spec, error) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	s, ok := registry[name]
	if !ok {
		return Spec{}, fmt.Errorf("unknown method %q (known: %v)", name, namesLocked(nil))
	}
	return s, nil
}

// All lists the registered methods by name.
func All() []Spec {
	registryMu.RLock()
	defer registryMu.RUnlock()
	var out []Spec
	for _, n := range namesLocked(nil) {
		out = append(out, registry[n])
	}
	return out
}

// Names lists the registered methods' names, those for which keep is true
// when keep is set.
func Names(keep func(Spec) bool) []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	return namesLocked(keep)
}

func namesLocked(keep func(Spec) bool) []string {
	names := make([]string, 0, len(registry))
	for n, s := range registry {
		if keep == nil || keep(s) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// SessionID draws a session's ID from the coordinator's randomness: the
// first draw of every run, in one process or across processes.
func SessionID(method string, draw func() uint64) string {
	return fmt.Sprintf("%s-%016x", method, draw())
}

// CheckMembers checks that the members a session lists are exactly those
// asked to join, in order.
func CheckMembers(s Session, asked []string) error {
	var listed []string
	for _, m := range s.Members() {
		listed = append(listed, m.Name)
	}
	if !slices.Equal(listed, asked) {
		return fmt.Errorf("the session's members %v differ from its participants %v", listed, asked)
	}
	return nil
}

// CentralSpec defines a central method: one owner publishes from its
// whole table in one place (Split Central, no session). Its settings are
// *S, which run receives validated and typed.
func CentralSpec[S any, PS interface {
	*S
	Settings
}](name, summary string, run func(ctx context.Context, st PS, l Local) (*Outcome, error)) Spec {
	return Spec{
		Name:        name,
		Summary:     summary,
		Split:       Central,
		NewSettings: func() Settings { return PS(new(S)) },
		Run: func(ctx context.Context, st Settings, l Local) (*Outcome, error) {
			return run(ctx, st.(PS), l)
		},
	}
}
