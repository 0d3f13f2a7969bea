package method

import "sync"

// Derived holds what a session derives from its agreed fields — its
// settings checked, the roles' parameters validated, an encoder, a noise
// plan — computed once and then carried to every Join and to Coordinate.
// Before it, each session re-derived them for every member: a run of m
// owners validated its settings m+3 times and PPCA-DP-MH calibrated its
// noise plan about 3m+5 times (issue 36). A session opened by the
// coordinator and one decoded by a member derive alike, on first use;
// embed it as an unexported field (JSON leaves it out) of a session used
// through a pointer, never copied.
type Derived[D any] struct {
	once sync.Once
	v    D
	err  error
}

// Get returns the derived value, calling derive the first time only; an
// error is kept like a value (a session that cannot derive its
// parameters never will).
func (d *Derived[D]) Get(derive func() (D, error)) (D, error) {
	d.once.Do(func() { d.v, d.err = derive() })
	return d.v, d.err
}
