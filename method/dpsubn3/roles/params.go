package roles

import (
	"fmt"
	"slices"

	dpsubn3 "github.com/dppub/dppub/method/dpsubn3/subn3"
	"github.com/dppub/dppub/protocol"
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
	if err := protocol.CheckRoster("curator", p.Curator, "party", p.Parties); err != nil {
		return fmt.Errorf("dpsubn3: %w", err)
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
