package schemadisc

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/randx"
)

// sparseTable writes a table like word frequencies: cols numeric columns,
// column j exactly 0 with probability 0.6 + 0.39·j/(cols−1) (so 60% to
// 99% zeros), else lognormal with σ = 1 in natural log and a median
// between 0.1 and 10 that varies with j, written with 3 decimals (at
// least 0.001); and a label "class", "spam" with probability 0.4, else
// "ham". Deterministic in seed.
func sparseTable(seed uint64, rows, cols int) *data.Raw {
	rng := rand.New(rand.NewPCG(seed, 38))
	raw := &data.Raw{}
	for j := range cols {
		raw.Header = append(raw.Header, fmt.Sprintf("w%02d", j))
	}
	raw.Header = append(raw.Header, "class")
	for range rows {
		rec := make([]string, 0, cols+1)
		for j := range cols {
			zero := 0.6 + 0.39*float64(j)/float64(cols-1)
			v := 0.0
			if rng.Float64() >= zero {
				median := math.Pow(10, -1+2*math.Mod(0.37*float64(j), 1))
				v = math.Max(median*math.Exp(rng.NormFloat64()), 0.001)
			}
			rec = append(rec, strconv.FormatFloat(v, 'f', 3, 64))
		}
		if rng.Float64() < 0.4 {
			rec = append(rec, "spam")
		} else {
			rec = append(rec, "ham")
		}
		raw.Records = append(raw.Records, rec)
	}
	return raw
}

// discoverSparse discovers, at ε = 1 seeded by seed, the schema of
// sparseTable(seed, rows, cols) with its label "class", and returns the
// categories it kept for the label.
func discoverSparse(t *testing.T, seed uint64, rows, cols int) (*data.Raw, *Result, []string) {
	t.Helper()
	raw := sparseTable(seed, rows, cols)
	res, err := Discover(raw, Options{Epsilon: 1, Source: randx.NewSeeded(seed), Label: "class"})
	if err != nil {
		t.Fatal(err)
	}
	class, _ := res.Schema.Attribute("class")
	return raw, res, class.Categories
}

// bothClasses reports whether the sparse table's label kept both its
// classes (each about 40% or 60% of the rows).
func bothClasses(categories []string) bool {
	return slices.Contains(categories, "spam") && slices.Contains(categories, "ham")
}

// quantile is the q quantile of xs (the value at rank ⌈q·n⌉).
func quantile(xs []float64, q float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	return s[max(int(math.Ceil(q*float64(len(s))))-1, 0)]
}

func numbers(t *testing.T, raw *data.Raw, name string) []float64 {
	t.Helper()
	p := profileColumn(raw.Column(slices.Index(raw.Header, name)), 6)
	return p.numbers
}

// The done-when: on a 4000-row table of 50 columns that are 60%
// to 99% exact zeros, with a two-class label, ε = 1 keeps both classes
// and gives every numeric column an upper bound at or above its 95%
// quantile (so at most 5% of its values clamped), on every one of 8
// tables (400 columns). Measured on the same generator over other seeds
// (TestMeasureSparseBounds: 1,600 tables, 80,000 columns), 1 column fell
// below its 95% quantile (1.25·10⁻⁵ a column, below 5.9·10⁻⁵ at 95%
// confidence), so this test fails falsely with probability about 0.5%
// (below 2.4%); no class was dropped in any run.
func TestDiscoverSparseTable(t *testing.T) {
	if testing.Short() {
		t.Skip("8 tables of 4000 rows: slow")
	}
	const rows, cols = 4000, 50
	var clampedSum, clampedMax float64
	// Seeds 1000, 1002, 1015, 1019 and 1027 are tables on which the code
	// before the two-round search put a bound below the 95% quantile
	// (w43 at [0, 1], w42 at [0, 0.0001], w28 at [0, 1], w44 at [0, 0.01],
	// w24 at [0, 10]).
	for _, seed := range []uint64{1, 2, 3, 1000, 1002, 1015, 1019, 1027} {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			raw, res, classes := discoverSparse(t, seed, rows, cols)
			if !bothClasses(classes) {
				t.Errorf("class categories %q: a class of 40%% of %d rows dropped", classes, rows)
			}
			for k, a := range res.Schema.Attributes {
				if a.Kind != data.Numeric {
					continue
				}
				xs := numbers(t, raw, a.Name)
				q95, q995 := quantile(xs, 0.95), quantile(xs, 0.995)
				_, above := clampedShares(xs, a.Min, a.Max)
				if !(a.Max >= q95) {
					t.Errorf("%s: bounds [%v, %v] below the 95%% quantile %v (99.5%%: %v): %.1f%% clamped; %s",
						a.Name, a.Min, a.Max, q95, q995, 100*above, res.Columns[k].Note)
				}
				clampedSum += above
				clampedMax = math.Max(clampedMax, above)
				if seed == 1 {
					t.Logf("%s: [%v, %v], q95 %v, q99.5 %v, max %v; clamped %.2f%% (estimated %.2f%% ± %.2f%%)",
						a.Name, a.Min, a.Max, q95, q995, slices.Max(xs), 100*above, 100*res.Columns[k].Clamped, 100*res.Columns[k].ClampedSD)
				}
			}
			if seed == 1 {
				t.Log(res.Plan)
			}
		})
	}
	t.Logf("clamped above the upper bound: mean %.2f%%, largest %.2f%% of a column", 100*clampedSum/(8*cols), 100*clampedMax)
}

// On 476 rows (the small table) at ε = 1 the budget cannot give
// usable bounds for 57 numeric columns: the plan, decided from n and ε
// alone, spends nothing on them and says each needs a person's bounds,
// and gives the label the budget, which keeps both classes.
func TestDiscoverSmallSparseTable(t *testing.T) {
	raw := sparseTable(5, 476, 57)
	res, err := Discover(raw, Options{Epsilon: 1, Source: randx.NewSeeded(5), Label: "class"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Schema.Draft {
		t.Fatal("a schema without bounds is not marked draft")
	}
	for k, a := range res.Schema.Attributes {
		c := res.Columns[k]
		switch a.Kind {
		case data.Numeric:
			if !math.IsNaN(a.Max) || !c.Review || !strings.Contains(c.Note, "NEEDS YOUR BOUNDS") {
				t.Errorf("%s: [%v, %v], review %v: %s", a.Name, a.Min, a.Max, c.Review, c.Note)
			}
		case data.Categorical:
			if !slices.Contains(a.Categories, "spam") || !slices.Contains(a.Categories, "ham") || c.Review {
				t.Errorf("class %q: %s", a.Categories, c.Note)
			}
		}
	}
	ch := res.Report.Parties[0].Charges
	if len(ch) != 1 || !strings.Contains(ch[0].Purpose, "bounds of 0 numeric and category lists of 1 text") {
		t.Fatalf("charges %+v", ch)
	}
	t.Log(res.Plan)
	t.Log(res.Columns[0].Note)
	t.Log(res.Columns[len(res.Columns)-1].Note)
}

// A two-class label at ε = 0.5 on 4601 rows beside 57 numeric columns
// (the table: both classes were dropped) keeps both classes, and
// so does a class holding 5% of the rows: with the label's budget sized
// for that, missing it has probability below 10⁻⁶ per run.
func TestCategoriesKeepVisibleClasses(t *testing.T) {
	for _, c := range []struct {
		name  string
		share float64
	}{{"40/60", 0.4}, {"5/95", 0.05}} {
		t.Run(c.name, func(t *testing.T) {
			pl, err := newPlan(4601, 57, 1, 0.5, 1/(4601.0*4601))
			if err != nil {
				t.Fatal(err)
			}
			rare := int(c.share * 4601)
			values := append(slices.Repeat([]string{"spam"}, rare), slices.Repeat([]string{"ham"}, 4601-rare)...)
			for seed := range uint64(20) {
				sel, err := Categories(dpNoiser(seed), values, 1/math.Sqrt(pl.rhoCategory), pl.deltaSelect)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(sel.Kept, []string{"ham", "spam"}) {
					t.Fatalf("seed %d: kept %q (threshold %.0f rows, the rarer class %d)", seed, sel.Kept, sel.Threshold, rare)
				}
			}
		})
	}
}

func dpNoiser(seed uint64) *dp.Noiser { return dp.NewNoiser(randx.NewSeeded(seed)) }
