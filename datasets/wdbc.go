package datasets

import "github.com/dppub/dppub/data"

var wdbcSpec = spec{
	info: Info{
		Name: "wdbc",
		Description: "Wisconsin Diagnostic Breast Cancer: 30 features of cell nuclei from " +
			"fine-needle aspirate images, diagnosis B (benign) or M (malignant)",
		License:  "CC BY 4.0 (UCI Machine Learning Repository)",
		Source:   "UCI Machine Learning Repository, Breast Cancer Wisconsin (Diagnostic) (Wolberg, Street, Mangasarian)",
		Label:    "diagnosis",
		Rows:     569,
		Columns:  31,
		Embedded: true,
	},
	schema: wdbcSchema,
	files:  []string{"wdbc.data"},
	opts:   data.ReadOptions{Comma: ','}, // columns: id, diagnosis, 30 features
}

// wdbcMeasures are the ten nuclear measures of wdbc.names, in order, with
// round caps for their mean (and "worst", the mean of the three largest,
// which is at least the mean) and for their standard error. wdbc.names
// publishes no ranges, so the caps are fixed, generous round values
// derived from what each measure is: radius in pixels of a nucleus image,
// perimeter and area following from it (2πr, πr²), texture a standard
// deviation of 8-bit gray levels, and the shape measures (smoothness,
// compactness, concavity, concave points, symmetry, fractal dimension)
// dimensionless ratios well below 1 or 2. The published data lie inside
// them (no value is clamped).
var wdbcMeasures = []struct {
	name        string
	meanCap, se float64
}{
	{"radius", 50, 5},
	{"texture", 60, 5},
	{"perimeter", 300, 30},
	{"area", 5000, 600},
	{"smoothness", 0.3, 0.05},
	{"compactness", 1.5, 0.2},
	{"concavity", 1.5, 0.5},
	{"concave_points", 0.5, 0.1},
	{"symmetry", 1, 0.1},
	{"fractal_dimension", 0.3, 0.05},
}

// wdbcSchema declares the file's columns after the ID: diagnosis, then
// the ten means, the ten standard errors and the ten worst values.
func wdbcSchema() data.Schema {
	s := data.Schema{ID: "id", Attributes: []data.Attribute{categorical("diagnosis", "B", "M")}}
	for _, stat := range []string{"mean", "se", "worst"} {
		for _, m := range wdbcMeasures {
			hi := m.meanCap
			if stat == "se" {
				hi = m.se
			}
			s.Attributes = append(s.Attributes, continuous(m.name+"_"+stat, 0, hi))
		}
	}
	return s
}
