package ledger

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
)

// Errors an append or a verification can be refused with; test with
// errors.Is.
var (
	ErrUnknownSender = errors.New("unknown sender")
	ErrBadSignature  = errors.New("bad signature")
)

// noteAlgEd25519 is the algorithm byte of Ed25519 keys in the note key
// format.
const noteAlgEd25519 = 1

// Identity is a member's signing key. Its text form is a note signer key
// ("PRIVATE+KEY+<name>+<hash>+<base64>"), so the same identity can sign
// entries and, for the log operator, checkpoints.
type Identity struct {
	name string
	key  ed25519.PrivateKey
}

// NewIdentity draws an Ed25519 key from random (nil means crypto/rand; a
// deterministic reader only in tests) for the member name.
func NewIdentity(random io.Reader, name string) (*Identity, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	_, key, err := ed25519.GenerateKey(random)
	if err != nil {
		return nil, fmt.Errorf("ledger: generate key for %q: %w", name, err)
	}
	return &Identity{name: name, key: key}, nil
}

// NewIdentityFromSeed derives the identity from a 32-byte Ed25519 seed.
func NewIdentityFromSeed(name string, seed []byte) (*Identity, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	if len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("ledger: seed for %q has %d bytes, want %d", name, len(seed), ed25519.SeedSize)
	}
	return &Identity{name: name, key: ed25519.NewKeyFromSeed(seed)}, nil
}

// Name is the member name.
func (id *Identity) Name() string { return id.name }

// Member is the public half.
func (id *Identity) Member() Member {
	return Member{Name: id.name, PublicKey: id.key.Public().(ed25519.PublicKey)}
}

// Sign stamps e with the identity's name as Sender and signs it.
func (id *Identity) Sign(e *Entry) error {
	e.Sender = id.name
	msg, err := e.SigningMessage()
	if err != nil {
		return err
	}
	e.Signature = ed25519.Sign(id.key, msg)
	return nil
}

// NoteSigner returns a checkpoint signer with the same key and name.
func (id *Identity) NoteSigner() (note.Signer, error) {
	s, err := note.NewSigner(id.signerKey())
	if err != nil {
		return nil, fmt.Errorf("ledger: note signer for %q: %w", id.name, err)
	}
	return s, nil
}

func (id *Identity) signerKey() string {
	m := id.Member()
	return fmt.Sprintf("PRIVATE+KEY+%s+%08x+%s", id.name, m.keyHash(),
		base64.StdEncoding.EncodeToString(append([]byte{noteAlgEd25519}, id.key.Seed()...)))
}

// MarshalText returns the SECRET signer key in note format.
func (id *Identity) MarshalText() ([]byte, error) { return []byte(id.signerKey()), nil }

// String names the identity without revealing its key.
func (id *Identity) String() string {
	return fmt.Sprintf("identity %s+%08x", id.name, id.Member().keyHash())
}

// ParseIdentity reads a note signer key as written by MarshalText.
func ParseIdentity(text []byte) (*Identity, error) {
	fields := strings.SplitN(strings.TrimSpace(string(text)), "+", 5) // base64 may hold '+'
	if len(fields) != 5 || fields[0] != "PRIVATE" || fields[1] != "KEY" {
		return nil, errors.New("ledger: identity is not a PRIVATE+KEY+<name>+<hash>+<key> signer key")
	}
	seed, err := decodeKey(fields[4], ed25519.SeedSize)
	if err != nil {
		return nil, fmt.Errorf("ledger: identity %q: %w", fields[2], err)
	}
	id, err := NewIdentityFromSeed(fields[2], seed)
	if err != nil {
		return nil, err
	}
	if err := checkKeyHash(fields[3], id.Member()); err != nil {
		return nil, err
	}
	return id, nil
}

// Member is a party allowed to append: its name and public key. Its text
// form is a note verifier key ("<name>+<hash>+<base64>").
type Member struct {
	Name      string
	PublicKey ed25519.PublicKey
}

func (m Member) validate() error {
	if err := CheckName(m.Name); err != nil {
		return err
	}
	if len(m.PublicKey) != ed25519.PublicKeySize {
		return fmt.Errorf("ledger: member %q: public key has %d bytes, want %d", m.Name, len(m.PublicKey), ed25519.PublicKeySize)
	}
	return nil
}

// keyHash is the note key hash: the first 4 bytes of SHA-256 over the
// name, a newline and the algorithm-tagged key.
func (m Member) keyHash() uint32 {
	h := sha256.New()
	h.Write([]byte(m.Name + "\n"))
	h.Write([]byte{noteAlgEd25519})
	h.Write(m.PublicKey)
	return binary.BigEndian.Uint32(h.Sum(nil))
}

// VerifierKey is the note verifier key of the member.
func (m Member) VerifierKey() string {
	return fmt.Sprintf("%s+%08x+%s", m.Name, m.keyHash(),
		base64.StdEncoding.EncodeToString(append([]byte{noteAlgEd25519}, m.PublicKey...)))
}

// MarshalText returns VerifierKey.
func (m Member) MarshalText() ([]byte, error) {
	if err := m.validate(); err != nil {
		return nil, err
	}
	return []byte(m.VerifierKey()), nil
}

// NoteVerifier returns a checkpoint verifier for the member's key.
func (m Member) NoteVerifier() (note.Verifier, error) {
	if err := m.validate(); err != nil {
		return nil, err
	}
	v, err := note.NewVerifier(m.VerifierKey())
	if err != nil {
		return nil, fmt.Errorf("ledger: note verifier for %q: %w", m.Name, err)
	}
	return v, nil
}

// ParseMember reads a note verifier key.
func ParseMember(text []byte) (Member, error) {
	fields := strings.SplitN(strings.TrimSpace(string(text)), "+", 3) // base64 may hold '+'
	if len(fields) != 3 {
		return Member{}, fmt.Errorf("ledger: member key %q is not <name>+<hash>+<key>", text)
	}
	key, err := decodeKey(fields[2], ed25519.PublicKeySize)
	if err != nil {
		return Member{}, fmt.Errorf("ledger: member %q: %w", fields[0], err)
	}
	m := Member{Name: fields[0], PublicKey: key}
	if err := m.validate(); err != nil {
		return Member{}, err
	}
	if err := checkKeyHash(fields[1], m); err != nil {
		return Member{}, err
	}
	return m, nil
}

func decodeKey(b64 string, size int) ([]byte, error) {
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, fmt.Errorf("key is not base64: %w", err)
	}
	if len(raw) != 1+size || raw[0] != noteAlgEd25519 {
		return nil, fmt.Errorf("key is not an Ed25519 key of %d bytes", size)
	}
	return raw[1:], nil
}

func checkKeyHash(hex string, m Member) error {
	h, err := strconv.ParseUint(hex, 16, 32)
	if err != nil || len(hex) != 8 {
		return fmt.Errorf("ledger: member %q: key hash %q is not 8 hex digits", m.Name, hex)
	}
	if uint32(h) != m.keyHash() {
		return fmt.Errorf("ledger: member %q: key hash %q does not match the key (%08x)", m.Name, hex, m.keyHash())
	}
	return nil
}

// Keyring is the set of members who may append, by name. The zero Keyring
// is empty. A Keyring is immutable and safe for concurrent use.
type Keyring struct {
	byName map[string]Member
}

// NewKeyring validates the members (names, key sizes, no duplicate names).
func NewKeyring(members ...Member) (Keyring, error) {
	byName := make(map[string]Member, len(members))
	for _, m := range members {
		if err := m.validate(); err != nil {
			return Keyring{}, err
		}
		if _, dup := byName[m.Name]; dup {
			return Keyring{}, fmt.Errorf("ledger: keyring: member %q listed twice", m.Name)
		}
		m.PublicKey = slices.Clone(m.PublicKey)
		byName[m.Name] = m
	}
	return Keyring{byName: byName}, nil
}

// Len is the number of members.
func (k Keyring) Len() int { return len(k.byName) }

// Lookup returns the member called name.
func (k Keyring) Lookup(name string) (Member, bool) {
	m, ok := k.byName[name]
	return m, ok
}

// Members lists the members sorted by name.
func (k Keyring) Members() []Member {
	out := make([]Member, 0, len(k.byName))
	for _, m := range k.byName {
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b Member) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// VerifyEntry checks that e's sender is a member and that the signature is
// the sender's over e.
func (k Keyring) VerifyEntry(e *Entry) error {
	m, ok := k.byName[e.Sender]
	if !ok {
		return fmt.Errorf("ledger: seq %d: %w %q", e.Seq, ErrUnknownSender, e.Sender)
	}
	msg, err := e.SigningMessage()
	if err != nil {
		return fmt.Errorf("ledger: seq %d: %w", e.Seq, err)
	}
	if len(e.Signature) != ed25519.SignatureSize || !ed25519.Verify(m.PublicKey, msg, e.Signature) {
		return fmt.Errorf("ledger: seq %d: %w by %q (signature %x)", e.Seq, ErrBadSignature, e.Sender, e.Signature)
	}
	return nil
}

// MarshalText lists the members' verifier keys, one a line, sorted.
func (k Keyring) MarshalText() ([]byte, error) {
	var b bytes.Buffer
	for _, m := range k.Members() {
		b.WriteString(m.VerifierKey())
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

// ParseKeyring reads verifier keys one a line; blank lines and lines
// starting with '#' are skipped.
func ParseKeyring(text []byte) (Keyring, error) {
	var members []Member
	sc := bufio.NewScanner(bytes.NewReader(text))
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		m, err := ParseMember([]byte(s))
		if err != nil {
			return Keyring{}, fmt.Errorf("ledger: keyring line %d: %w", line, err)
		}
		members = append(members, m)
	}
	if err := sc.Err(); err != nil {
		return Keyring{}, fmt.Errorf("ledger: keyring: %w", err)
	}
	return NewKeyring(members...)
}
