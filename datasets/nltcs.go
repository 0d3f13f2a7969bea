package datasets

import "github.com/dppub/dppub/data"

var nltcsSpec = spec{
	info: Info{
		Name: "nltcs",
		Description: "NLTCS: 16 binary disability indicators (6 ADL, 10 IADL; 1 = disabled), " +
			"waves 1982-1994 pooled; no built-in label (the papers predict outside, money, bathing, traveling)",
		License: "NLTCS Data Use Agreement via CMU StatLib (see its redistribution.pdf): " +
			"cite the NLTCS, notify Duke CDS of use, destroy the data on request; not a CC licence",
		Source:   "CMU StatLib, the 2^16 contingency table from the NLTCS (E. A. Erosheva), expanded to rows by ryan112358/hd-datasets",
		Rows:     21574,
		Columns:  16,
		Embedded: true,
	},
	schema: nltcsSchema,
	files:  []string{"nltcs.csv"},
	opts: data.ReadOptions{
		Header: true,
		Rename: nltcsHeader,
	},
}

// nltcsNames are the PrivBayes-style short names, in the column order of
// nltcs.csv (Y1..Y16 of the StatLib description).
var nltcsNames = []string{
	"eating", "bed", "inside", "dressing", "bathing", "toilet", "heavy", "light",
	"laundry", "cooking", "grocery", "outside", "traveling", "money", "medicine", "telephone",
}

// nltcsHeader maps the long names of nltcs.csv's header to the short ones.
var nltcsHeader = map[string]string{
	"getting in/out of bed": "bed",
	"getting around inside": "inside",
	"using toilet":          "toilet",
	"heavy house work":      "heavy",
	"light house work":      "light",
	"grocery shopping":      "grocery",
	"getting about outside": "outside",
	"managing money":        "money",
	"taking medicine":       "medicine",
	"telephoning":           "telephone",
}

func nltcsSchema() data.Schema {
	s := data.Schema{}
	for _, name := range nltcsNames {
		s.Attributes = append(s.Attributes, binary(name, "0", "1"))
	}
	return s
}
