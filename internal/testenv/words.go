package testenv

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// CheckWords checks the parser of a typed vocabulary (a dp.Words' Parse,
// or a package's Parse over one): each of words parses as itself, and
// each of bad is refused by an error that quotes it; a word with a String
// method must print as itself.
func CheckWords[T ~string](tb testing.TB, parse func(string) (T, error), words []T, bad ...string) {
	tb.Helper()
	for _, w := range words {
		if got, err := parse(string(w)); err != nil || got != w {
			tb.Errorf("parse %q = %q, %v", w, got, err)
		}
		if s, ok := any(w).(fmt.Stringer); ok && s.String() != string(w) {
			tb.Errorf("%q.String() = %q, want the word itself", string(w), s.String())
		}
	}
	for _, s := range bad {
		if _, err := parse(s); err == nil || !strings.Contains(err.Error(), strconv.Quote(s)) {
			tb.Errorf("parse %q: error %v, want one quoting it", s, err)
		}
	}
}
