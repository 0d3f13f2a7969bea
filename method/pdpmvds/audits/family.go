package audits

import (
	"fmt"

	"github.com/dppub/dppub/audit"
	pdpspec "github.com/dppub/dppub/method/pdpmvds"
)

// Audits are PDP-MVDS's audits, as audit/catalog lists them: its
// distributed noise, the whole protocol run, the run from inside, and the
// hostile-coordinator attacks on its parties.
func Audits() audit.Family {
	var fam audit.Family
	addNoise(&fam)
	fam.AddPipeline(pdpspec.Name, fmt.Sprintf("the whole PDP-MVDS protocol run (%d parties of columns, ρ = %g each, commodity suite) on a canary pair; claim: the report's whole-record guarantee",
		audit.PipelineParties, audit.PipelineRho), PipelinePDPMVDS)
	addView(&fam)
	fam.AddHostile(pdpspec.Name, pdpHostileAttacks)
	return fam
}
