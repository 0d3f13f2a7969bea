package ledger

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// ErrBadCheckpoint marks a checkpoint that does not parse or whose
// signature does not verify.
var ErrBadCheckpoint = errors.New("bad checkpoint")

// Checkpoint is a tree head: the log's origin, its size and Merkle root.
type Checkpoint struct {
	Origin string
	Size   uint64
	Hash   tlog.Hash
}

// Text is the signed text "<origin>\n<size>\n<base64 hash>\n", the layout
// of tlog.FormatTree with the log's own origin line.
func (c Checkpoint) Text() string {
	return fmt.Sprintf("%s\n%d\n%s\n", c.Origin, c.Size, c.Hash)
}

// String is a one-line summary.
func (c Checkpoint) String() string {
	return fmt.Sprintf("%s size %d root %s", c.Origin, c.Size, c.Hash)
}

// SignCheckpoint signs c with the operator's note signer.
func SignCheckpoint(c Checkpoint, signer note.Signer) ([]byte, error) {
	if signer == nil {
		return nil, errors.New("ledger: no checkpoint signer configured")
	}
	if err := checkOrigin(c.Origin); err != nil {
		return nil, err
	}
	msg, err := note.Sign(&note.Note{Text: c.Text()}, signer)
	if err != nil {
		return nil, fmt.Errorf("ledger: sign checkpoint %v: %w", c, err)
	}
	return msg, nil
}

// OpenCheckpoint checks the signature of a signed checkpoint by verifier
// and parses it. Extra lines after the root hash are refused.
func OpenCheckpoint(signed []byte, verifier note.Verifier) (Checkpoint, error) {
	if verifier == nil {
		return Checkpoint{}, fmt.Errorf("ledger: %w: no verifier given", ErrBadCheckpoint)
	}
	n, err := note.Open(signed, note.VerifierList(verifier))
	if err != nil {
		return Checkpoint{}, fmt.Errorf("ledger: %w: signature by %q: %w", ErrBadCheckpoint, verifier.Name(), err)
	}
	return parseCheckpoint(n.Text)
}

func parseCheckpoint(text string) (Checkpoint, error) {
	lines := strings.Split(text, "\n")
	if len(lines) != 4 || lines[3] != "" {
		return Checkpoint{}, fmt.Errorf("ledger: %w: text %q is not three lines", ErrBadCheckpoint, text)
	}
	size, err := strconv.ParseUint(lines[1], 10, 63)
	if err != nil || strconv.FormatUint(size, 10) != lines[1] {
		return Checkpoint{}, fmt.Errorf("ledger: %w: size %q", ErrBadCheckpoint, lines[1])
	}
	hash, err := tlog.ParseHash(lines[2])
	if err != nil {
		return Checkpoint{}, fmt.Errorf("ledger: %w: root hash %q: %w", ErrBadCheckpoint, lines[2], err)
	}
	c := Checkpoint{Origin: lines[0], Size: size, Hash: hash}
	if err := checkOrigin(c.Origin); err != nil {
		return Checkpoint{}, fmt.Errorf("ledger: %w: %w", ErrBadCheckpoint, err)
	}
	return c, nil
}

// checkOrigin accepts a non-empty single line of printable text.
func checkOrigin(origin string) error {
	if origin == "" || strings.ContainsAny(origin, "\n\r") || strings.TrimSpace(origin) != origin {
		return fmt.Errorf("ledger: checkpoint origin %q must be a non-empty line without surrounding space", origin)
	}
	return nil
}
