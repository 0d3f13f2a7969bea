package protocol

import (
	"fmt"
	"reflect"
)

// Agreed are a session's public parameters P checked once, with what
// checking derives from them (D: a calibrated noise plan, say). A session
// agrees them once and hands them to every role it builds and to its
// report, instead of each role checking and calibrating again: issue 36
// measured 3m+5 noise plans calibrated in a run of m owners. Roles take
// them read-only.
type Agreed[P, D any] struct {
	params  P
	derived D
}

// Agree checks p with check and keeps what it derives.
func Agree[P, D any](p P, check func(P) (D, error)) (*Agreed[P, D], error) {
	d, err := check(p)
	if err != nil {
		return nil, err
	}
	return &Agreed[P, D]{params: p, derived: d}, nil
}

// Params are the agreed parameters.
func (a *Agreed[P, D]) Params() P { return a.params }

// Derived is what checking the parameters derived.
func (a *Agreed[P, D]) Derived() D { return a.derived }

// AgreedOr is what a role's constructor works from: agreed when the
// session gives it (then p must be left zero, so that nothing given is
// silently ignored), else p checked here.
func AgreedOr[P, D any](agreed *Agreed[P, D], p P, check func(P) (D, error)) (*Agreed[P, D], error) {
	if agreed == nil {
		return Agree(p, check)
	}
	if !reflect.ValueOf(&p).Elem().IsZero() {
		return nil, fmt.Errorf("protocol: a role was given both its parameters and agreed ones")
	}
	return agreed, nil
}

// Settle is AgreedOr over a role's options: it leaves *p holding the
// agreed parameters and *agreed nil, so the options the role keeps carry
// its parameters once, and returns what was agreed.
func Settle[P, D any](agreed **Agreed[P, D], p *P, check func(P) (D, error)) (*Agreed[P, D], error) {
	a, err := AgreedOr(*agreed, *p, check)
	if err != nil {
		return nil, err
	}
	*p, *agreed = a.Params(), nil
	return a, nil
}

// CheckRoster checks the names of a session's roles: a named coordinator
// (role coordRole) and at least one member (role memberRole), every name
// non-empty and used once.
func CheckRoster(coordRole, coordinator, memberRole string, members []string) error {
	if len(members) < 1 {
		return fmt.Errorf("no member with role %s", memberRole)
	}
	if coordinator == "" {
		return fmt.Errorf("the %s needs a name", coordRole)
	}
	seen := map[string]bool{coordinator: true}
	for _, m := range members {
		if m == "" || seen[m] {
			return fmt.Errorf("%s name %q is empty or repeated", memberRole, m)
		}
		seen[m] = true
	}
	return nil
}
