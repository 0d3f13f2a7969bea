package testenv

import (
	"strings"
	"testing"
)

// ErrorCase checks the error of one case of a table-driven test: when
// the case wants an error (want, a part of its message), err must say
// it, and the case is done (true: the test returns); when it does not,
// err must be nil and the test goes on to check the result (false).
func ErrorCase(tb testing.TB, err error, want string) (done bool) {
	tb.Helper()
	if want != "" {
		if err == nil || !strings.Contains(err.Error(), want) {
			tb.Fatalf("error %v, want one containing %q", err, want)
		}
		return true
	}
	if err != nil {
		tb.Fatalf("unexpected error: %v", err)
	}
	return false
}
