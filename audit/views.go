package audit

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/dppub/dppub/dp"
)

// View is what the adversary of a view audit sees: the coordinator's
// messages, those plus a colluding member's knowledge, or a
// method's own views (Mul-LDA-DP's zero-sum views, PDP-MVDS's
// third party).
type View string

// Views of a multi-party run.
const (
	// ViewCoordinator is what the coordinator (curator) receives.
	ViewCoordinator View = "coordinator"
	// ViewColluder adds what owner 2 knows to the coordinator's view.
	ViewColluder View = "colluder"
	// ViewCoalition adds what every owner but owner 1 knows.
	ViewCoalition View = "coalition"
)

// ReportedGuarantee is the (ε, δ) that pattern (whose two groups are ε
// and δ) finds first among the sentences of a report that contain must:
// the guarantee a report states for a view, which a view audit claims.
// ok is false when no sentence states one.
func ReportedGuarantee(pattern *regexp.Regexp, must string, sentences []string) (g dp.Guarantee, ok bool, err error) {
	for _, s := range sentences {
		if !strings.Contains(s, must) {
			continue
		}
		m := pattern.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		eps, err1 := strconv.ParseFloat(m[1], 64)
		delta, err2 := strconv.ParseFloat(m[2], 64)
		if err1 != nil || err2 != nil {
			return dp.Guarantee{}, false, fmt.Errorf("audit: unreadable guarantee %q in the report", m[0])
		}
		return dp.Approx(eps, delta), true, nil
	}
	return dp.Guarantee{}, false, nil
}
