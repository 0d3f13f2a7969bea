package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/audit/catalog"
)

// hostileName is the audit that plays a hostile coordinator against
// every multi-party method's member roles.
const hostileName = "hostile-coordinator"

// runHostileAttacks runs every hostile-coordinator attack, in order.
func runHostileAttacks() ([]audit.HostileResult, int, error) {
	attacks, err := catalog.All().HostileSuite()
	if err != nil {
		return nil, 0, err
	}
	var out []audit.HostileResult
	failed := 0
	for _, a := range attacks {
		r, err := a.Run()
		if err != nil {
			return nil, 0, err
		}
		if r.Verdict != "PASS" {
			failed++
		}
		out = append(out, r)
	}
	return out, failed, nil
}

// runHostile is `dppub audit hostile-coordinator`.
func runHostile(cmd *cobra.Command, f *auditFlags) error {
	rs, failed, err := runHostileAttacks()
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	if err := printJSONOr(w, f.asJSON, rs, func() { printHostile(w, rs, true) }); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("audit: %d of %d hostile-coordinator attacks were not refused or charged at their true cost", failed, len(rs))
	}
	return nil
}

// printHostile prints one line an attack (with what the member said when
// long).
func printHostile(w io.Writer, rs []audit.HostileResult, long bool) {
	fmt.Fprintf(w, "%-16s %-42s %-26s %-26s %s\n", "method", "hostile coordinator's attack", "member did", "must", "verdict")
	for _, r := range rs {
		fmt.Fprintf(w, "%-16s %-42s %-26s %-26s %s\n", r.Method, r.Name, r.Got, r.Expect, r.Verdict)
		if long {
			fmt.Fprintf(w, "    the coordinator %s\n    the member: %s\n", r.Attempt, shorten(r.Detail, 200))
		}
	}
	fmt.Fprintf(w, "%d attacks, each tried once (deterministic: no confidence level)\n", len(rs))
}

// shorten shortens s to at most n runes for a terminal line.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
