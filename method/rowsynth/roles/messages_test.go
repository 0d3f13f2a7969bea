package roles

import (
	"bytes"
	"testing"

	"github.com/dppub/dppub/internal/wire"
)

// Hello and Share, which list their fields for wire.Marshal, keep the
// bytes their hand-written encoders wrote (the masks' digests and the
// recorded transcripts depend on them), and decode back.
func TestFieldMessagesKeepTheirBytes(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 32)
	var hw wire.Writer
	hw.Bytes(key)
	hw.Int(120)
	hw.Bytes([]byte("sig"))
	var sw wire.Writer
	sw.Uint64(9)
	sw.Uint64s([]uint64{1, 1 << 63, 5})
	hello := &Hello{Key: key, Records: 120, Sig: []byte("sig")}
	share := &Share{ID: 9, Words: []uint64{1, 1 << 63, 5}}
	for name, c := range map[string]struct {
		m    interface{ MarshalBinary() ([]byte, error) }
		want []byte
		back interface{ UnmarshalBinary([]byte) error }
	}{
		"hello": {hello, hw.Data(), &Hello{}},
		"share": {share, sw.Data(), &Share{}},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := c.m.MarshalBinary()
			if err != nil || !bytes.Equal(got, c.want) {
				t.Fatalf("bytes %x (%v), want %x", got, err, c.want)
			}
			if err := c.back.UnmarshalBinary(got); err != nil {
				t.Fatal(err)
			}
			again, _ := c.back.(interface{ MarshalBinary() ([]byte, error) }).MarshalBinary()
			if !bytes.Equal(again, got) {
				t.Errorf("round trip %x, want %x", again, got)
			}
		})
	}
}
