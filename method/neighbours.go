package method

import "github.com/dppub/dppub/dp"

// CheckNeighbours is the settings check of a method's `neighbours` key:
// nil when nb (empty meaning replace-one) is one of the relations the
// method's sensitivities are derived for, and otherwise a FieldError on
// `neighbours` saying which it accepts, so that the command line names
// the flag. synthesize-rows and pdp-mvds accept replace-one only: a
// method refuses a relation it has no derivation for rather than guess.
func CheckNeighbours(command string, nb dp.Neighbours, supported ...dp.Neighbours) error {
	if err := nb.Check(); err != nil {
		return Fieldf("neighbours", "%v", err)
	}
	if err := nb.Only(command, supported...); err != nil {
		return Fieldf("neighbours", "%v", err)
	}
	return nil
}
