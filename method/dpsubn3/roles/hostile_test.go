package roles

import (
	"strings"
	"testing"

	"github.com/dppub/dppub/dp"
	privbayes "github.com/dppub/dppub/method/privbayes/bayesnet"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// A hostile curator's priors, built from the real message type: a party
// samples as many rows from the prior as the curator says it stands for,
// so a count beyond what a party samples is refused before anything is
// charged. The old code drew them: 2^50 records made the party panic
// (makeslice), 2^40 would have exhausted its memory.
func TestHostilePriorSizesAreRefused(t *testing.T) {
	src := randx.NewSeeded(9)
	parts := toyParts(2, 200, src)
	p := session(2, 1)
	// An honest model from party 1's turn, to send party 2 as its prior.
	first := newParty(t, p, 0, parts[0], src)
	out, err := first.Handle(seal(t, p, "party-1", PriorMsg{}))
	if err != nil {
		t.Fatal(err)
	}
	var upd UpdateMsg
	if err := upd.UnmarshalBinary(out[0].Payload); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		records int
		want    string
	}{
		{"2^50 records", 1 << 50, "more than the"},
		{"cells past the bound", maxPriorCells/3 + 1, "more than the"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			second := newParty(t, p, 1, parts[1], src)
			_, err := protocol.Safely("party-2", "handling the prior", func() ([]protocol.Envelope, error) {
				return second.Handle(seal(t, p, "party-2", PriorMsg{N: tc.records, Model: upd.Model}))
			})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want a refusal saying %q", err, tc.want)
			}
			if c := second.o.Accountant.Charges(); len(c) != 0 {
				t.Errorf("party 2 was charged %d times for a refused prior", len(c))
			}
		})
	}
	t.Run("the honest count", func(t *testing.T) {
		second := newParty(t, p, 1, parts[1], src)
		if _, err := second.Handle(seal(t, p, "party-2", PriorMsg{N: upd.Records, Model: upd.Model})); err != nil {
			t.Fatal(err)
		}
	})
}

func newParty(t *testing.T, p Params, i int, d *privbayes.Data, src *randx.Source) *Party {
	t.Helper()
	id := p.Parties[i]
	a, err := privacy.NewAccountant(privacy.AccountantOptions{Party: id, Budget: dp.Pure(p.Options.PrivBayes.Epsilon)})
	if err != nil {
		t.Fatal(err)
	}
	party, err := NewParty(PartyOptions{ID: id, Params: p, Data: d, Accountant: a, Source: src.Child()})
	if err != nil {
		t.Fatal(err)
	}
	return party
}

func seal(t *testing.T, p Params, to string, m PriorMsg) protocol.Envelope {
	t.Helper()
	e, err := protocol.Seal(p.Session, p.Curator, to, m)
	if err != nil {
		t.Fatal(err)
	}
	return e
}
