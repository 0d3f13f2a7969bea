package data

import (
	"strings"
	"testing"
)

// AsWritten is the value WriteCSV writes, read back.
func TestAsWritten(t *testing.T) {
	dec := Attribute{Name: "x", Kind: Numeric, Min: 0, Max: 100, Decimals: 2}
	whole := Attribute{Name: "n", Kind: Numeric, Min: 0, Max: 100, Integer: true}
	cat := Attribute{Name: "c", Kind: Categorical, Categories: []string{"a", "b"}}
	for _, c := range []struct {
		a       Attribute
		v, want float64
	}{
		{dec, 12.49996, 12.5},
		{dec, 12.494, 12.49},
		{dec, -0.001, 0},
		{whole, 7, 7},
		{Attribute{Name: "y", Kind: Numeric, Min: 0, Max: 1}, 0.1234567891234, 0.1234567891234},
		{cat, 1, 1},
	} {
		s := Schema{Attributes: []Attribute{c.a}}
		var b strings.Builder
		if err := WriteCSV(&b, &Table{Schema: s, Rows: [][]float64{{c.v}}}); err != nil {
			t.Fatal(err)
		}
		back, _, err := ReadCSV(strings.NewReader(b.String()), s, ReadOptions{Header: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := c.a.AsWritten(c.v); got != c.want || got != back.Rows[0][0] {
			t.Errorf("%s: AsWritten(%v) = %v, want %v, read back %v", c.a.Name, c.v, got, c.want, back.Rows[0][0])
		}
	}
}
