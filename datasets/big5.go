package datasets

import (
	"strconv"
	"strings"

	"github.com/dppub/dppub/data"
)

var big5Spec = spec{
	info: Info{
		Name: "big5",
		Description: "Open Psychometrics Big Five (IPIP) answers, c. 2012: 7 demographics and 50 " +
			"Likert items (1-5, 0 = missed); no label",
		License: "none stated in the files; commonly reported as CC BY-NC-SA 4.0 (openpsychometrics.org), unverified",
		Source:  "Open-Source Psychometrics Project, BIG5.zip (data.csv, codebook.txt)",
		Rows:    19719,
		Columns: 57,
	},
	schema: big5Schema,
	files:  []string{"data.csv"}, // tab-separated despite the name
	opts: data.ReadOptions{
		Header: true,
		// 0 = missed is a declared answer code, so no cell is "missing"; the
		// one empty country and the 369 "(nu" (a truncated "(null)") read
		// as country "other", like any code outside the declared list.
		MissingTokens: []string{},
		OtherCategory: map[string]string{"country": big5OtherCountry},
	},
}

// big5Items are the 50 questionnaire items in file order.
var big5Items = func() []string {
	var items []string
	for _, trait := range []string{"E", "N", "A", "C", "O"} {
		for i := 1; i <= 10; i++ {
			items = append(items, trait+strconv.Itoa(i))
		}
	}
	return items
}()

// big5OtherCountry is the category of country codes outside the declared
// list (and of unknown locations).
const big5OtherCountry = "other"

// big5Countries is the declared country domain: the 249 ISO 3166-1
// alpha-2 codes, then the GeoIP pseudo-codes A1 (anonymous proxy), A2
// (satellite provider), AP (Asia/Pacific) and EU (Europe) that IP-based
// location reports, then "other". It is a public list, not the set of
// codes present in the data.
var big5Countries = append(strings.Fields(`
AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ
BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ
CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ
DE DJ DK DM DO DZ
EC EE EG EH ER ES ET
FI FJ FK FM FO FR
GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY
HK HM HN HR HT HU
ID IE IL IM IN IO IQ IR IS IT
JE JM JO JP
KE KG KH KI KM KN KP KR KW KY KZ
LA LB LC LI LK LR LS LT LU LV LY
MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ
NA NC NE NF NG NI NL NO NP NR NU NZ
OM
PA PE PF PG PH PK PL PM PN PR PS PT PW PY
QA
RE RO RS RU RW
SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ
TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ
UA UG UM US UY UZ
VA VC VE VG VI VN VU
WF WS
YE YT
ZA ZM ZW
A1 A2 AP EU`), big5OtherCountry)

// big5Schema declares every column as categorical over the codebook's
// answer codes, except age.
//   - race 0..13, engnat 0..2, gender 0..3, hand 0..3: codebook codes,
//     0 = missed.
//   - age: numeric [13, 100]. The codebook says ages under 13 were not
//     recorded; 100 is a round cap on a human age. The file holds absurd
//     typed-in ages (up to 999999999) that are kept and clamped by the
//     encoder.
//   - source 1..6: the codebook lists 1-4 and 6 ("other"), but the file
//     uses 5 and never 6; both are declared.
//   - country: see big5Countries.
//   - E1..O10: Likert 1..5, 0 = missed.
func big5Schema() data.Schema {
	s := data.Schema{Attributes: []data.Attribute{
		categorical("race", codes(0, 13)...),
		integer("age", 13, 100),
		categorical("engnat", codes(0, 2)...),
		categorical("gender", codes(0, 3)...),
		categorical("hand", codes(0, 3)...),
		categorical("source", codes(1, 6)...),
		categorical("country", big5Countries...),
	}}
	for _, item := range big5Items {
		s.Attributes = append(s.Attributes, categorical(item, codes(0, 5)...))
	}
	return s
}
