// The paillier suite's keys as a session's members read them: given in one
// process, else from the key ceremony's files on the member's machine.

package pdpmvds

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/method"
	proto "github.com/dppub/dppub/method/pdpmvds/roles"
)

// Keys are a one-process run's key material for a member (Local.Attach):
// a party's key file, or S's public key.
type Keys struct {
	Party  *proto.KeyFile
	Public *paillier.PublicKey
}

// keyFile is party k's key file (paillier suite; nil otherwise): given in
// one process, else read from the ceremony's directory on the member's
// own machine.
func (s *Session) keyFile(l method.Local, keys *Keys, k int) (*proto.KeyFile, error) {
	if s.Settings.SSPP != proto.SuitePaillier {
		return nil, nil
	}
	if keys != nil && keys.Party != nil {
		return keys.Party, nil
	}
	path, err := s.keyPath(l, proto.PartyID(k)+".key.json")
	if err != nil {
		return nil, err
	}
	var f proto.KeyFile
	if err := readJSON(path, &f); err != nil {
		return nil, fmt.Errorf("%s's key file: %w", l.Name, err)
	}
	if f.Party != k || f.Parties != len(s.Owners) {
		return nil, fmt.Errorf("%s is party %d's of %d, %s is party %d of %d", path, f.Party+1, f.Parties, l.Name, k+1, len(s.Owners))
	}
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := s.checkBits(path, f.PublicKey); err != nil {
		return nil, err
	}
	return &f, nil
}

// publicKey is S's shared public key (paillier suite; nil otherwise).
func (s *Session) publicKey(l method.Local, keys *Keys) (*paillier.PublicKey, error) {
	if s.Settings.SSPP != proto.SuitePaillier {
		return nil, nil
	}
	if keys != nil && keys.Public != nil {
		return keys.Public, nil
	}
	path, err := s.keyPath(l, "public-key.json")
	if err != nil {
		return nil, err
	}
	var pk paillier.PublicKey
	if err := readJSON(path, &pk); err != nil {
		return nil, fmt.Errorf("the third party's public key: %w", err)
	}
	return &pk, s.checkBits(path, &pk)
}

// checkBits refuses a ceremony key of another size than the session's
// key_bits, which the report states.
func (s *Session) checkBits(path string, pk *paillier.PublicKey) error {
	if pk.Bits() != s.Settings.KeyBits {
		return fmt.Errorf("%s holds a %d-bit key, the session's key_bits is %d", path, pk.Bits(), s.Settings.KeyBits)
	}
	return nil
}

func (s *Session) keyPath(l method.Local, file string) (string, error) {
	if s.Settings.Keys == "" || l.Dir == "" {
		return "", fmt.Errorf("the paillier suite needs keys, the directory of the key ceremony's files (dppub keygen) on every member's machine")
	}
	return filepath.Join(l.Dir, s.Settings.Keys, file), nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
