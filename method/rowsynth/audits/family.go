package audits

import (
	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/method/rowsynth"
)

// Audits are synthesize-rows' audits, as audit/catalog lists them: the
// whole session, its same-seed replay, the session from inside, and the
// hostile-coordinator attacks on its owners.
func Audits() audit.Family {
	fam := audit.Collect(addPipeline, addReplay, addView, addSelect, addCount)
	fam.AddHostile(rowsynth.Name, rowsHostileAttacks)
	return fam
}
