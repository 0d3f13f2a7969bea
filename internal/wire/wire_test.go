package wire

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	var w Writer
	w.Tag("TEST\x01")
	w.Uint64(math.MaxUint64)
	w.Int(-7)
	w.Float64(-0.5)
	w.Bytes([]byte{1, 2, 3})
	w.String("héllo")
	w.Float64s([]float64{1.5, math.Inf(-1)})
	w.Uint64s([]uint64{0, 9})
	w.Bytes(nil)
	r := NewReader(w.Data())
	r.Tag("TEST\x01")
	u, i, f := r.Uint64(), r.Int(), r.Float64()
	b, s, fs, us, empty := r.Bytes(), r.String(), r.Float64s(), r.Uint64s(), r.Bytes()
	if err := r.Finish(); err != nil {
		t.Fatal(err)
	}
	if u != math.MaxUint64 || i != -7 || f != -0.5 || string(b) != "\x01\x02\x03" || s != "héllo" ||
		!slices.Equal(fs, []float64{1.5, math.Inf(-1)}) || !slices.Equal(us, []uint64{0, 9}) || len(empty) != 0 {
		t.Fatalf("round trip gave %v %v %v %v %q %v %v %v", u, i, f, b, s, fs, us, empty)
	}
}

func TestReaderRejects(t *testing.T) {
	var huge Writer
	huge.Uint64(1 << 40) // a length prefix far beyond the data
	var trailing Writer
	trailing.Uint64(1)
	trailing.Uint64(2)
	cases := []struct {
		name string
		data []byte
		read func(*Reader)
		want string
	}{
		{"oversized floats", huge.Data(), func(r *Reader) { r.Float64s() }, "exceeds"},
		{"oversized bytes", huge.Data(), func(r *Reader) { r.Bytes() }, "exceeds"},
		{"oversized words", huge.Data(), func(r *Reader) { r.Uint64s() }, "exceeds"},
		{"truncated", []byte{1, 2, 3}, func(r *Reader) { r.Uint64() }, "truncated"},
		{"wrong tag", []byte("XXXX\x01"), func(r *Reader) { r.Tag("TEST\x01") }, "not a"},
		{"short tag", []byte("TE"), func(r *Reader) { r.Tag("TEST\x01") }, "not a"},
		{"trailing", trailing.Data(), func(r *Reader) { r.Uint64() }, "trailing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := NewReader(c.data)
			c.read(r)
			err := r.Finish()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}

// Each failed length check names the limit it hit: the run got
// "field length 282667248 exceeds the 282667248 bytes left" for a field
// over the field limit. The limit is in bytes for every element width.
func TestLengthLimitNamed(t *testing.T) {
	prefix := func(n uint64, extra int) []byte {
		var w Writer
		w.Uint64(n)
		return append(w.Data(), make([]byte, extra)...)
	}
	cases := []struct {
		name string
		data []byte
		read func(*Reader)
		want string
	}{
		{"bytes over the field limit", prefix(282667248, 16), func(r *Reader) { r.Bytes() }, "exceeds the field limit of 268435456 bytes"},
		{"floats one over the field limit", prefix(MaxFieldLen/8+1, 16), func(r *Reader) { r.Float64s() }, "exceeds the field limit"},
		{"words one over the field limit", prefix(MaxFieldLen/8+1, 16), func(r *Reader) { r.Uint64s() }, "exceeds the field limit"},
		{"floats at the field limit, short", prefix(MaxFieldLen/8, 16), func(r *Reader) { r.Float64s() }, "exceeds the 16 bytes left"},
		{"bytes at the field limit, short", prefix(MaxFieldLen, 3), func(r *Reader) { r.Bytes() }, "exceeds the 3 bytes left"},
		{"floats one more than left", prefix(3, 16), func(r *Reader) { r.Float64s() }, "field of 24 bytes exceeds the 16 bytes left"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := NewReader(c.data)
			c.read(r)
			if err := r.Err(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
	// Exactly the bytes left is accepted.
	r := NewReader(prefix(2, 16))
	if v := r.Float64s(); len(v) != 2 || r.Finish() != nil {
		t.Fatalf("two floats in 16 bytes: %v, %v", v, r.Finish())
	}
}

func TestErrorSticks(t *testing.T) {
	r := NewReader([]byte{1})
	if r.Uint64(); r.Err() == nil {
		t.Fatal("truncated read gave no error")
	}
	first := r.Err()
	r.Tag("x")
	if r.String() != "" || r.Err() != first {
		t.Fatal("a later read replaced the first error")
	}
}

func FuzzReader(f *testing.F) {
	var w Writer
	w.String("s")
	w.Uint64s([]uint64{1, 2})
	f.Add(w.Data())
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(data)
		s, v := r.String(), r.Uint64s()
		if r.Finish() != nil {
			return
		}
		var again Writer
		again.String(s)
		again.Uint64s(v)
		if string(again.Data()) != string(data) {
			t.Fatalf("re-encoding %x gave %x", data, again.Data())
		}
	})
}

// Ints round-trip negative and large values.
func TestInts(t *testing.T) {
	var w Writer
	in := []int{0, -1, 7, 1 << 40, -(1 << 50)}
	w.Ints(in)
	w.Ints(nil)
	r := NewReader(w.Data())
	got, empty := r.Ints(), r.Ints()
	if err := r.Finish(); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(in) || len(empty) != 0 {
		t.Fatalf("Ints read %v and %v, want %v and []", got, empty, in)
	}
}

// TestFieldsMatchWriter checks that Marshal writes exactly the bytes of the
// Writer calls it stands for, and that Unmarshal reads them back.
func TestFieldsMatchWriter(t *testing.T) {
	s, b, u, i, f := "héllo", []byte{1, 2}, uint64(math.MaxUint64), -7, -0.5
	fs, us, is, i64 := []float64{1.5, math.Inf(-1)}, []uint64{0, 9}, []int{-1, 3}, []int64{-2, 5}
	ss := []string{"a", ""}
	bs := [][]byte{{7}, nil}
	var w Writer
	w.Tag("T1")
	w.String(s)
	w.Bytes(b)
	w.Uint64(u)
	w.Int(i)
	w.Float64(f)
	w.Float64s(fs)
	w.Uint64s(us)
	w.Ints(is)
	w.Uint64s([]uint64{uint64(i64[0]), uint64(i64[1])})
	w.Uint64(2)
	w.String(ss[0])
	w.String(ss[1])
	w.Uint64(2)
	w.Bytes(bs[0])
	w.Bytes(bs[1])
	got := Marshal(Tag("T1"), &s, &b, &u, &i, &f, &fs, &us, &is, &i64, &ss, &bs)
	if !slices.Equal(got, w.Data()) {
		t.Fatalf("Marshal wrote %x, the Writer %x", got, w.Data())
	}
	var (
		s2          string
		b2          []byte
		u2          uint64
		i2          int
		f2          float64
		fs2         []float64
		us2         []uint64
		is2         []int
		i642, empty []int64
		ss2         []string
		bs2         [][]byte
	)
	if err := Unmarshal(got, "test", Tag("T1"), &s2, &b2, &u2, &i2, &f2, &fs2, &us2, &is2, &i642, &ss2, &bs2); err != nil {
		t.Fatal(err)
	}
	if s2 != s || !slices.Equal(b2, b) || u2 != u || i2 != i || f2 != f || !slices.Equal(fs2, fs) ||
		!slices.Equal(us2, us) || !slices.Equal(is2, is) || !slices.Equal(i642, i64) || !slices.Equal(ss2, ss) ||
		len(bs2) != 2 || !slices.Equal(bs2[0], bs[0]) || len(bs2[1]) != 0 {
		t.Fatalf("round trip gave %q %v %v %v %v %v %v %v %v %q", s2, b2, u2, i2, f2, fs2, us2, is2, i642, ss2)
	}
	if err := Unmarshal(Marshal(&empty), "test", &i642); err != nil || i642 != nil {
		t.Fatalf("an empty int64 slice read back as %#v (err %v), want nil", i642, err)
	}
	if err := Unmarshal(got, "test", Tag("T2")); err == nil || !strings.Contains(err.Error(), "not a") {
		t.Fatalf("a wrong tag gave %v", err)
	}
	if err := Unmarshal(append(got, 0), "test: msg", Tag("T1"), &s2, &b2, &u2, &i2, &f2, &fs2, &us2, &is2, &i642, &ss2, &bs2); err == nil || !strings.HasPrefix(err.Error(), "test: msg: ") {
		t.Fatalf("a trailing byte gave %v, want an error prefixed by what", err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("a field of type bool did not panic")
		}
	}()
	Marshal(new(bool))
}
