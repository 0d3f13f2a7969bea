package wire

import "fmt"

// Marshal writes a message's fields in order, each with the Writer method
// of its type: a message lists its fields once (usually in a fields
// method returning pointers to them) and Marshal and Unmarshal both read
// that list, so its encoder and decoder cannot drift apart.
//
// A field is a pointer to one of string, []byte, uint64, int, float64,
// []float64, []uint64, []int, []int64 (written as Uint64s of its
// two's-complement words), []string or [][]byte; or a Tag, which Marshal writes and
// Unmarshal checks. Any other type panics: it is a programmer error that
// any round trip of the message finds.
func Marshal(fields ...any) []byte {
	var w Writer
	for _, f := range fields {
		w.field(f)
	}
	return w.Data()
}

// Unmarshal reads into fields what Marshal wrote from the same list, and
// fails on a truncated message or trailing bytes with an error prefixed
// by what (e.g. "protocol: envelope").
func Unmarshal(b []byte, what string, fields ...any) error {
	r := NewReader(b)
	for _, f := range fields {
		r.field(f)
	}
	if err := r.Finish(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// Tag in a field list is a message's fixed prefix (Writer.Tag).
type Tag string

func (w *Writer) field(f any) {
	switch p := f.(type) {
	case Tag:
		w.Tag(string(p))
	case *string:
		w.String(*p)
	case *[]byte:
		w.Bytes(*p)
	case *uint64:
		w.Uint64(*p)
	case *int:
		w.Int(*p)
	case *float64:
		w.Float64(*p)
	case *[]float64:
		w.Float64s(*p)
	case *[]uint64:
		w.Uint64s(*p)
	case *[]int:
		w.Ints(*p)
	case *[]int64:
		w.Int64s(*p)
	case *[]string:
		w.Strings(*p)
	case *[][]byte:
		w.ByteSlices(*p)
	default:
		panic(fmt.Sprintf("wire: a field of type %T", f))
	}
}

func (r *Reader) field(f any) {
	switch p := f.(type) {
	case Tag:
		r.Tag(string(p))
	case *string:
		*p = r.String()
	case *[]byte:
		*p = r.Bytes()
	case *uint64:
		*p = r.Uint64()
	case *int:
		*p = r.Int()
	case *float64:
		*p = r.Float64()
	case *[]float64:
		*p = r.Float64s()
	case *[]uint64:
		*p = r.Uint64s()
	case *[]int:
		*p = r.Ints()
	case *[]int64:
		*p = r.Int64s()
	case *[]string:
		*p = r.Strings()
	case *[][]byte:
		*p = r.ByteSlices()
	default:
		panic(fmt.Sprintf("wire: a field of type %T", f))
	}
}

// Int64s writes a length-prefixed int64 slice as its two's-complement
// words (the same bytes as Uint64s of them).
func (w *Writer) Int64s(v []int64) { writeSlice(w, v, func(x int64) { w.Uint64(uint64(x)) }) }

// Int64s reads what Writer.Int64s wrote; an empty slice reads as nil.
func (r *Reader) Int64s() []int64 {
	v := readSlice(r, func() int64 { return int64(r.Uint64()) })
	if len(v) == 0 {
		return nil
	}
	return v
}

// Strings writes a length-prefixed slice of length-prefixed strings.
func (w *Writer) Strings(v []string) {
	w.Uint64(uint64(len(v)))
	for _, x := range v {
		w.String(x)
	}
}

// Strings reads what Writer.Strings wrote; an empty slice reads as nil.
// Each string takes at least its 8-byte length, so the count is checked
// against the bytes left at 8 bytes an element.
func (r *Reader) Strings() []string {
	v := readSlice(r, r.String)
	if len(v) == 0 {
		return nil
	}
	return v
}

// ByteSlices writes a length-prefixed slice of length-prefixed byte
// strings.
func (w *Writer) ByteSlices(v [][]byte) {
	w.Uint64(uint64(len(v)))
	for _, b := range v {
		w.Bytes(b)
	}
}

// ByteSlices reads what Writer.ByteSlices wrote (each a copy). Each takes
// at least its 8-byte length, so the count is checked against the bytes
// left at 8 bytes an element.
func (r *Reader) ByteSlices() [][]byte { return readSlice(r, r.Bytes) }
