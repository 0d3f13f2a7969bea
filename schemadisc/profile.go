package schemadisc

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dppub/dppub/data"
)

// profile is what a column's text says about its structure. It is read
// without noise: these are the structural facts the report lists as not
// covered by DP.
type profile struct {
	kind     data.Kind
	integer  bool
	decimals int
	// numbers holds the parsed values of a numeric column; values the
	// non-missing text of any column.
	numbers []float64
	values  []string
	missing int
	// pair is the category list of a binary column, negative first.
	pair []string
	// distinct counts the distinct non-missing values.
	distinct int
}

// binaryPairs are the spellings read as a binary column, negative first
// (matched without regard to case; the file's own spelling is kept).
var binaryPairs = [][2]string{{"0", "1"}, {"no", "yes"}, {"false", "true"}, {"n", "y"}, {"f", "t"}}

// profileColumn infers the kind of one column from its text.
func profileColumn(col []string, maxDecimals int) profile {
	p := profile{kind: data.Numeric, integer: true}
	seen := map[string]bool{}
	for _, v := range col {
		if data.IsMissing(v) {
			p.missing++
			continue
		}
		p.values = append(p.values, v)
		seen[v] = true
	}
	p.distinct = len(seen)
	for _, v := range p.values {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			p.kind, p.numbers, p.integer, p.decimals = data.Categorical, nil, false, 0
			break
		}
		p.numbers = append(p.numbers, x)
		if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			p.integer = false
		}
		p.decimals = max(p.decimals, fractionDigits(v))
	}
	if p.kind == data.Numeric && p.integer {
		p.decimals = 0
	}
	p.decimals = min(p.decimals, maxDecimals)
	if pair := matchPair(seen); pair != nil {
		p.kind, p.pair, p.integer, p.decimals, p.numbers = data.Binary, pair, false, 0, nil
	}
	return p
}

// fractionDigits counts the digits after the decimal point of a number
// written without an exponent (0 for one written with an exponent: it is
// then written back exactly rather than to a guessed precision).
func fractionDigits(s string) int {
	if strings.ContainsAny(s, "eE") {
		return 0
	}
	if _, frac, ok := strings.Cut(s, "."); ok {
		return len(frac)
	}
	return 0
}

// matchPair returns the binary category list when the distinct values are
// exactly one of binaryPairs.
func matchPair(seen map[string]bool) []string {
	if len(seen) != 2 {
		return nil
	}
	vals := make([]string, 0, 2)
	for v := range seen {
		vals = append(vals, v)
	}
	slices.Sort(vals)
	for _, pair := range binaryPairs {
		for _, order := range [][2]int{{0, 1}, {1, 0}} {
			if strings.EqualFold(vals[order[0]], pair[0]) && strings.EqualFold(vals[order[1]], pair[1]) {
				return []string{vals[order[0]], vals[order[1]]}
			}
		}
	}
	return nil
}
