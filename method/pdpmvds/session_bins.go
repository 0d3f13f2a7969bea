// The bins phase: each party chooses its numeric attributes' bins from its
// own columns, charged to its own budget, and every member is told all of
// them before the engine runs.

package pdpmvds

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/engine/marginal/measurement"
	proto "github.com/dppub/dppub/method/pdpmvds/roles"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// numeric lists, by party, the global indices of its numeric attributes.
func (s *Session) numeric() [][]int {
	out := make([][]int, len(s.Schemas))
	for k, sc := range s.Schemas {
		out[k] = []int{}
		for j, a := range sc.Attributes {
			if a.Kind == data.Numeric {
				out[k] = append(out[k], s.first(k)+j)
			}
		}
	}
	return out
}

// needsBins says whether the session starts with the bins phase: bins
// chosen from the data and some numeric attribute to choose them for.
func (s *Session) needsBins() bool {
	if !s.Settings.binsOn() {
		return false
	}
	for _, num := range s.numeric() {
		if len(num) > 0 {
			return true
		}
	}
	return false
}

// binRho is what party k spends on its bins: BinShare of its ρ_k when it
// holds a numeric attribute, else nothing (each party pays for its own
// columns' bins only).
func (s *Session) binRho(k int) float64 {
	if !s.Settings.binsOn() || len(s.numeric()[k]) == 0 {
		return 0
	}
	return s.Settings.BinShare * s.Settings.rho(s.Owners[k])
}

// withCuts is the session once the parties have chosen their bins.
func (s *Session) withCuts(all map[int][]float64) (*Session, error) {
	want := slices.Concat(s.numeric()...)
	for j := range all {
		if !slices.Contains(want, j) {
			return nil, fmt.Errorf("bin edges for attribute %d, not a numeric attribute of the session", j)
		}
	}
	if len(all) != len(want) {
		return nil, fmt.Errorf("bin edges for %d attributes, the session has %d numeric attributes", len(all), len(want))
	}
	c := *s
	c.cuts = all
	if err := c.lay(); err != nil {
		return nil, err
	}
	return &c, nil
}

// chooseCuts chooses the bins of party k's numeric attributes from its
// own table: measurement.ChooseCuts on each column (a noisy histogram on the
// public grid, charged to the party's accountant before it is drawn, at
// an equal part of the party's bins budget), refining the equal-width
// bins. Only the edges, post-processing of the noisy counts, leave the
// party.
func (s *Session) chooseCuts(k int, t *data.Table, acct *privacy.Accountant, src *randx.Source) (map[int][]float64, error) {
	st := s.Settings
	num := s.numeric()[k]
	out := map[int][]float64{}
	if len(num) == 0 {
		return out, nil
	}
	each := s.binRho(k) / float64(len(num))
	first := s.first(k)
	for _, g := range num {
		j := g - first
		a := t.Schema.Attributes[j]
		values, err := t.Column(a.Name)
		if err != nil {
			return nil, fmt.Errorf("%s's bins: %w", s.Owners[k], err)
		}
		c, err := measurement.ChooseCuts(a, values, measurement.CutsOptions{Bins: cmp.Or(st.BinsFor[a.Name], st.Bins), Rho: each, Accountant: acct, Source: src})
		if err != nil {
			return nil, fmt.Errorf("%s's bins: %w", s.Owners[k], err)
		}
		out[g] = c
	}
	return out, nil
}

// BinLocal runs the bins phase in one process over the roles Join built
// (in member order; after LinkLocal in a linked session): every party
// chooses its bins, as Start would send them, and every member is given
// all of them, as the coordinator's message would over the network. It
// returns the session with those bins (for RunMeasured); a session
// without the bins phase is returned as it is.
func (s *Session) BinLocal(roles []protocol.Role) (*Session, error) {
	if !s.needsBins() || s.cuts != nil {
		return s, nil
	}
	var bins []*proto.Binning
	for _, r := range roles {
		for r != nil {
			if b, ok := r.(*proto.Binning); ok {
				bins = append(bins, b)
				break
			}
			w, ok := r.(interface{ Unwrap() protocol.Role })
			if !ok {
				break
			}
			r = w.Unwrap()
		}
	}
	if len(bins) != len(s.Owners)+1 {
		return nil, fmt.Errorf("the bins phase needs %d parties' roles and S's, got %d", len(s.Owners), len(bins))
	}
	var all map[int][]float64
	g := proto.NewGathering(proto.CoordinatorID, s.expected(), nil, func(a map[int][]float64) (protocol.Role, error) {
		all = a
		return idle{}, nil
	})
	for _, b := range bins {
		if b.ID() == proto.ThirdPartyID {
			continue
		}
		own, err := b.Own()
		if err != nil {
			return nil, err
		}
		if _, err := g.Add(b.ID(), own); err != nil {
			return nil, err
		}
	}
	ws, err := s.withCuts(all)
	if err != nil {
		return nil, err
	}
	for _, b := range bins {
		// The messages are the PDP-MVDS roles' first messages (none).
		if _, err := b.Begin(all); err != nil {
			return nil, err
		}
	}
	return ws, nil
}

// expected maps every party's protocol ID to its numeric attributes.
func (s *Session) expected() map[string][]int {
	expect := map[string][]int{}
	for k, num := range s.numeric() {
		expect[proto.PartyID(k)] = num
	}
	return expect
}

// idle stands for the engine in BinLocal's gathering.
type idle struct{}

func (idle) ID() string                                            { return proto.CoordinatorID }
func (idle) Done() bool                                            { return true }
func (idle) Start() ([]protocol.Envelope, error)                   { return nil, nil }
func (idle) Handle(protocol.Envelope) ([]protocol.Envelope, error) { return nil, nil }
