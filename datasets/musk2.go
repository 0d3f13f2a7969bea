package datasets

import (
	"strconv"

	"github.com/dppub/dppub/data"
)

var musk2Spec = spec{
	info: Info{
		Name: "musk2",
		Description: "Musk version 2: 166 integer shape features of molecule conformations, " +
			"target 1 = musk; the molecule and conformation name codes are ignored",
		License: "CC BY 4.0 (UCI Machine Learning Repository); PMLB re-encoding under MIT",
		Source:  "UCI Musk (Version 2) (Arris Pharmaceutical, T. Dietterich), PMLB clean2.tsv.gz",
		Label:   "target",
		Rows:    6598,
		Columns: 167,
	},
	schema: musk2Schema,
	files:  []string{"clean2.tsv"}, // found as clean2.tsv.gz
	opts: data.ReadOptions{
		Header:        true,
		IgnoreColumns: []string{"molecule_name", "conformation_name"},
	},
}

// musk2Schema: f1..f162 are distances along rays from the molecule's
// origin and f164..f166 the oxygen coordinates, all in hundredths of an
// Ångström relative to an origin (so they may be negative); f163 is the
// oxygen distance, non-negative. UCI's description states the unit but
// no range, so ±500 (±5 Å) and [0, 1000] are generous round caps, fixed
// once for this public benchmark.
func musk2Schema() data.Schema {
	s := data.Schema{}
	for i := 1; i <= 166; i++ {
		lo, hi := -500.0, 500.0
		if i == 163 {
			lo, hi = 0, 1000
		}
		s.Attributes = append(s.Attributes, integer("f"+strconv.Itoa(i), lo, hi))
	}
	s.Attributes = append(s.Attributes, binary("target", "0", "1"))
	return s
}
