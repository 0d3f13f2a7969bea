package cli

import (
	"strings"

	"github.com/spf13/cobra"
)

// examplesFromLong moves a command's "Example:" or "Examples:" section
// (the header line and the indented lines under it) from its Long text
// into its Example field, where cobra prints it under its own heading and
// where the tests find it (TestEveryCommandHasARunnableExample). Commands
// that set Example themselves keep it.
func examplesFromLong(c *cobra.Command) {
	if c.Example == "" {
		c.Long, c.Example = splitExamples(c.Long)
	}
	for _, sub := range c.Commands() {
		examplesFromLong(sub)
	}
}

// splitExamples returns long without its last examples section, and the
// section's indented lines.
func splitExamples(long string) (rest, examples string) {
	lines := strings.Split(long, "\n")
	start := -1
	for i, l := range lines {
		if h := strings.TrimSpace(l); (h == "Example:" || h == "Examples:") && !strings.HasPrefix(l, " ") {
			start = i
		}
	}
	if start < 0 {
		return long, ""
	}
	end := start + 1
	for end < len(lines) && (strings.HasPrefix(lines[end], " ") || strings.TrimSpace(lines[end]) == "" && end+1 < len(lines) && strings.HasPrefix(lines[end+1], " ")) {
		end++
	}
	ex := strings.TrimRight(strings.Join(lines[start+1:end], "\n"), "\n ")
	if strings.TrimSpace(ex) == "" {
		return long, ""
	}
	kept := append(lines[:start:start], lines[end:]...)
	return strings.TrimRight(strings.Join(kept, "\n"), "\n "), ex
}
