package kit

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/dppub/dppub/internal/fsutil"
	"github.com/dppub/dppub/ledger"
)

// Files dppub keeps in a ledger directory besides the ledger's own
// (ledger.DataFile, ledger.CheckpointFile).
const (
	LedgerKeyringFile  = "keyring"  // verifier keys of every member, one a line
	LedgerOperatorFile = "operator" // the publisher's (log operator's) verifier key
	ledgerKeysDir      = "keys"     // SECRET signer keys of the simulated parties
	LedgerOrigin       = "dppub-publishing-ledger"
)

// OpenLedgerDirAs opens (creating if needed) the ledger in dir, operated
// by operator (who signs its checkpoints), for entries signed by parties:
// it reuses their signing keys from dir/keys, creates the missing ones,
// and rewrites the keyring and operator files.
func OpenLedgerDirAs(dir, operator string, parties []string) (*ledger.Setup, *ledger.FileLedger, error) {
	if !slices.Contains(parties, operator) {
		return nil, nil, fmt.Errorf("ledger: the operator %q must be one of the parties %v", operator, parties)
	}
	keysDir := filepath.Join(dir, ledgerKeysDir)
	if err := os.MkdirAll(keysDir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("ledger directory: %w", err)
	}
	ids, err := loadIdentities(keysDir)
	if err != nil {
		return nil, nil, err
	}
	for _, name := range parties {
		if ids[name] != nil {
			continue
		}
		id, err := ledger.NewIdentity(nil, name)
		if err != nil {
			return nil, nil, err
		}
		key, _ := id.MarshalText()
		if err := writeSmallFile(filepath.Join(keysDir, name+".key"), 0o600, append(key, '\n')); err != nil {
			return nil, nil, err
		}
		ids[name] = id
	}
	ring, err := keyringOf(ids)
	if err != nil {
		return nil, nil, err
	}
	pub := ids[operator]
	if err := writeKeyFiles(dir, ring, pub); err != nil {
		return nil, nil, err
	}
	signer, err := pub.NoteSigner()
	if err != nil {
		return nil, nil, err
	}
	verifier, err := pub.Member().NoteVerifier()
	if err != nil {
		return nil, nil, err
	}
	l, err := ledger.Open(dir, ledger.Options{Keyring: ring, Signer: signer, Origin: LedgerOrigin})
	if err != nil {
		return nil, nil, err
	}
	return &ledger.Setup{Log: l, Identities: ids, Keyring: ring, Operator: verifier}, l, nil
}

func loadIdentities(keysDir string) (map[string]*ledger.Identity, error) {
	ids := map[string]*ledger.Identity{}
	entries, err := os.ReadDir(keysDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("ledger keys: %w", err)
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".key") {
			continue
		}
		text, err := os.ReadFile(filepath.Join(keysDir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("ledger keys: %w", err)
		}
		id, err := ledger.ParseIdentity(text)
		if err != nil {
			return nil, fmt.Errorf("ledger key %s: %w", e.Name(), err)
		}
		if id.Name()+".key" != e.Name() {
			return nil, fmt.Errorf("ledger key %s holds the key of %q", e.Name(), id.Name())
		}
		ids[id.Name()] = id
	}
	return ids, nil
}

func keyringOf(ids map[string]*ledger.Identity) (ledger.Keyring, error) {
	names := make([]string, 0, len(ids))
	for n := range ids {
		names = append(names, n)
	}
	sort.Strings(names)
	members := make([]ledger.Member, 0, len(names))
	for _, n := range names {
		members = append(members, ids[n].Member())
	}
	return ledger.NewKeyring(members...)
}

func writeKeyFiles(dir string, ring ledger.Keyring, pub *ledger.Identity) error {
	var b strings.Builder
	b.WriteString("# dppub publishing ledger: members' verifier keys\n")
	for _, m := range ring.Members() {
		b.WriteString(m.VerifierKey() + "\n")
	}
	if err := writeSmallFile(filepath.Join(dir, LedgerKeyringFile), 0o644, []byte(b.String())); err != nil {
		return err
	}
	return writeSmallFile(filepath.Join(dir, LedgerOperatorFile), 0o644, []byte(pub.Member().VerifierKey()+"\n"))
}

func writeSmallFile(path string, perm os.FileMode, body []byte) error {
	return fsutil.WriteFileAtomic(path, perm, func(w io.Writer) error {
		_, err := w.Write(body)
		return err
	})
}
