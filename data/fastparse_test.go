package data

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dppub/dppub/internal/testenv"
)

// checkDecimal fails unless parseDecimal(s), when it accepts s, gives
// strconv.ParseFloat's bits (and strconv accepts s too). It reports
// whether parseDecimal accepted s.
func checkDecimal(t testing.TB, s string) bool {
	t.Helper()
	got, ok := parseDecimal(s)
	if !ok {
		return false
	}
	want, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("parseDecimal(%q) = %v, strconv refuses it: %v", s, got, err)
	}
	if math.Float64bits(got) != math.Float64bits(want) {
		t.Fatalf("parseDecimal(%q) = %v (%#x), strconv %v (%#x)", s, got, math.Float64bits(got), want, math.Float64bits(want))
	}
	return true
}

func TestParseDecimal(t *testing.T) {
	for _, c := range []struct {
		in   string
		fast bool // parseDecimal takes it (else strconv does)
	}{
		{"0", true}, {"-0", true}, {"+0", true}, {"-0.0", true}, {"007", true},
		{"39", true}, {"77516", true}, {"-12.5", true}, {"+3.25", true},
		{"0.1", true}, {"0.3", true}, {"0.7", true}, {"2.675", true}, {"1.015", true},
		{".5", true}, {"5.", true}, {"123456789012345", true}, {"99999999999999.9", true},
		{"0.00000000000001", true}, {"0.000000000000001", false}, {"1234567.891", true},
		{"1234567890123456", false}, {"0.1234567890123456", false}, {"9007199254740993", false},
		{"", false}, {"-", false}, {"+", false}, {".", false}, {"-.", false}, {"1..2", false},
		{"1.2.3", false}, {"1e5", false}, {"1E-3", false}, {"1_000", false}, {"0x10", false},
		{"inf", false}, {"-Inf", false}, {"NaN", false}, {" 5", false}, {"5 ", false},
		{"--5", false}, {"+-5", false}, {"5-", false}, {"½", false},
	} {
		t.Run(c.in, func(t *testing.T) {
			if got := checkDecimal(t, c.in); got != c.fast {
				t.Fatalf("parseDecimal(%q) took it: %v, want %v", c.in, got, c.fast)
			}
		})
	}
}

// Every integer and every decimal of up to six digits (with the point at
// each place, and negated) parses to strconv's bits.
func TestParseDecimalSweep(t *testing.T) {
	top := 1000000
	if testing.Short() {
		top = 20000
	}
	var buf []byte
	for m := range top {
		buf = strconv.AppendInt(buf[:0], int64(m), 10)
		digits := string(buf)
		for k := 0; k <= len(digits); k++ {
			s := digits[:len(digits)-k] + "." + digits[len(digits)-k:]
			if k == 0 {
				s = digits
			}
			if !checkDecimal(t, s) || !checkDecimal(t, "-"+s) {
				t.Fatalf("parseDecimal refused %q", s)
			}
		}
	}
}

// Every field of Adult's files that parseDecimal takes (every numeric
// cell of them) parses to strconv's bits.
func TestParseDecimalAdult(t *testing.T) {
	dir := testenv.SharedData(t, "adult")
	taken := 0
	for _, name := range []string{"adult.data", "adult.test"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(b, []byte("\n")) {
			for _, f := range strings.Split(string(line), ",") {
				if checkDecimal(t, strings.TrimSpace(f)) {
					taken++
				}
			}
		}
	}
	// 6 numeric columns of 48 842 records, plus the few numbers of the
	// comment line of adult.test.
	if taken < 6*48842 {
		t.Fatalf("parseDecimal took %d fields of Adult, want at least %d", taken, 6*48842)
	}
}

func FuzzParseDecimal(f *testing.F) {
	for _, s := range []string{"0", "-0", "12.5", ".5", "5.", "1e5", "123456789012345", "0.1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkDecimal(t, s)
	})
}

func TestTrimSpace(t *testing.T) {
	for _, s := range []string{
		"", " ", "a", " a", "a ", " a b ", "\ta\r\n", "\x01a\x01", "\x7fa\x7f",
		"\u00a0a\u0085", "\u3000a", "é", " é ", "a\u2028", "\xffa\xff", "\v\f",
	} {
		t.Run(strconv.Quote(s), func(t *testing.T) {
			if got, want := trimSpace(s), strings.TrimSpace(s); got != want {
				t.Fatalf("trimSpace(%q) = %q, strings.TrimSpace %q", s, got, want)
			}
		})
	}
}

func FuzzTrimSpace(f *testing.F) {
	f.Add(" a ")
	f.Add("\u00a0x")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := trimSpace(s), strings.TrimSpace(s); got != want {
			t.Fatalf("trimSpace(%q) = %q, strings.TrimSpace %q", s, got, want)
		}
	})
}

// catIndex answers as the map from category to index, for every category
// and for names that are not categories: variants of each (one byte
// changed, cut, extended), the other lists' names and the empty string.
// Adult's lists take the perfect hash; lists it cannot separate take the
// map.
func TestCatIndex(t *testing.T) {
	lists := map[string][]string{
		"two":       {"<=50K", ">50K"},
		"one":       {"x"},
		"collide":   {"abcde", "abcXe"}, // differ only at a byte the key skips
		"duplicate": {"a", "b", "a"},
		"empty":     {"", "a"},
	}
	// Adult's categorical columns, their values as the file has them.
	b, err := os.ReadFile(filepath.Join(testenv.SharedData(t, "adult"), "adult.data"))
	if err != nil {
		t.Fatal(err)
	}
	columns := map[int]string{1: "workclass", 3: "education", 5: "marital-status", 6: "occupation", 7: "relationship", 8: "race", 9: "sex", 13: "native-country", 14: "income"}
	seen := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		for j, f := range strings.Split(line, ",") {
			f = strings.TrimSpace(f)
			if name, ok := columns[j]; ok && f != "?" && !seen[name+"\x00"+f] {
				seen[name+"\x00"+f] = true
				lists[name] = append(lists[name], f)
			}
		}
	}
	if len(lists["native-country"]) < 40 || len(lists["education"]) != 16 {
		t.Fatalf("Adult's columns hold %d countries and %d educations, want 41 and 16", len(lists["native-country"]), len(lists["education"]))
	}
	fast := map[string]bool{"collide": false, "duplicate": false, "empty": false, "two": true, "one": true, "native-country": true, "education": true, "occupation": true}
	var names []string
	for _, cats := range lists {
		for _, c := range cats {
			names = append(names, c, c+"x", c[:len(c)/2], strings.ToUpper(c), " "+c)
			for i := range len(c) {
				names = append(names, c[:i]+"#"+c[i+1:])
			}
		}
	}
	names = append(names, "", "?")
	for name, cats := range lists {
		t.Run(name, func(t *testing.T) {
			want := map[string]int{}
			for i, c := range cats {
				want[c] = i
			}
			ci := newCatIndex(cats)
			if f, ok := fast[name]; ok && f != (ci.m == nil) {
				t.Fatalf("perfect hash used: %v, want %v", ci.m == nil, f)
			}
			for _, s := range names {
				k, ok := ci.get(s)
				wk, wok := want[s]
				if k != wk || ok != wok {
					t.Fatalf("get(%q) = %d, %v; the map %d, %v", s, k, ok, wk, wok)
				}
				if kb, okb := ci.getBytes([]byte(s)); kb != k || okb != ok {
					t.Fatalf("getBytes(%q) = %d, %v; get %d, %v", s, kb, okb, k, ok)
				}
			}
		})
	}
}
