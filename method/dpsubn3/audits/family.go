package audits

import (
	"fmt"

	"github.com/dppub/dppub/audit"
	dpsubn3spec "github.com/dppub/dppub/method/dpsubn3"
)

// Audits are DP-SUBN3's audits, as audit/catalog lists them: one party's
// update, the whole pipeline, and the hostile-coordinator attacks on its
// parties.
func Audits() audit.Family {
	fam := audit.Collect(addUpdate)
	fam.AddPipeline(dpsubn3spec.Name, fmt.Sprintf("the whole DP-SUBN3 pipeline (%d owners of rows taking turns, ε = %g each) on a canary pair in owner 1's rows",
		audit.PipelineOwners, audit.PipelineEpsilon), PipelineDPSUBN3)
	fam.AddHostile(dpsubn3spec.Name, dpsubn3HostileAttacks)
	return fam
}
