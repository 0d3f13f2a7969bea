package wire

import (
	"encoding/binary"
	"strings"
	"testing"
)

func TestRoundTripAndErrors(t *testing.T) {
	b := binary.BigEndian.AppendUint32([]byte("TEST\x01"), 7)
	b = AppendField(b, []byte("abc"))
	r, err := NewReader(b, "TEST\x01", "pkg", 16)
	if err != nil {
		t.Fatal(err)
	}
	if r.Uint32() != 7 || string(r.Field()) != "abc" || r.Finish() != nil {
		t.Fatal("round trip failed")
	}
	if _, err := NewReader(b, "XXXX\x01", "pkg", 16); err == nil || !strings.HasPrefix(err.Error(), "pkg: ") {
		t.Fatalf("wrong magic: %v", err)
	}
	long := AppendField([]byte("TEST\x01"), make([]byte, 17))
	r, _ = NewReader(long, "TEST\x01", "pkg", 16)
	if r.Field(); r.Err() == nil {
		t.Fatal("field over the limit accepted")
	}
	r, _ = NewReader(b[:7], "TEST\x01", "pkg", 16)
	if r.Uint32(); r.Finish() == nil {
		t.Fatal("truncated message accepted")
	}
}
