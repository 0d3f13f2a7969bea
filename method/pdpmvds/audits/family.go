package audits

import (
	"github.com/dppub/dppub/audit"
	pdpspec "github.com/dppub/dppub/method/pdpmvds"
)

// Audits are PDP-MVDS's audits, as audit/catalog lists them: its
// distributed noise, the whole protocol run, the run from inside, and the
// hostile-coordinator attacks on its parties.
func Audits() audit.Family {
	fam := audit.Collect(addNoise, addPipeline, addView)
	fam.AddHostile(pdpspec.Name, pdpHostileAttacks)
	return fam
}
