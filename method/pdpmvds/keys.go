package pdpmvds

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	proto "github.com/dppub/dppub/method/pdpmvds/roles"
)

// The Paillier suite's key ceremony, for the commands that deal the keys
// and read them back: a dealer draws one shared key and splits its
// decryption exponent 2-of-2 between every pair of owners; each owner
// gets one key-share file.
const DefaultKeyBits = proto.DefaultKeyBits

// KeyFile is one owner's key shares (SECRET: for that owner only).
type KeyFile = proto.KeyFile

var (
	// DealKeys deals a shared key of at least paillier.MinBits bits.
	DealKeys = proto.DealKeys
	// DealInsecureTestKeys deals a test-size key (INSECURE).
	DealInsecureTestKeys = proto.DealInsecureTestKeys
)

// KeyFileName is the name of owner k's (from 0) key-share file.
func KeyFileName(k int) string { return proto.PartyID(k) + ".key.json" }

// ReadKeyFiles reads DIR/party-k.key.json for every party.
func ReadKeyFiles(dir string, parties int) ([]*KeyFile, error) {
	out := make([]*KeyFile, parties)
	for k := range out {
		path := filepath.Join(dir, KeyFileName(k))
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		var f KeyFile
		if err := json.Unmarshal(b, &f); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out[k] = &f
	}
	return out, nil
}

// UsesPaillier says the settings run the scalar products on the Paillier
// suite (which takes key files).
func (s Settings) UsesPaillier() bool { return s.SSPP == proto.SuitePaillier }
