package audits

import (
	"testing"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/audit/audittest"
)

// PrivBayes' marginals are tight (each of the m tables moves by 2, the
// whole of the 2m/ε calibration), so the bound comes close to ε; the
// structure (ε1 = 10) passes with room to spare, but the pair still moves
// its output measurably (bound above 0.1). Each bound is at most its
// claim (a PASS). Seeded runs; a fresh seed would turn a PASS into a false
// VIOLATION with probability at most 5%.
func TestBayesNetAuditsPass(t *testing.T) {
	audittest.CheckBounds(t, Audits(), []audittest.Bound{
		{Method: "privbayes-marginals", Want: audit.Pass, Lo: 0.7, Hi: 1, Seed: 23},
		{Method: "privbayes-structure", Want: audit.Pass, Lo: 0.1, Hi: 10, Seed: 23},
	})
}
