package audits

import "github.com/dppub/dppub/audit"

// Audits are MP-CRDP's audits, as audit/catalog lists them: each of its
// mechanisms, its whole release, and the hostile-coordinator attacks on
// its parties.
func Audits() audit.Family {
	fam := audit.Collect(addMechanisms)
	fam.AddHostile("mp-crdp", mpcrdpHostileAttacks)
	return fam
}
