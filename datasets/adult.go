package datasets

import (
	"strconv"

	"github.com/dppub/dppub/data"
)

var adultSpec = spec{
	info: Info{
		Name: "adult",
		Description: "UCI Adult (1994 US census extract): 15 attributes, income >50K as label; " +
			"adult.data and adult.test joined, the 3620 rows with a missing value dropped",
		License:  "CC BY 4.0 (UCI Machine Learning Repository)",
		Source:   "UCI Machine Learning Repository, Adult (Becker & Kohavi, 1996)",
		Label:    "income",
		Rows:     45222,
		Columns:  15,
		Embedded: true,
	},
	schema: adultSchema,
	files:  []string{"adult.data", "adult.test"},
	opts: data.ReadOptions{
		Comma:            ',', // fields are separated by ", "; the reader trims the space
		SkipLinePrefixes: []string{"|"},
		StripSuffix:      ".", // adult.test writes its labels "<=50K." and ">50K."
	},
}

// adultSchema declares Adult's attributes in file order. Categories are in
// the order adult.names lists them. Numeric bounds and why they are
// public:
//   - age [17, 90]: the extraction kept AAGE > 16 (adult.names); the CPS
//     top-codes age at 90.
//   - fnlwgt [0, 1500000]: a round cap on the CPS final weight (the number
//     of people a respondent stands for), far above any state's weights.
//   - education-num [1, 16]: the code of the 16 education levels.
//   - capital-gain [0, 99999]: the CPS top-code for capital gains.
//   - capital-loss [0, 5000]: a round cap; adult.names gives no range and
//     the published file's losses stay below it.
//   - hours-per-week [1, 99]: the extraction kept HRSWK > 0; the CPS
//     top-codes hours at 99.
func adultSchema() data.Schema {
	return data.Schema{Attributes: []data.Attribute{
		integer("age", 17, 90),
		categorical("workclass", "Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov",
			"Local-gov", "State-gov", "Without-pay", "Never-worked"),
		integer("fnlwgt", 0, 1500000),
		categorical("education", "Bachelors", "Some-college", "11th", "HS-grad", "Prof-school",
			"Assoc-acdm", "Assoc-voc", "9th", "7th-8th", "12th", "Masters", "1st-4th", "10th",
			"Doctorate", "5th-6th", "Preschool"),
		integer("education-num", 1, 16),
		categorical("marital-status", "Married-civ-spouse", "Divorced", "Never-married",
			"Separated", "Widowed", "Married-spouse-absent", "Married-AF-spouse"),
		categorical("occupation", "Tech-support", "Craft-repair", "Other-service", "Sales",
			"Exec-managerial", "Prof-specialty", "Handlers-cleaners", "Machine-op-inspct",
			"Adm-clerical", "Farming-fishing", "Transport-moving", "Priv-house-serv",
			"Protective-serv", "Armed-Forces"),
		categorical("relationship", "Wife", "Own-child", "Husband", "Not-in-family",
			"Other-relative", "Unmarried"),
		categorical("race", "White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"),
		categorical("sex", "Female", "Male"),
		integer("capital-gain", 0, 99999),
		integer("capital-loss", 0, 5000),
		integer("hours-per-week", 1, 99),
		categorical("native-country", "United-States", "Cambodia", "England", "Puerto-Rico",
			"Canada", "Germany", "Outlying-US(Guam-USVI-etc)", "India", "Japan", "Greece", "South",
			"China", "Cuba", "Iran", "Honduras", "Philippines", "Italy", "Poland", "Jamaica",
			"Vietnam", "Mexico", "Portugal", "Ireland", "France", "Dominican-Republic", "Laos",
			"Ecuador", "Taiwan", "Haiti", "Columbia", "Hungary", "Guatemala", "Nicaragua",
			"Scotland", "Thailand", "Yugoslavia", "El-Salvador", "Trinadad&Tobago", "Peru", "Hong",
			"Holand-Netherlands"),
		binary("income", "<=50K", ">50K"),
	}}
}

// Helpers shared by the schema declarations.

func integer(name string, lo, hi float64) data.Attribute {
	return data.Attribute{Name: name, Kind: data.Numeric, Min: lo, Max: hi, Integer: true}
}

func continuous(name string, lo, hi float64) data.Attribute {
	return data.Attribute{Name: name, Kind: data.Numeric, Min: lo, Max: hi}
}

func categorical(name string, categories ...string) data.Attribute {
	return data.Attribute{Name: name, Kind: data.Categorical, Categories: categories}
}

func binary(name, negative, positive string) data.Attribute {
	return data.Attribute{Name: name, Kind: data.Binary, Categories: []string{negative, positive}}
}

// codes returns the categories "lo", ..., "hi" of a numerically coded
// answer.
func codes(lo, hi int) []string {
	out := make([]string, 0, hi-lo+1)
	for c := lo; c <= hi; c++ {
		out = append(out, strconv.Itoa(c))
	}
	return out
}
