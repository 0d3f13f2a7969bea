package methods

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/randx"
	"github.com/dppub/dppub/transport"
)

// The helpers below are the steps every method's Prepare and Join share.

// decodeStrict decodes JSON, refusing unknown fields (a typo in a
// setting must not silently fall back to its default).
func decodeStrict(b []byte, v any, what string) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("methods: %s: %w", what, err)
	}
	return nil
}

// decodeSettings reads a method's settings from the coordinator's
// consortium file or command line.
func decodeSettings(method string, raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return fmt.Errorf("methods: %s: no settings (give them in the consortium file's methods section)", method)
	}
	return decodeStrict(raw, v, method+" settings")
}

// sharedSchema loads the schema file the settings name (relative to the
// consortium file); the coordinator sends it and every owner checks that
// its own schema is the same.
func sharedSchema(method string, f *consortium.File, file string) (data.Schema, error) {
	if file == "" {
		return data.Schema{}, fmt.Errorf("methods: %s: the settings need a schema file", method)
	}
	s, err := data.LoadSchema(f.Path(file))
	if err != nil {
		return data.Schema{}, fmt.Errorf("methods: %s: %w", method, err)
	}
	return s, nil
}

// memberNames lists the members with a role, in file order; none is an
// error.
func memberNames(method string, f *consortium.File, role string) ([]string, error) {
	var names []string
	for _, m := range f.WithRole(role) {
		names = append(names, m.Name)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("methods: %s: the consortium has no member with role %q", method, role)
	}
	return names, nil
}

// participant is one member asked to join, with a seed drawn from src
// when src is seeded (so the draws follow the one-process pipeline's).
func participant(name, role string, budget *dp.Guarantee, payload []byte, src *randx.Source) transport.Participant {
	p := transport.Participant{Name: name, Role: role, Budget: budget, Params: payload}
	if !src.IsSecure() {
		s := src.Uint64()
		p.Seed = &s
	}
	return p
}

// checkSession is what every participant checks first: the member the
// session names as its coordinator (as role) is the one that proposed it,
// and the members it lists are exactly those asked to join, in order.
func checkSession(in transport.JoinInput, role, coordinator string, listed []string) error {
	if coordinator != in.Coordinator {
		return fmt.Errorf("the session names %q as %s but %q coordinates it", coordinator, role, in.Coordinator)
	}
	var names []string
	for _, p := range in.Participants {
		names = append(names, p.Name)
	}
	if !slices.Equal(names, listed) {
		return fmt.Errorf("the session's members %v differ from its participants %v", listed, names)
	}
	return nil
}

// checkBudget refuses a session whose budget for this member is not the
// one its settings imply.
func checkBudget(in transport.JoinInput, want dp.Guarantee) error {
	if in.Accountant == nil || in.Accountant.Budget() != want {
		return fmt.Errorf("the session's budget does not match its settings (%v)", want)
	}
	return nil
}

// settings are a method's settings: defaults filled in place, then
// checked; schemaFile names the shared schema of a horizontal method.
type settings[T any] interface {
	*T
	defaults()
	validate() error
	schemaFile() string
}

// horizontalStart is how every horizontally split method's Prepare
// begins: the settings decoded, defaulted and checked, the shared schema
// they name, and the owners in file order.
func horizontalStart[T any, P settings[T]](method string, in transport.PrepareInput) (T, data.Schema, []string, error) {
	var st T
	if err := decodeSettings(method, in.Settings, &st); err != nil {
		return st, data.Schema{}, nil, err
	}
	P(&st).defaults()
	if err := P(&st).validate(); err != nil {
		return st, data.Schema{}, nil, err
	}
	schema, err := sharedSchema(method, in.Consortium, P(&st).schemaFile())
	if err != nil {
		return st, data.Schema{}, nil, err
	}
	owners, err := memberNames(method, in.Consortium, RoleOwner)
	return st, schema, owners, err
}

// Roles of the methods not yet defined in package method.
const (
	RoleCurator = "curator"
	RoleOwner   = method.RoleOwner
)
