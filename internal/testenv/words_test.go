package testenv

import (
	"fmt"
	"strings"
	"testing"
)

type colour string

// CheckWords passes a parser that reads its words back and quotes what it
// refuses, and fails one that misreads a word, accepts a bad one or does
// not quote it.
func TestCheckWords(t *testing.T) {
	quoting := func(s string) (colour, error) {
		if s == "red" || s == "green" {
			return colour(s), nil
		}
		return "", fmt.Errorf("unknown colour %q", s)
	}
	for _, c := range []struct {
		name     string
		parse    func(string) (colour, error)
		failSays string // "" when the check must pass
	}{
		{"sound", quoting, ""},
		{"misreads", func(s string) (colour, error) { c, err := quoting(s); return c + "!", err }, `parse "green" = "green!"`},
		{"accepts", func(s string) (colour, error) { return colour(s), nil }, `parse "blue": error <nil>`},
		{"unquoted", func(s string) (colour, error) {
			if _, err := quoting(s); err != nil {
				return "", fmt.Errorf("unknown colour")
			}
			return colour(s), nil
		}, "want one quoting it"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			CheckWords(rec, c.parse, []colour{"red", "green"}, "blue")
			if (c.failSays == "") != (rec.msg == "") || !strings.Contains(rec.msg, c.failSays) {
				t.Fatalf("failure %q, want one saying %q", rec.msg, c.failSays)
			}
		})
	}
}
