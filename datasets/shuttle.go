package datasets

import (
	"strconv"

	"github.com/dppub/dppub/data"
)

var shuttleSpec = spec{
	info: Info{
		Name: "shuttle",
		Description: "Statlog Shuttle: 9 integer sensor features, Class with 7 levels (heavily imbalanced); " +
			"a stand-in for Sensorless Drive Diagnosis",
		License: "CC BY 4.0 (UCI Machine Learning Repository); mlbench package GPL-2",
		Source:  "UCI Statlog (Shuttle) (Jason Catlett), via R package mlbench 2.1-3",
		Label:   "Class",
		Rows:    58000,
		Columns: 10,
	},
	schema: shuttleSchema,
	files:  []string{"shuttle.csv"},
	opts:   data.ReadOptions{Header: true},
}

// shuttleCaps are symmetric or one-sided round caps for V1..V9. The UCI
// documentation does not say what the features measure, so these are
// generous round values fixed once for this public benchmark (a data
// owner with private data must declare bounds from domain knowledge).
var shuttleCaps = [9][2]float64{
	{0, 200}, {-10000, 10000}, {0, 200}, {-10000, 10000}, {-500, 500},
	{-30000, 30000}, {-200, 200}, {-500, 500}, {-500, 500},
}

// shuttleSchema: Class levels in the order of their UCI codes 1..7.
func shuttleSchema() data.Schema {
	s := data.Schema{}
	for i, c := range shuttleCaps {
		s.Attributes = append(s.Attributes, integer("V"+strconv.Itoa(i+1), c[0], c[1]))
	}
	s.Attributes = append(s.Attributes, categorical("Class",
		"Rad.Flow", "Fpv.Close", "Fpv.Open", "High", "Bypass", "Bpv.Close", "Bpv.Open"))
	return s
}
