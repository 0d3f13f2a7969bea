package testenv

import (
	"encoding"
	"encoding/hex"
	"testing"
)

// Pinned is a message whose encoding a test pins: Want is its bytes in
// hexadecimal, as an earlier version wrote them.
type Pinned struct {
	Name string
	Msg  encoding.BinaryMarshaler
	Want string
}

// CheckPinned checks that each message still encodes to its pinned
// bytes: a change of wire format breaks networked runs against members
// built from an earlier version, so it must be seen.
func CheckPinned(t *testing.T, cases []Pinned) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			b, err := c.Msg.MarshalBinary()
			if err != nil || hex.EncodeToString(b) != c.Want {
				t.Fatalf("%s encodes to %x (err %v), want %s", c.Name, b, err, c.Want)
			}
		})
	}
}
