package method_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
)

// A recovered panic says what the members' accountants recorded, so that
// a crash after a charge (a role that panics once it has paid) never
// hides spent budget; other errors pass unchanged.
func TestWithChargesNamesWhatWasSpent(t *testing.T) {
	acct := func(party string, charges int) *privacy.Accountant {
		a, err := privacy.NewAccountant(privacy.AccountantOptions{Party: party, Budget: dp.Pure(1)})
		if err != nil {
			t.Fatal(err)
		}
		for range charges {
			if err := a.Spend(privacy.Charge{Purpose: "release", Spec: dp.Spec{Guarantee: dp.Pure(0.25)}}); err != nil {
				t.Fatal(err)
			}
		}
		return a
	}
	accts := []*privacy.Accountant{acct("owner-1", 1), acct("owner-2", 2)}
	panicOf := func(role string) error {
		return fmt.Errorf("protocol: %s handling x from c: %w", role, &protocol.PanicError{Role: role, Step: "handling x from c", Value: "boom"})
	}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"panicked owner", panicOf("owner-2"), "owner-2 panicked while handling x from c: boom; charges recorded: 2"},
		{"panicked coordinator", panicOf("curator"), "curator panicked while handling x from c: boom; charges recorded by the members: owner-1 1, owner-2 2"},
		{"plain error", errors.New("refused"), "refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := method.WithCharges(tc.err, accts)
			if !strings.HasSuffix(got.Error(), tc.want) {
				t.Errorf("got %q, want it to end with %q", got, tc.want)
			}
			if !errors.Is(got, tc.err) {
				t.Errorf("%v does not wrap %v", got, tc.err)
			}
		})
	}
}
