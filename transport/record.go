package transport

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/dppub/dppub/ledger"
	"github.com/dppub/dppub/privacy"
)

// Kinds of the entries a coordinator appends to the shared publishing
// ledger, one per session it ran.
const (
	KindSessionPublished = "session-published"
	KindSessionAborted   = "session-aborted"
)

// SessionRecord is the payload of a session's ledger entry: what ran, who
// took part, what each participant says it spent, and either the digests
// of the published files or why nothing was published. It holds no data
// and no statistic: only names, settings, charges and digests.
type SessionRecord struct {
	Session     string          `json:"session"`
	Method      string          `json:"method"`
	Coordinator string          `json:"coordinator"`
	Settings    json.RawMessage `json:"settings,omitempty"`
	// Participants are the members asked to take part, in order.
	Participants []string `json:"participants"`
	// Spent lists, per data-holding participant that sent its receipt, the
	// charges it recorded in its own budget ledger and its remaining
	// lifetime budget.
	Spent []ParticipantSpend `json:"spent,omitempty"`
	// Missing lists participants whose receipt never arrived (aborted
	// sessions): their spending is in their own budget ledgers only.
	Missing []string `json:"missing,omitempty"`
	// Published maps each written file's name to the SHA-256 of its bytes.
	Published map[string]string `json:"published,omitempty"`
	// Guarantee is the privacy report's headline (published sessions): its
	// guarantee status first, so that the ledger never records a claimed
	// figure as if it held.
	Guarantee string `json:"guarantee,omitempty"`
	// Failure is why the session was aborted.
	Failure string `json:"failure,omitempty"`
}

// ParticipantSpend is one participant's receipt as recorded.
type ParticipantSpend struct {
	Member    string           `json:"member"`
	Charges   []privacy.Charge `json:"charges,omitempty"`
	Remaining string           `json:"remaining,omitempty"`
}

// PublishedRecord describes a published session. files maps each written
// file's name to its bytes' SHA-256 (see FileDigest).
func PublishedRecord(res *Result, coordinator string, settings json.RawMessage, method string, files map[string]string) SessionRecord {
	r := SessionRecord{Session: res.Session, Method: method, Coordinator: coordinator, Settings: settings, Published: files}
	r.Participants = slices.Sorted(func(yield func(string) bool) {
		for n := range res.Receipts {
			if !yield(n) {
				return
			}
		}
	})
	r.Spent = spends(r.Participants, res.Receipts)
	if res.Outcome != nil && res.Report != nil {
		r.Guarantee = res.Report.Headline()
	}
	return r
}

// AbortedRecord describes a session that failed; err should wrap a
// *SessionError (from Node.Run), else the record names no participants.
func AbortedRecord(err error, coordinator string, settings json.RawMessage, method string) SessionRecord {
	r := SessionRecord{Method: method, Coordinator: coordinator, Settings: settings, Failure: err.Error()}
	var se *SessionError
	if errors.As(err, &se) {
		r.Session, r.Participants = se.Session, se.Participants
		r.Spent = spends(se.Participants, se.Receipts)
		for _, p := range se.Participants {
			if _, ok := se.Receipts[p]; !ok {
				r.Missing = append(r.Missing, p)
			}
		}
	}
	return r
}

func spends(names []string, receipts map[string]Receipt) []ParticipantSpend {
	var out []ParticipantSpend
	for _, n := range names {
		rc, ok := receipts[n]
		if !ok || (rc.Budget == nil && len(rc.Charges) == 0) {
			continue // no receipt, or a member that holds no data
		}
		s := ParticipantSpend{Member: n, Charges: rc.Charges}
		if rc.Remaining != nil {
			s.Remaining = rc.Remaining.String()
		}
		out = append(out, s)
	}
	return out
}

// FileDigest is the hex SHA-256 of b, as SessionRecord.Published holds it.
func FileDigest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Record appends r to the publishing ledger, signed by id, and saves a new
// checkpoint. The ledger's signer (its operator) signs the checkpoint.
func Record(l ledger.Ledger, id *ledger.Identity, r SessionRecord, now time.Time) (uint64, error) {
	kind := KindSessionPublished
	if r.Failure != "" {
		kind = KindSessionAborted
	}
	session := r.Session
	if session == "" {
		session = "-"
	}
	b, err := json.Marshal(r)
	if err != nil {
		return 0, fmt.Errorf("transport: session record: %w", err)
	}
	i, err := ledger.AppendNew(l, id, kind, session, now, b)
	if err != nil {
		return 0, fmt.Errorf("transport: recording session %s in the publishing ledger: %w", session, err)
	}
	if _, err := l.Checkpoint(); err != nil {
		return 0, fmt.Errorf("transport: recording session %s in the publishing ledger: %w", session, err)
	}
	return i, nil
}
