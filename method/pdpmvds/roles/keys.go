package roles

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/dppub/dppub/crypto/paillier"
)

// KeyFile is one party's output of the key ceremony: the parties' shared
// Paillier public key and, for every other party, this party's half of
// the pair's 2-of-2 sharing of the decryption exponent (the paper's
// λ_{x,y}; Table 1). It is secret: only its party may read it.
type KeyFile struct {
	// Party is the 0-based index of the holder; Parties is K.
	Party, Parties int
	// PublicKey is the shared key.
	PublicKey *paillier.PublicKey
	// Pairs maps every other party's index to this party's share of the
	// pair's sharing.
	Pairs map[int]*paillier.KeyShare
}

// DealKeys is the key ceremony: a dealer generates a key of bits bits and
// deals one additive 2-of-2 sharing of its decryption exponent per pair of
// parties, and returns the public key (for S) and one KeyFile per party.
// The dealer sees the factorisation of N and can decrypt everything: it
// must be none of the parties, and certainly not S (who handles every
// ciphertext), and must erase the key afterwards. Any two parties together
// can decrypt, so the protocol's secrecy assumes no two parties collude.
func DealKeys(random io.Reader, bits, parties int) (*paillier.PublicKey, []*KeyFile, error) {
	sk, err := paillier.GenerateKey(random, bits)
	if err != nil {
		return nil, nil, fmt.Errorf("pdpmvds: key ceremony: %w", err)
	}
	return dealPairs(random, sk, parties)
}

// DealInsecureTestKeys is DealKeys without the key-size floor
// (paillier.MinInsecureTestBits). INSECURE below 2048 bits: tests only.
func DealInsecureTestKeys(random io.Reader, bits, parties int) (*paillier.PublicKey, []*KeyFile, error) {
	sk, err := paillier.GenerateInsecureTestKey(random, bits)
	if err != nil {
		return nil, nil, fmt.Errorf("pdpmvds: key ceremony: %w", err)
	}
	return dealPairs(random, sk, parties)
}

func dealPairs(random io.Reader, sk *paillier.PrivateKey, parties int) (*paillier.PublicKey, []*KeyFile, error) {
	if parties < 2 {
		return nil, nil, fmt.Errorf("pdpmvds: key ceremony needs at least 2 parties, got %d", parties)
	}
	pk := sk.Public()
	files := make([]*KeyFile, parties)
	for k := range files {
		files[k] = &KeyFile{Party: k, Parties: parties, PublicKey: pk, Pairs: map[int]*paillier.KeyShare{}}
	}
	for x := range parties {
		for y := x + 1; y < parties; y++ {
			sh, err := sk.ShareAdditive(random, 2)
			if err != nil {
				return nil, nil, fmt.Errorf("pdpmvds: key ceremony: %w", err)
			}
			files[x].Pairs[y], files[y].Pairs[x] = sh[0], sh[1]
		}
	}
	return pk, files, nil
}

// Validate checks that the file holds one share for every other party,
// all under its public key.
func (f *KeyFile) Validate() error {
	if f.Parties < 2 || f.Party < 0 || f.Party >= f.Parties {
		return fmt.Errorf("pdpmvds: key file of party %d of %d", f.Party+1, f.Parties)
	}
	if f.PublicKey == nil {
		return fmt.Errorf("pdpmvds: key file of party %d has no public key", f.Party+1)
	}
	for k := range f.Parties {
		if k == f.Party {
			continue
		}
		sh := f.Pairs[k]
		switch {
		case sh == nil:
			return fmt.Errorf("pdpmvds: key file of party %d has no share with party %d", f.Party+1, k+1)
		case !sh.PublicKey.Equal(f.PublicKey):
			return fmt.Errorf("pdpmvds: key file of party %d: the share with party %d is for another key", f.Party+1, k+1)
		case sh.Sharing.Parties != 2 || sh.Sharing.Scheme != paillier.Additive:
			return fmt.Errorf("pdpmvds: key file of party %d: the share with party %d is not a 2-of-2 additive sharing", f.Party+1, k+1)
		case sh.Index != pairIndex(f.Party, k):
			return fmt.Errorf("pdpmvds: key file of party %d: the share with party %d has index %d, want %d", f.Party+1, k+1, sh.Index, pairIndex(f.Party, k))
		}
	}
	if len(f.Pairs) != f.Parties-1 {
		return fmt.Errorf("pdpmvds: key file of party %d has %d shares, want %d", f.Party+1, len(f.Pairs), f.Parties-1)
	}
	return nil
}

// pairIndex is the share index of party x in the sharing of pair {x, y}:
// the lower-numbered party holds share 1.
func pairIndex(x, y int) int {
	if x < y {
		return 1
	}
	return 2
}

type keyFileJSON struct {
	Party     int                 `json:"party"`
	Parties   int                 `json:"parties"`
	PublicKey *paillier.PublicKey `json:"public_key"`
	Pairs     []pairJSON          `json:"pairs"`
}

type pairJSON struct {
	With  int                `json:"with"`
	Share *paillier.KeyShare `json:"share"`
}

// MarshalJSON writes the file with 1-based party numbers; it includes
// the secret shares.
func (f *KeyFile) MarshalJSON() ([]byte, error) {
	out := keyFileJSON{Party: f.Party + 1, Parties: f.Parties, PublicKey: f.PublicKey}
	keys := make([]int, 0, len(f.Pairs))
	for k := range f.Pairs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		out.Pairs = append(out.Pairs, pairJSON{With: k + 1, Share: f.Pairs[k]})
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads and validates a key file.
func (f *KeyFile) UnmarshalJSON(b []byte) error {
	var in keyFileJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return fmt.Errorf("pdpmvds: key file: %w", err)
	}
	*f = KeyFile{Party: in.Party - 1, Parties: in.Parties, PublicKey: in.PublicKey, Pairs: map[int]*paillier.KeyShare{}}
	for _, p := range in.Pairs {
		if _, dup := f.Pairs[p.With-1]; dup || p.Share == nil {
			return fmt.Errorf("pdpmvds: key file of party %d lists party %d twice or without a share", in.Party, p.With)
		}
		f.Pairs[p.With-1] = p.Share
	}
	return f.Validate()
}
