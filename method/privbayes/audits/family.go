package audits

import "github.com/dppub/dppub/audit"

// Audits are PrivBayes' audits, as audit/catalog lists them: its noisy
// marginals and its structure learning.
func Audits() audit.Family {
	return audit.Collect(addMechanisms)
}
