package roles

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/dppub/dppub/ledger"
	"golang.org/x/mod/sumdb/note"
)

// Entry kinds besides the ledger package's conventional ones.
const KindMeansComputed = "class-means-computed"

// Ledger connects one role to the shared publishing ledger. Give every role
// its own Ledger value (the log is shared; the identity and the last
// checkpoint seen are the role's own).
type Ledger struct {
	// Log is the shared ledger.
	Log ledger.Ledger
	// Identity signs this role's entries.
	Identity *ledger.Identity
	// Keyring lists the members whose entries are accepted.
	Keyring ledger.Keyring
	// Operator verifies the checkpoints the publisher (log operator) signs.
	Operator note.Verifier
	// Now stamps entries; default time.Now.
	Now func() time.Time

	last []byte // last checkpoint this role verified
}

// EntryPayload is the JSON payload of the entries this protocol appends.
type EntryPayload struct {
	// Message is the protocol message type the entry vouches for, and
	// SHA256 the hex digest of its payload bytes.
	Message string `json:"message,omitempty"`
	SHA256  string `json:"sha256,omitempty"`
	Bytes   int    `json:"bytes,omitempty"`
	// Content is published content in full (DP means, directions, charges).
	Content any `json:"content,omitempty"`
}

func (l *Ledger) validate(who string) error {
	if l == nil {
		return nil
	}
	if l.Log == nil || l.Identity == nil || l.Operator == nil {
		return fmt.Errorf("mullda: %s: a ledger needs a log, an identity and the operator's key", who)
	}
	if _, ok := l.Keyring.Lookup(l.Identity.Name()); !ok {
		return fmt.Errorf("mullda: %s: identity %q is not in the ledger's keyring", who, l.Identity.Name())
	}
	return nil
}

func (l *Ledger) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

// record appends an entry of kind with the JSON of p. A nil Ledger records
// nothing.
func (l *Ledger) record(kind, session string, p EntryPayload) error {
	if l == nil {
		return nil
	}
	b, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("mullda: ledger payload: %w", err)
	}
	if _, err := ledger.AppendNew(l.Log, l.Identity, kind, session, l.now(), b); err != nil {
		return fmt.Errorf("mullda: %s: %w", l.Identity.Name(), err)
	}
	return nil
}

// recordMessage appends an entry vouching for the bytes of one message.
func (l *Ledger) recordMessage(kind, session, msgType string, payload []byte, content any) error {
	sum := sha256.Sum256(payload)
	return l.record(kind, session, EntryPayload{Message: msgType, SHA256: hex.EncodeToString(sum[:]), Bytes: len(payload), Content: content})
}

// verifyMessage checks that sender recorded an entry of kind for exactly
// these message bytes in this session, and that the entry is included in a
// checkpoint signed by the operator and consistent with the last checkpoint
// this role saw. A nil Ledger checks nothing.
func (l *Ledger) verifyMessage(sender, kind, session, msgType string, payload []byte) error {
	if l == nil {
		return nil
	}
	sum := sha256.Sum256(payload)
	want := hex.EncodeToString(sum[:])
	idx, e, err := l.find(sender, kind, session, msgType, want)
	if err != nil {
		return err
	}
	cp, err := l.Log.Checkpoint()
	if err != nil {
		return fmt.Errorf("mullda: %s: checkpoint: %w", l.Identity.Name(), err)
	}
	if err := l.checkConsistent(cp); err != nil {
		return err
	}
	c, err := ledger.OpenCheckpoint(cp, l.Operator)
	if err != nil {
		return fmt.Errorf("mullda: %s: %w", l.Identity.Name(), err)
	}
	proof, err := l.Log.ProveInclusion(idx, c.Size)
	if err != nil {
		return fmt.Errorf("mullda: %s: %w", l.Identity.Name(), err)
	}
	if _, err := ledger.VerifyInclusion(e, idx, proof, cp, l.Operator, l.Keyring); err != nil {
		return fmt.Errorf("mullda: %s: the %s entry of %s: %w", l.Identity.Name(), kind, sender, err)
	}
	l.last = cp
	return nil
}

// find scans the log backwards for the entry by sender of kind in session
// for the message digest.
func (l *Ledger) find(sender, kind, session, msgType, digest string) (uint64, *ledger.Entry, error) {
	for i := l.Log.Len(); i > 0; i-- {
		e, err := l.Log.Entry(i - 1)
		if err != nil {
			return 0, nil, fmt.Errorf("mullda: %s: %w", l.Identity.Name(), err)
		}
		if e.Sender != sender || e.Kind != kind || e.Session != session {
			continue
		}
		var p EntryPayload
		if json.Unmarshal(e.Payload, &p) == nil && p.Message == msgType && p.SHA256 == digest {
			return i - 1, e, nil
		}
	}
	return 0, nil, fmt.Errorf("mullda: %s: no %s entry by %s in session %s vouches for the %s message received (sha256 %s)",
		l.Identity.Name(), kind, sender, session, msgType, digest)
}

// checkConsistent verifies that cp extends the last checkpoint seen.
func (l *Ledger) checkConsistent(cp []byte) error {
	if l.last == nil {
		return nil
	}
	old, err := ledger.OpenCheckpoint(l.last, l.Operator)
	if err != nil {
		return fmt.Errorf("mullda: %s: %w", l.Identity.Name(), err)
	}
	cur, err := ledger.OpenCheckpoint(cp, l.Operator)
	if err != nil {
		return fmt.Errorf("mullda: %s: %w", l.Identity.Name(), err)
	}
	if old.Size > cur.Size {
		return fmt.Errorf("mullda: %s: the ledger shrank from %d to %d entries", l.Identity.Name(), old.Size, cur.Size)
	}
	proof, err := l.Log.ProveConsistency(old.Size, cur.Size)
	if err != nil {
		return fmt.Errorf("mullda: %s: %w", l.Identity.Name(), err)
	}
	if _, _, err := ledger.VerifyConsistency(l.last, cp, proof, l.Operator); err != nil {
		return fmt.Errorf("mullda: %s: %w", l.Identity.Name(), err)
	}
	return nil
}
