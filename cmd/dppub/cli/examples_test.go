package cli

import (
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Every runnable command has an example in its help, and every example is
// runnable as written: each `dppub …` line (with its \-continuations)
// names an existing command, whose flags and arguments parse; at least one
// line runs the command itself.
func TestEveryCommandHasARunnableExample(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Runnable() && !c.Hidden && c.Name() != "help" && c.Name() != "completion" {
			t.Run(c.CommandPath(), func(t *testing.T) { checkExamples(t, c) })
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewRoot(io.Discard, io.Discard))
}

func checkExamples(t *testing.T, c *cobra.Command) {
	if strings.TrimSpace(c.Example) == "" {
		t.Fatalf("%s has no example (cobra.Command.Example, or an Examples: section of Long)", c.CommandPath())
	}
	own := false
	for _, line := range exampleCommands(c.Example) {
		words := shellWords(line)
		if len(words) == 0 || words[0] != "dppub" {
			continue
		}
		// A fresh tree per line: parsing flags changes the commands.
		found, args, err := NewRoot(io.Discard, io.Discard).Find(words[1:])
		if err != nil {
			t.Errorf("%q: %v", line, err)
			continue
		}
		if err := found.ParseFlags(args); err != nil {
			t.Errorf("%q: %v", line, err)
			continue
		}
		found.Flags().Visit(func(fl *pflag.Flag) {
			if fl.Deprecated != "" {
				t.Errorf("%q uses the deprecated --%s (%s)", line, fl.Name, fl.Deprecated)
			}
		})
		if err := found.ValidateArgs(found.Flags().Args()); err != nil {
			t.Errorf("%q: %v", line, err)
		}
		if err := found.ValidateRequiredFlags(); err != nil {
			t.Errorf("%q: %v", line, err)
		}
		own = own || found.CommandPath() == c.CommandPath()
	}
	if !own {
		t.Errorf("no example runs %s:\n%s", c.CommandPath(), c.Example)
	}
}

// exampleCommands joins \-continued lines and drops comments.
func exampleCommands(ex string) []string {
	var out []string
	cur := ""
	for _, l := range strings.Split(ex, "\n") {
		l = strings.TrimSpace(l)
		if i := strings.Index(l, " #"); i >= 0 {
			l = strings.TrimSpace(l[:i])
		}
		if strings.HasPrefix(l, "#") {
			continue
		}
		if strings.HasSuffix(l, "\\") {
			cur += strings.TrimSpace(strings.TrimSuffix(l, "\\")) + " "
			continue
		}
		if cur+l != "" {
			out = append(out, cur+l)
		}
		cur = ""
	}
	return out
}

// shellWords splits a command line as a POSIX shell would for the simple
// lines of the examples: quotes group, and a pipe, redirection or && ends
// the command.
func shellWords(line string) []string {
	var words []string
	var b strings.Builder
	inWord := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			b.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, b.String())
				b.Reset()
				inWord = false
			}
		case (r == '|' || r == '>' || r == '<' || r == '&') && !inWord:
			return words
		default:
			b.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, b.String())
	}
	return words
}

func TestSplitExamples(t *testing.T) {
	long := "Intro.\n\nExamples:\n  dppub a --x 1\n\n  dppub a --y \\\n      2\nAfter.\n"
	rest, ex := splitExamples(long)
	if rest != "Intro.\n\nAfter." {
		t.Errorf("rest %q", rest)
	}
	if ex != "  dppub a --x 1\n\n  dppub a --y \\\n      2" {
		t.Errorf("examples %q", ex)
	}
	if got := exampleCommands(ex); len(got) != 2 || got[1] != "dppub a --y 2" {
		t.Errorf("commands %q", got)
	}
	if rest, ex := splitExamples("No examples here."); rest != "No examples here." || ex != "" {
		t.Errorf("without a section: %q, %q", rest, ex)
	}
}
