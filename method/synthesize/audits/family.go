package audits

import "github.com/dppub/dppub/audit"

// Audits are synthesize's audits, as audit/catalog lists them: the whole
// pipeline with each selection and inference option, and its same-seed
// replay.
func Audits() audit.Family {
	return audit.Collect(addPipelines, addReplay)
}
