package data

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dppub/dppub/randx"
)

// seqTable has n rows whose single numeric cell is the row number, and
// IDs "r<i>".
func seqTable(n int) *Table {
	t := &Table{Schema: Schema{ID: "id", Attributes: []Attribute{
		{Name: "i", Kind: Numeric, Min: 0, Max: float64(n), Integer: true},
		{Name: "b", Kind: Binary, Categories: []string{"no", "yes"}},
	}}}
	for i := range n {
		t.Rows = append(t.Rows, []float64{float64(i), float64(i % 2)})
		t.IDs = append(t.IDs, fmt.Sprintf("r%d", i))
	}
	return t
}

func TestSplitHorizontal(t *testing.T) {
	tab := seqTable(103)
	parts, err := SplitHorizontal(tab, 4, nil, randx.NewSeeded(5))
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	var all []float64
	for _, p := range parts {
		sizes = append(sizes, p.Len())
		col, _ := p.Column("i")
		all = append(all, col...)
		for k, id := range p.IDs {
			if id != fmt.Sprintf("r%d", int(p.Rows[k][0])) {
				t.Fatalf("ID %s travelled without its row %v", id, p.Rows[k])
			}
		}
	}
	if !slices.Equal(sizes, []int{26, 26, 26, 25}) {
		t.Fatalf("sizes %v", sizes)
	}
	sorted := slices.Sorted(slices.Values(all))
	orig, _ := tab.Column("i")
	if !slices.Equal(sorted, orig) {
		t.Fatal("parts are not a partition of the rows")
	}
	if slices.Equal(all, orig) {
		t.Fatal("rows were not shuffled")
	}
	again, _ := SplitHorizontal(tab, 4, nil, randx.NewSeeded(5))
	for i := range parts {
		if !parts[i].Equal(again[i]) {
			t.Fatal("same seed, different split")
		}
	}
	parts[0].Rows[0][0] = -1
	if slices.Contains(orig, -1) || tab.Rows[int(again[0].Rows[0][0])][0] == -1 {
		t.Fatal("parts share memory with the table")
	}
	custom, err := SplitHorizontal(tab, 3, []int{1, 2, 100}, randx.NewSeeded(5))
	if err != nil || custom[0].Len() != 1 || custom[2].Len() != 100 {
		t.Fatalf("custom sizes: %v", err)
	}
}

func TestSplitHorizontalErrors(t *testing.T) {
	tab := seqTable(3)
	src := randx.NewSeeded(1)
	cases := []struct {
		parts int
		sizes []int
		want  string
	}{
		{0, nil, "at least 1"},
		{4, nil, "would get 0 rows"},
		{2, []int{1, 1}, "sum to 2"},
		{2, []int{3, 0}, "would get 0 rows"},
		{2, []int{1, 1, 1}, "3 sizes for 2 parts"},
	}
	for _, c := range cases {
		if _, err := SplitHorizontal(tab, c.parts, c.sizes, src); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("SplitHorizontal(%d, %v): %v, want %q", c.parts, c.sizes, err, c.want)
		}
	}
	if _, err := SplitHorizontal(tab, 1, nil, nil); err == nil {
		t.Error("nil source accepted")
	}
}

func TestTrainTestSplit(t *testing.T) {
	tab := seqTable(10)
	train, test, err := TrainTestSplit(tab, 0.7, randx.NewSeeded(2))
	if err != nil || train.Len() != 7 || test.Len() != 3 {
		t.Fatalf("%v %v %v", train, test, err)
	}
	for _, f := range []float64{0, 1, -0.5, 0.01, 0.99} {
		if _, _, err := TrainTestSplit(tab, f, randx.NewSeeded(2)); err == nil {
			t.Errorf("train fraction %g accepted", f)
		}
	}
}

func TestSplitVertical(t *testing.T) {
	tab := personTable(t)
	parts, err := SplitVertical(tab, [][]string{{"age", "w"}, {"color"}, {"sex", "x"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range parts {
		if !slices.Equal(p.IDs, tab.IDs) || p.Len() != tab.Len() {
			t.Fatalf("part lost IDs or rows: %v", p.IDs)
		}
	}
	if got := strings.Join(parts[0].Schema.Names(), ","); got != "age,w" {
		t.Fatalf("part 0 names %s", got)
	}
	if c, _ := parts[1].Column("color"); !slices.Equal(c, []float64{0, 2, 1}) {
		t.Fatalf("color %v", c)
	}
	bad := map[string][][]string{
		"in groups 0 and 1": {{"age"}, {"age"}},
		`"nope"`:            {{"nope"}},
		"group 1 is empty":  {{"age"}, {}},
		"no groups":         nil,
	}
	for want, groups := range bad {
		if _, err := SplitVertical(tab, groups); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("SplitVertical(%v): %v, want %q", groups, err, want)
		}
	}
}

func TestTableHelpers(t *testing.T) {
	tab := personTable(t)
	if counts, err := tab.Counts("color"); err != nil || !slices.Equal(counts, []int{1, 1, 1}) {
		t.Fatalf("Counts = %v, %v", counts, err)
	}
	if c, err := tab.Category(1, "color"); err != nil || c != "blue" {
		t.Fatalf("Category = %q, %v", c, err)
	}
	both, err := Concat(tab, tab)
	if err != nil || both.Len() != 6 || both.IDs[3] != "p1" {
		t.Fatalf("Concat: %v", err)
	}
	sub, _ := tab.SelectColumns("age")
	if _, err := Concat(tab, sub); err == nil {
		t.Fatal("Concat of different schemas accepted")
	}
	if _, err := tab.Column("nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("Column(nope): %v", err)
	}
	if err := tab.Validate(); err != nil {
		t.Fatal(err)
	}
	tab.IDs = tab.IDs[:1]
	if err := tab.Validate(); err == nil {
		t.Fatal("ID count mismatch accepted")
	}
}

func TestEvenColumnGroups(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e"}
	cases := []struct {
		parties int
		want    string
	}{
		{1, "a b c d e"},
		{2, "a b|c d e"},
		{3, "a|b c|d e"},
		{5, "a|b|c|d|e"},
	}
	for _, c := range cases {
		t.Run(strconv.Itoa(c.parties), func(t *testing.T) {
			groups, err := EvenColumnGroups(names, c.parties)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, g := range groups {
				got = append(got, strings.Join(g, " "))
			}
			if s := strings.Join(got, "|"); s != c.want {
				t.Fatalf("groups %s, want %s", s, c.want)
			}
		})
	}
	for _, k := range []int{0, 6, -1} {
		if _, err := EvenColumnGroups(names, k); err == nil || !strings.Contains(err.Error(), "among "+strconv.Itoa(k)+" parties") {
			t.Errorf("EvenColumnGroups(%d parties): %v", k, err)
		}
	}
	parts, err := SplitVerticalEven(personTable(t), 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 2 || len(parts[0].Schema.Attributes)+len(parts[1].Schema.Attributes) != len(personTable(t).Schema.Attributes) {
		t.Fatalf("SplitVerticalEven: %d parts", len(parts))
	}
}

// CommonIDs keeps the IDs every table holds, sorted, whatever each
// table's row order, and counts an ID repeated within a table once.
func TestCommonIDs(t *testing.T) {
	ids := func(s ...string) *Table { return &Table{IDs: s} }
	for _, c := range []struct {
		name   string
		tables []*Table
		want   []string
	}{
		{"one table", []*Table{ids("b", "a")}, []string{"a", "b"}},
		{"own orders", []*Table{ids("c", "a", "b"), ids("b", "c", "d"), ids("d", "c", "b")}, []string{"b", "c"}},
		{"repeated within one", []*Table{ids("a", "a", "b"), ids("b")}, []string{"b"}},
		{"none in common", []*Table{ids("a"), ids("b")}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := CommonIDs(c.tables); !slices.Equal(got, c.want) {
				t.Errorf("CommonIDs = %q, want %q", got, c.want)
			}
		})
	}
}
