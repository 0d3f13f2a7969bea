package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// A hostile-coordinator audit plays a coordinator that departs from the
// protocol against a member's real role: forged sensitivities, grids and
// scales, repeated and reordered request IDs, substituted keys,
// overflowing and non-finite values, replays, requests beyond the budget
// and for another session. Each attack must be refused with nothing
// charged, or answered and charged at its true cost; the audit says which
// happened and whether it is what the member must do. Unlike the
// statistical audits it is deterministic: one run decides it.

// HostileExpect is what a member must do with an attack.
type HostileExpect string

const (
	// HostileRefused: the member refuses, charging nothing and sending
	// nothing.
	HostileRefused HostileExpect = "refused"
	// HostileCharged: the member answers, charged exactly what its own
	// calibration of the release costs.
	HostileCharged HostileExpect = "charged at its true cost"
	// HostileIgnored: the member drops the message without an error (a
	// replay of a step it has taken, or a message before its step),
	// charging nothing and sending nothing.
	HostileIgnored HostileExpect = "ignored"
)

// HostileAttack is one attack on one method's member role.
type HostileAttack struct {
	Method string `json:"method"`
	Name   string `json:"attack"`
	// Attempt says what the coordinator does.
	Attempt string        `json:"attempt"`
	Expect  HostileExpect `json:"expected"`
	// Try makes the attack once and reads what the member did.
	Try func() (HostileOutcome, error) `json:"-"`
}

// HostileOutcome is what the member did.
type HostileOutcome struct {
	// Got is HostileRefused or HostileCharged when the member did one of
	// them; anything else (e.g. "answered uncharged") says how it failed.
	Got HostileExpect `json:"got"`
	// Detail is the member's refusal or the charge it recorded.
	Detail string `json:"detail"`
}

// HostileResult is one attack's outcome and verdict.
type HostileResult struct {
	HostileAttack
	HostileOutcome
	// Verdict is PASS when the member did what it must, else VIOLATION.
	Verdict string `json:"verdict"`
}

// Run tries the attack once.
func (a HostileAttack) Run() (HostileResult, error) {
	out, err := a.Try()
	if err != nil {
		return HostileResult{}, fmt.Errorf("audit: %s, %s: %w", a.Method, a.Name, err)
	}
	r := HostileResult{HostileAttack: a, HostileOutcome: out, Verdict: "PASS"}
	if out.Got != a.Expect {
		r.Verdict = "VIOLATION"
	}
	return r, nil
}

// MemberOutcome reads what a member did with one hostile message from its
// error, the charges its accountant recorded for it and the messages it
// sent: refused (an error, nothing charged or sent), ignored (no error,
// nothing charged or sent), or answered, when cost says whether the
// charges are what the release really costs by the audit's own
// calibration (an error when they are not; else a note on what the
// release costs, or ""). A recovered panic is never a refusal.
func MemberOutcome(err error, charges []privacy.Charge, out []protocol.Envelope, cost func([]privacy.Charge) (string, error)) HostileOutcome {
	var pe *protocol.PanicError
	switch {
	case errors.As(err, &pe):
		return HostileOutcome{Got: "panicked", Detail: fmt.Sprintf("%v; %d charges recorded", err, len(charges))}
	case err != nil && len(charges) == 0 && len(out) == 0:
		return HostileOutcome{Got: HostileRefused, Detail: err.Error()}
	case err != nil:
		return HostileOutcome{Got: "refused after charging", Detail: fmt.Sprintf("%v; %d charges recorded, %d messages sent", err, len(charges), len(out))}
	case len(charges) == 0 && len(out) == 0:
		return HostileOutcome{Got: HostileIgnored, Detail: "no error, nothing charged, nothing sent"}
	case len(charges) == 0:
		return HostileOutcome{Got: "answered uncharged", Detail: fmt.Sprintf("%d messages sent, nothing charged", len(out))}
	}
	if cost == nil {
		return HostileOutcome{Got: "answered", Detail: fmt.Sprintf("charged %s for a message that must not be answered", chargeList(charges))}
	}
	note, err := cost(charges)
	if err != nil {
		return HostileOutcome{Got: "answered", Detail: fmt.Sprintf("charged %s: %v", chargeList(charges), err)}
	}
	if note == "" {
		note = "its true cost"
	}
	return HostileOutcome{Got: HostileCharged, Detail: fmt.Sprintf("charged %s, %s; %d messages sent", chargeList(charges), note, len(out))}
}

// chargeList names charges for a detail line.
func chargeList(cs []privacy.Charge) string {
	var parts []string
	for _, c := range cs {
		parts = append(parts, c.Spec.Guarantee.String())
	}
	return strings.Join(parts, " + ")
}

// HostileJoin has a member join the session s as the coordinator rewrote
// it (its JSON edited by edit, as the coordinator sends it): a member that
// takes it builds its role, which the audit then starts; one that refuses
// it charges and sends nothing.
func HostileJoin(spec method.Spec, s method.Session, name string, t *data.Table, budget dp.Guarantee, edit func(map[string]any)) (HostileOutcome, error) {
	raw, err := json.Marshal(s)
	if err != nil {
		return HostileOutcome{}, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return HostileOutcome{}, err
	}
	edit(m)
	if raw, err = json.Marshal(m); err != nil {
		return HostileOutcome{}, err
	}
	acct, err := privacy.NewAccountant(privacy.AccountantOptions{Party: name, Budget: budget})
	if err != nil {
		return HostileOutcome{}, err
	}
	var out []protocol.Envelope
	forged, err := spec.Decode(raw)
	if err == nil {
		var r protocol.Role
		if r, err = forged.Join(method.Local{Name: name, Table: t, Accountant: acct, Source: randx.NewSeeded(5)}); err == nil {
			out, err = protocol.Safely(name, "start", r.Start)
		}
	}
	return MemberOutcome(err, acct.Charges(), out, nil), nil
}

// Attr is attribute i of a session's JSON schema.
func Attr(s map[string]any, i int) map[string]any {
	return s["schema"].(map[string]any)["attributes"].([]any)[i].(map[string]any)
}
