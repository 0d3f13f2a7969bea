// Which grey-box audits the suite runs, and with how many releases each.

package audit

import (
	"fmt"
	"strings"
)

// GreyBoxRuns is the default number of grey-box releases per dataset for a
// release of dim coordinates: the method's fast runs, at most 20,000 and
// at most 200,000/dim but at least 2,000 (in long mode its long runs, at
// most 200,000 and 2,000,000/dim but at least 20,000). The grey-box test
// has no search batch and pools the coordinates of a release, and a
// floating-point leak is a large TV, so fewer runs than Run's suffice.
func (m Method) GreyBoxRuns(dim int, long bool) int {
	dim = max(dim, 1)
	if long {
		return min(m.LongRuns, 200_000, max(20_000, 2_000_000/dim))
	}
	return min(m.FastRuns, 20_000, max(2_000, 200_000/dim))
}

// GreyBoxSuite is the set of grey-box audits run in CI and by `dppub audit
// all`: every registered method at its default options and at the options
// of each case of Suite(long), once each, all expected to PASS (no release
// keeps low-order bits of its data).
func (c *Catalog) GreyBoxSuite(long bool) []Case {
	var cases []Case
	seen := map[string]bool{}
	add := func(k Case) {
		if WholeRun(k.Method) {
			return
		}
		k.Expect, k.Long = Pass, false
		if key := k.Key(); !seen[key] {
			seen[key] = true
			cases = append(cases, k)
		}
	}
	for _, m := range c.methods {
		add(Case{Method: m.Name, Options: MethodOptions{Calibration: m.Calibrations[0]}})
	}
	for _, k := range c.Suite(long) {
		if k.Options.Calibration == "" {
			meth, err := c.Lookup(k.Method)
			if err != nil {
				panic(err) // the suite names registered methods
			}
			k.Options.Calibration = meth.Calibrations[0]
		}
		add(k)
	}
	return cases
}

// WholeRun says that an audit runs a whole pipeline or protocol (its
// output is a synthetic table or a party's view, post-processing of the
// releases the other audits check one by one): the grey-box audit of
// released values does not apply to it.
func WholeRun(method string) bool {
	return strings.HasPrefix(method, "pipeline-") || strings.HasPrefix(method, "view-")
}

// Key names the case: the method and its non-default options.
func (c Case) Key() string {
	parts := []string{c.Method}
	o := c.Options
	for _, kv := range [][2]string{{"", o.Calibration}, {"", o.Mechanism}, {"part=", o.Part}, {"view=", string(o.View)}, {"noise=", o.Noise}} {
		if kv[1] != "" {
			parts = append(parts, kv[0]+kv[1])
		}
	}
	if o.Owners != 0 {
		parts = append(parts, fmt.Sprintf("owners=%d", o.Owners))
	}
	if o.P != 0 {
		parts = append(parts, fmt.Sprintf("p=%d", o.P))
	}
	return strings.Join(parts, "/")
}
