package paillier

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	"github.com/dppub/dppub/internal/wire"
)

// keyFileVersion is written into every JSON key file.
const keyFileVersion = 1

type publicKeyJSON struct {
	Scheme string `json:"scheme"` // always "paillier g=N+1"
	// Bits is the modulus size, written so that a reader of a key file
	// sees it (checked against N when present).
	Bits int    `json:"bits,omitempty"`
	N    string `json:"n"` // hexadecimal
}

const publicKeyScheme = "paillier g=N+1"

// MarshalJSON encodes the modulus (the precomputed table is not saved).
func (pk *PublicKey) MarshalJSON() ([]byte, error) {
	return json.Marshal(publicKeyJSON{Scheme: publicKeyScheme, Bits: pk.Bits(), N: pk.N.Text(16)})
}

// UnmarshalJSON decodes and validates a public key.
func (pk *PublicKey) UnmarshalJSON(b []byte) error {
	var j publicKeyJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return fmt.Errorf("paillier: public key: %w", err)
	}
	if j.Scheme != publicKeyScheme {
		return fmt.Errorf("paillier: public key scheme %q, want %q", j.Scheme, publicKeyScheme)
	}
	n, err := parseHex("n", j.N)
	if err != nil {
		return err
	}
	parsed, err := NewPublicKey(n)
	if err != nil {
		return err
	}
	if j.Bits != 0 && j.Bits != parsed.Bits() {
		return fmt.Errorf("paillier: public key says %d bits, its modulus has %d", j.Bits, parsed.Bits())
	}
	*pk = *parsed
	return nil
}

// MarshalJSON refuses: a PrivateKey would otherwise marshal as its embedded
// public key and silently lose the secret.
func (sk *PrivateKey) MarshalJSON() ([]byte, error) {
	return nil, errors.New("paillier: refusing to marshal a private key to JSON")
}

type sharingJSON struct {
	Scheme           Scheme   `json:"scheme"`
	ID               string   `json:"id"`
	Parties          int      `json:"parties"`
	Threshold        int      `json:"threshold"`
	V                string   `json:"v,omitempty"`
	VerificationKeys []string `json:"verification_keys,omitempty"`
}

// MarshalJSON encodes the sharing's public description.
func (sh *Sharing) MarshalJSON() ([]byte, error) {
	j := sharingJSON{Scheme: sh.Scheme, ID: sh.ID, Parties: sh.Parties, Threshold: sh.Threshold}
	if sh.V != nil {
		j.V = sh.V.Text(16)
	}
	for _, vk := range sh.VerificationKeys {
		j.VerificationKeys = append(j.VerificationKeys, vk.Text(16))
	}
	return json.Marshal(j)
}

// UnmarshalJSON decodes and validates a sharing description.
func (sh *Sharing) UnmarshalJSON(b []byte) error {
	var j sharingJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return fmt.Errorf("paillier: sharing: %w", err)
	}
	out := Sharing{Scheme: j.Scheme, ID: j.ID, Parties: j.Parties, Threshold: j.Threshold}
	if j.V != "" {
		v, err := parseHex("v", j.V)
		if err != nil {
			return err
		}
		out.V = v
	}
	for i, s := range j.VerificationKeys {
		vk, err := parseHex(fmt.Sprintf("verification_keys[%d]", i), s)
		if err != nil {
			return err
		}
		out.VerificationKeys = append(out.VerificationKeys, vk)
	}
	if err := out.validate(); err != nil {
		return err
	}
	*sh = out
	return nil
}

func (sh *Sharing) validate() error {
	if sh.ID == "" {
		return errors.New("paillier: sharing without an id")
	}
	if err := checkParties(sh.Threshold, sh.Parties); err != nil {
		return err
	}
	switch sh.Scheme {
	case Additive:
		if sh.Threshold != sh.Parties {
			return fmt.Errorf("paillier: additive sharing with threshold %d ≠ parties %d", sh.Threshold, sh.Parties)
		}
	case Threshold:
		if sh.V == nil || len(sh.VerificationKeys) != sh.Parties {
			return fmt.Errorf("paillier: threshold sharing needs v and %d verification keys, has %d", sh.Parties, len(sh.VerificationKeys))
		}
	default:
		return fmt.Errorf("paillier: unknown sharing scheme %q", sh.Scheme)
	}
	return nil
}

type keyShareJSON struct {
	Version   int        `json:"version"`
	Warning   string     `json:"warning"`
	PublicKey *PublicKey `json:"public_key"`
	Sharing   *Sharing   `json:"sharing"`
	Index     int        `json:"index"`
	Secret    string     `json:"secret"` // signed hexadecimal
}

const keyShareWarning = "SECRET: one party's Paillier decryption key share; keep private"

// MarshalJSON encodes the share, secret included: write it to a file only
// its owner can read.
func (ks *KeyShare) MarshalJSON() ([]byte, error) {
	return json.Marshal(keyShareJSON{
		Version: keyFileVersion, Warning: keyShareWarning,
		PublicKey: ks.PublicKey, Sharing: ks.Sharing, Index: ks.Index, Secret: ks.Secret.Text(16),
	})
}

// UnmarshalJSON decodes and validates a key share.
func (ks *KeyShare) UnmarshalJSON(b []byte) error {
	var j keyShareJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return fmt.Errorf("paillier: key share: %w", err)
	}
	if j.Version != keyFileVersion {
		return fmt.Errorf("paillier: key share version %d, want %d", j.Version, keyFileVersion)
	}
	if j.PublicKey == nil || j.PublicKey.N == nil || j.Sharing == nil {
		return errors.New("paillier: key share without public key or sharing")
	}
	if j.Index < 1 || j.Index > j.Sharing.Parties {
		return fmt.Errorf("paillier: key share index %d outside [1, %d]", j.Index, j.Sharing.Parties)
	}
	secret, err := parseHex("secret", j.Secret)
	if err != nil {
		return err
	}
	*ks = KeyShare{PublicKey: j.PublicKey, Sharing: j.Sharing, Index: j.Index, Secret: secret}
	return nil
}

func parseHex(field, s string) (*big.Int, error) {
	v, ok := new(big.Int).SetString(s, 16)
	if !ok {
		return nil, fmt.Errorf("paillier: field %s: %q is not a hexadecimal integer", field, s)
	}
	return v, nil
}

// partialMagic opens every marshalled PartialDecryption.
const partialMagic = "PLPD\x01"

// MessageType names the message for the protocol envelope.
func (p *PartialDecryption) MessageType() string { return "paillier.partial-decryption" }

// MarshalBinary encodes p in the internal/wire format: the magic, the
// sharing ID, the index, the value, and for the Threshold scheme the
// proof's E and Z (empty byte strings when absent).
func (p *PartialDecryption) MarshalBinary() ([]byte, error) {
	if p.Value == nil || p.Value.Sign() < 0 || p.Index < 1 {
		return nil, errors.New("paillier: incomplete partial decryption")
	}
	value := p.Value.Bytes()
	var e, z []byte
	if p.Proof != nil {
		e, z = p.Proof.E.Bytes(), p.Proof.Z.Bytes()
	}
	return wire.Marshal(wire.Tag(partialMagic), &p.SharingID, &p.Index, &value, &e, &z), nil
}

// UnmarshalBinary decodes what MarshalBinary wrote. Values are checked by
// Combine, not here.
func (p *PartialDecryption) UnmarshalBinary(b []byte) error {
	var out PartialDecryption
	var value, e, z []byte
	if err := wire.Unmarshal(b, "paillier: partial decryption", wire.Tag(partialMagic), &out.SharingID, &out.Index, &value, &e, &z); err != nil {
		return err
	}
	out.Value = new(big.Int).SetBytes(value)
	if len(e) > 0 || len(z) > 0 {
		out.Proof = &Proof{E: new(big.Int).SetBytes(e), Z: new(big.Int).SetBytes(z)}
	}
	*p = out
	return nil
}
