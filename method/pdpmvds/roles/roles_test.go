package roles

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/randx"
)

// TestPartiesRefuseBadReleases: a release over budget, one charged to the
// wrong parties, and one whose scale does not match its ρ are refused, and
// nothing is released.
func TestPartiesRefuseBadReleases(t *testing.T) {
	f := newFixture(t, SuiteCommodity, NoiseInsiderSafe, 100, 1, 5)
	ctx := context.Background()
	attrs := []int{0, 3}
	over := f.release(t, attrs, measurement.Gaussian, 2, 1.5, 2)
	if _, err := f.m.Marginal(ctx, attrs, over); err == nil || !strings.Contains(err.Error(), "budget") {
		t.Fatalf("over-budget release: err = %v", err)
	}
	f = newFixture(t, SuiteCommodity, NoiseInsiderSafe, 100, 1, 5)
	wrong := f.release(t, attrs, measurement.Gaussian, 2, 1.5, 0.1)
	wrong.Parties = []int{0}
	if _, err := f.m.Marginal(ctx, attrs, wrong); err == nil || !strings.Contains(err.Error(), "belong to") {
		t.Fatalf("release charged to the wrong parties: err = %v", err)
	}
	f = newFixture(t, SuiteCommodity, NoiseInsiderSafe, 100, 1, 5)
	cheap := f.release(t, attrs, measurement.Gaussian, 2, 1.5, 0.1)
	cheap.Noise.Scale /= 10
	if _, err := f.m.Marginal(ctx, attrs, cheap); err == nil || !strings.Contains(err.Error(), "scale") {
		t.Fatalf("under-noised release: err = %v", err)
	}
	for k, a := range f.accts {
		if s := a.Spent().Rho; s != 0 {
			t.Errorf("party %d was charged %v for refused releases", k+1, s)
		}
	}
	// A correct release is charged to exactly its two parties.
	ok := f.release(t, attrs, measurement.Gaussian, 2, 1.5, 0.1)
	if _, err := f.m.Marginal(ctx, attrs, ok); err != nil {
		t.Fatal(err)
	}
	for k, a := range f.accts {
		want := 0.0
		if k < 2 {
			want = 0.1
		}
		if s := a.Spent().Rho; s != want {
			t.Errorf("party %d spent %v, want %v", k+1, s, want)
		}
	}
}

// TestKeyFiles: the ceremony's files survive JSON, every pair decrypts
// jointly, and one share alone does not.
func TestKeyFiles(t *testing.T) {
	src := randx.NewSeeded(9)
	r := paillier.NewReader(src)
	pk, files, err := DealInsecureTestKeys(r, 512, 3)
	if err != nil {
		t.Fatal(err)
	}
	for k, f := range files {
		js, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		var back KeyFile
		if err := json.Unmarshal(js, &back); err != nil {
			t.Fatal(err)
		}
		if back.Party != k || back.Parties != 3 || !back.PublicKey.Equal(pk) || len(back.Pairs) != 2 {
			t.Fatalf("party %d's key file came back as %+v", k+1, back)
		}
		files[k] = &back
	}
	c, err := pk.Encrypt(r, big.NewInt(-42))
	if err != nil {
		t.Fatal(err)
	}
	for x := range 3 {
		for y := x + 1; y < 3; y++ {
			a, b := files[x].Pairs[y], files[y].Pairs[x]
			pa, _ := a.PartialDecrypt(nil, c)
			pb, _ := b.PartialDecrypt(nil, c)
			m, err := paillier.Combine(pk, a.Sharing, c, []*paillier.PartialDecryption{pa, pb})
			if err != nil {
				t.Fatal(err)
			}
			if got := pk.Signed(m).Int64(); got != -42 {
				t.Fatalf("pair (%d, %d) decrypts %d, want -42", x+1, y+1, got)
			}
			if _, err := paillier.Combine(pk, a.Sharing, c, []*paillier.PartialDecryption{pa}); !errors.Is(err, paillier.ErrMissingShares) {
				t.Fatalf("one share alone: err = %v, want ErrMissingShares", err)
			}
		}
	}
	bad := *files[0]
	bad.Pairs = map[int]*paillier.KeyShare{1: files[0].Pairs[1]}
	if err := bad.Validate(); err == nil {
		t.Fatal("a key file missing a pair validates")
	}
}

// TestMessagesRoundTrip marshals a request and a body and reads them back.
func TestMessagesRoundTrip(t *testing.T) {
	q := &Request{ID: 7, Kind: KindScore, Attrs: []int{1, 4},
		Release: measurement.Release{Purpose: "p", Parties: []int{0, 2}, Noise: measurement.Noise{Mechanism: measurement.Gaussian, Sensitivity: 2, Scale: 3, Rho: 0.5}},
		RefA:    []float64{1, 2}, RefB: []float64{3}}
	b, err := q.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var q2 Request
	if err := q2.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if q2.ID != 7 || q2.Kind != KindScore || q2.Release.Noise != q.Release.Noise || len(q2.RefA) != 2 || q2.Release.Parties[1] != 2 {
		t.Fatalf("request came back as %+v", q2)
	}
	m := &Body{Kind: "masked", ID: 3, Stage: 1, Index: -1, Words: []uint64{1, 1 << 63}, Floats: []float64{0.5}, Blobs: [][]byte{{1, 2}, nil}}
	b, _ = m.MarshalBinary()
	var m2 Body
	if err := m2.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if m2.Kind != "masked" || m2.Index != -1 || m2.Words[1] != 1<<63 || len(m2.Blobs) != 2 || m2.Blobs[0][1] != 2 {
		t.Fatalf("body came back as %+v", m2)
	}
	if err := m2.UnmarshalBinary(b[:len(b)-1]); err == nil {
		t.Fatal("a truncated body decodes")
	}
	if err := q2.UnmarshalBinary(append(b, 0)); err == nil {
		t.Fatal("garbage decodes as a request")
	}
}
