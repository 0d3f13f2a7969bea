package consortium

import (
	"strings"
	"testing"
)

// A member's signature verifies as that member only, with a certificate
// of this consortium's CA; a signature of another member, a changed
// message, a certificate of another consortium's CA or a truncated blob
// are refused.
func TestPeersSignAndVerify(t *testing.T) {
	load := func() (*File, map[string]*Peers) {
		f, err := Load(writeConfig(t, fileJSON))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Init(f, InitOptions{}); err != nil {
			t.Fatal(err)
		}
		ps := map[string]*Peers{}
		for _, m := range f.Members {
			c, err := LoadCredentials(f, m.Name)
			if err != nil {
				t.Fatal(err)
			}
			if ps[m.Name], err = NewPeers(f, c); err != nil {
				t.Fatal(err)
			}
		}
		return f, ps
	}
	_, ps := load()
	_, other := load() // the same names under another CA
	msg := []byte("owner key")
	sig, err := ps["hospital-a"].Sign(msg)
	if err != nil {
		t.Fatal(err)
	}
	if err := ps["curator"].Verify("hospital-a", msg, sig); err != nil {
		t.Fatalf("an honest signature: %v", err)
	}
	foreign, err := other["hospital-a"].Sign(msg)
	if err != nil {
		t.Fatal(err)
	}
	curators, err := ps["curator"].Sign(msg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, member string
		msg, sig     []byte
		want         string
	}{
		{"another member's signature", "hospital-a", msg, curators, "where"},
		{"a changed message", "hospital-a", []byte("owner kez"), sig, "is not"},
		{"another consortium's certificate", "hospital-a", msg, foreign, "certificate"},
		{"a truncated signature", "hospital-a", msg, sig[:3], "bytes"},
		{"an overlong certificate length", "hospital-a", msg, append([]byte{0xff, 0xff, 0xff, 0xff}, sig[4:]...), "certificate"},
		{"a member the file lacks", "stranger", msg, sig, "stranger"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := ps["curator"].Verify(c.member, c.msg, c.sig)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}
