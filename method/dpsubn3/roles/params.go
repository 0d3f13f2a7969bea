package roles

import (
	"fmt"
	"slices"

	dpsubn3 "github.com/dppub/dppub/method/dpsubn3/subn3"
)

// Params are the public parameters every role of one session agrees on.
type Params struct {
	Session string
	// Parties lists the parties in the order of their turns.
	Parties []string
	Curator string
	// Cards is the number of codes of each attribute (public: from the
	// schema).
	Cards   []int
	Options dpsubn3.Options
}

// Validate checks the parameters.
func (p Params) Validate() error {
	if len(p.Parties) < 1 {
		return fmt.Errorf("dpsubn3: no parties")
	}
	if p.Curator == "" {
		return fmt.Errorf("dpsubn3: the curator needs a name")
	}
	seen := map[string]bool{p.Curator: true}
	for _, o := range p.Parties {
		if o == "" || seen[o] {
			return fmt.Errorf("dpsubn3: party name %q is empty or repeated", o)
		}
		seen[o] = true
	}
	if len(p.Cards) == 0 {
		return fmt.Errorf("dpsubn3: no attributes")
	}
	for j, c := range p.Cards {
		if c < 1 || c > 1<<16 {
			return fmt.Errorf("dpsubn3: attribute %d has %d codes, want 1 to 65536", j, c)
		}
	}
	return p.Options.Validate()
}

func (p Params) partyIndex(id string) int { return slices.Index(p.Parties, id) }
