package audits

import (
	"github.com/dppub/dppub/audit"
	dpsubn3spec "github.com/dppub/dppub/method/dpsubn3"
)

// Audits are DP-SUBN3's audits, as audit/catalog lists them: one party's
// update, the whole pipeline, and the hostile-coordinator attacks on its
// parties.
func Audits() audit.Family {
	fam := audit.Collect(addUpdate, addPipeline)
	fam.AddHostile(dpsubn3spec.Name, dpsubn3HostileAttacks)
	return fam
}
