package schemadisc

import (
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"testing"

	"github.com/dppub/dppub/data"
)

// TestMeasureSparseBounds measures, over DPPUB_SCHEMA_TABLES tables of
// the zero-inflated generator (4000 rows × 50 columns, ε = 1), how often
// an upper bound falls below the column's 95% quantile, and the
// distribution of upper bound ÷ 99.5% quantile (tables seeded from
// 1000 + DPPUB_SCHEMA_FIRST; DPPUB_SCHEMA_SLACK, _SCORE, _STAYZ and
// _SHARE vary the tuning). It is a measurement, run by hand; it asserts
// nothing.
func TestMeasureSparseBounds(t *testing.T) {
	tables, _ := strconv.Atoi(os.Getenv("DPPUB_SCHEMA_TABLES"))
	if tables <= 0 {
		t.Skip("set DPPUB_SCHEMA_TABLES to measure")
	}
	first, _ := strconv.Atoi(os.Getenv("DPPUB_SCHEMA_FIRST"))
	for name, v := range map[string]*float64{"SLACK": &locateSlack, "SCORE": &locateScore, "STAYZ": &stayZ, "SHARE": &firstShare} {
		if x, err := strconv.ParseFloat(os.Getenv("DPPUB_SCHEMA_"+name), 64); err == nil {
			*v = x
		}
	}
	t.Logf("slack %v score %v stayZ %v first %v", locateSlack, locateScore, stayZ, firstShare)
	const rows, cols = 4000, 50
	var ratios []float64
	miss, columns, rough, dropped, notFound := 0, 0, 0, 0, 0
	var clampMax float64
	absurd := map[int]int{}
	for s := range tables {
		seed := uint64(first + 1000 + s)
		raw, res, classes := discoverSparse(t, seed, rows, cols)
		if !bothClasses(classes) {
			dropped++
		}
		for k, a := range res.Schema.Attributes {
			if a.Kind != data.Numeric {
				continue
			}
			columns++
			xs := profileColumn(raw.Column(k), 6).numbers
			q95, q995 := quantile(xs, 0.95), quantile(xs, 0.995)
			_, above := clampedShares(xs, a.Min, a.Max)
			clampMax = math.Max(clampMax, above)
			if math.IsNaN(a.Max) {
				notFound++
				continue
			}
			if strings := res.Columns[k].Note; len(strings) > 0 && res.Columns[k].Warn {
				rough++
			}
			if !(a.Max >= q95) {
				miss++
				t.Logf("miss: seed %d %s nonzero %.1f%%: [%v, %v], q95 %v, q99.5 %v, clamped %.1f%%: %s", seed, a.Name, 100*nonzero(xs), a.Min, a.Max, q95, q995, 100*above, res.Columns[k].Note)
			}
			if q995 > 0 {
				ratios = append(ratios, a.Max/q995)
				if a.Max/q995 > 100 {
					absurd[int(100*nonzero(xs))]++
					if nonzero(xs) > 0.1 && os.Getenv("DPPUB_SCHEMA_SHOW") != "" {
						t.Logf("wide: seed %d %s nonzero %.1f%%: [%v, %v], q95 %v, q99.5 %v, max %v: %s", seed, a.Name, 100*nonzero(xs), a.Min, a.Max, q95, q995, slices.Max(xs), res.Columns[k].Note)
					}
				}
			}
		}
	}
	t.Logf("bounds over 100x the 99.5%% quantile by percent non-zero: %v", absurd)
	sort.Float64s(ratios)
	at := func(q float64) float64 { return ratios[min(int(q*float64(len(ratios))), len(ratios)-1)] }
	over := func(x float64) int { return len(ratios) - sort.SearchFloat64s(ratios, x+1e-12) }
	t.Logf("%d tables, %d columns: %d below their 95%% quantile, %d without bounds, %d warned, %d labels lost a class; largest share clamped %.2f%%",
		tables, columns, miss, notFound, rough, dropped, 100*clampMax)
	t.Logf("upper bound / 99.5%% quantile: min %.3g, 1%% %.3g, 10%% %.3g, median %.3g, 90%% %.3g, 99%% %.3g, 99.9%% %.3g, max %.3g; over 10: %d, over 100: %d, over 1000: %d",
		ratios[0], at(0.01), at(0.1), at(0.5), at(0.9), at(0.99), at(0.999), ratios[len(ratios)-1], over(10), over(100), over(1000))
}

func nonzero(xs []float64) float64 {
	c := 0
	for _, x := range xs {
		if x != 0 {
			c++
		}
	}
	return float64(c) / float64(len(xs))
}
