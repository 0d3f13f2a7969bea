package psi

import (
	"fmt"
	"slices"
)

// Params are the public parameters every party of one linkage agrees on.
type Params struct {
	Session string
	// Parties lists the parties in ring order: P_i sends to P_{i+1}, the
	// last one to the first.
	Parties []string
}

// Validate checks the parameters.
func (p Params) Validate() error {
	if len(p.Parties) < 2 {
		return fmt.Errorf("psi: linkage between %d parties: need at least 2", len(p.Parties))
	}
	seen := map[string]bool{}
	for _, id := range p.Parties {
		if id == "" || seen[id] {
			return fmt.Errorf("psi: party name %q is empty or repeated", id)
		}
		seen[id] = true
	}
	return nil
}

func (p Params) index(id string) int { return slices.Index(p.Parties, id) }

// at returns the party i steps after index j round the ring (i may be
// negative).
func (p Params) at(j, i int) string {
	k := len(p.Parties)
	return p.Parties[((j+i)%k+k)%k]
}

// hops is how many parties have blinded origin's set when it reaches
// index j from the party before it.
func (p Params) hops(origin, j int) int {
	k := len(p.Parties)
	return ((j-origin)%k + k) % k
}
