package ownerstats

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/engine/marginal/domain"
)

// head is the first n rows of a built-in dataset, with a few values
// pushed outside the declared bounds and onto cell edges, so that the
// clamping and the boundaries are exercised.
func head(t *testing.T, name string, n int) *data.Table {
	t.Helper()
	tab, err := datasets.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]int, min(n, tab.Len()))
	for i := range rows {
		rows[i] = i
	}
	tab = tab.Subset(rows)
	for j, a := range tab.Schema.Attributes {
		if a.Kind != data.Numeric {
			continue
		}
		edges := domain.FineEdges(a, 0, 0)
		tab.Rows[0][j] = a.Max + 10
		tab.Rows[1][j] = a.Min - 10
		tab.Rows[2][j] = a.Max
		tab.Rows[3][j] = edges[len(edges)/2]
		tab.Rows[4][j] = edges[1]
	}
	return tab
}

// A synthesize-rows owner's answers from fine statistics equal its table's
// (the histogram on the session's grid; every 1- and 2-way marginal over
// bins chosen from that histogram, or over equal-width bins), and what the
// file cannot answer exactly is refused.
func TestServerEqualsTable(t *testing.T) {
	for _, c := range []struct {
		name       string
		dataset    string
		equalWidth bool
	}{
		{"adult, chosen bins", "adult", false},
		{"adult, equal-width bins", "adult", true},
		{"wdbc, chosen bins", "wdbc", false},
		{"wdbc, equal-width bins", "wdbc", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			tab := head(t, c.dataset, 2000)
			st, err := FromTable(tab, Config{Schema: tab.Schema, Fine: true})
			if err != nil {
				t.Fatal(err)
			}
			b, err := st.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(b, []byte(fileTag2)) {
				t.Fatal("fine statistics were not written as version 2")
			}
			var back Statistics
			if err := back.UnmarshalBinary(b); err != nil || !back.Equal(st) {
				t.Fatalf("file round trip: %v", err)
			}
			sv, err := NewServer(&back, tab.Schema)
			if err != nil {
				t.Fatal(err)
			}
			if sv.Records() != tab.Len() {
				t.Fatalf("%d records, want %d", sv.Records(), tab.Len())
			}
			cuts := map[string][]float64{}
			for j, a := range tab.Schema.Attributes {
				if a.Kind != data.Numeric {
					continue
				}
				got, err := sv.Histogram(j, domain.DefaultGrid)
				if err != nil {
					t.Fatal(err)
				}
				col := make([]float64, tab.Len())
				for i, row := range tab.Rows {
					col[i] = row[j]
				}
				grid := domain.PublicGrid(a, domain.DefaultGrid)
				want := domain.GridCounts(a, grid, col)
				if !slices.Equal(got, want) {
					t.Fatalf("%q: histogram differs from the table's", a.Name)
				}
				cuts[a.Name] = domain.BinsFromHistogram(a, grid, want, float64(tab.Len()), domain.DefaultBins, 0, domain.RefineMeasured).Cuts
			}
			if c.equalWidth {
				cuts = nil
			}
			o := domain.Options{Cuts: cuts}
			if err := sv.SetDomain(o); err != nil {
				t.Fatal(err)
			}
			dom, err := domain.New(tab.Schema, o)
			if err != nil {
				t.Fatal(err)
			}
			ds, _, err := dom.Encode(tab)
			if err != nil {
				t.Fatal(err)
			}
			d := len(tab.Schema.Attributes)
			for a := range d {
				for b := a; b < d; b++ {
					attrs := []int{b, a} // either order, as domain.Count takes it
					if a == b {
						attrs = []int{a}
					}
					got, err := sv.Marginal(attrs)
					if err != nil {
						t.Fatal(err)
					}
					want, err := domain.Count(ds, attrs)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(got.Attrs, want.Attrs) || !slices.Equal(got.Counts, want.Counts) {
						t.Fatalf("marginal %v differs from the table's", attrs)
					}
				}
			}
			if _, err := sv.Marginal([]int{0, 1, 2}); err == nil || !strings.Contains(err.Error(), "3 attributes") {
				t.Fatalf("a 3-way marginal: %v", err)
			}
		})
	}
}

// Requests the fine cells cannot answer exactly are refused: another grid,
// bins whose edges are not fine edges, and files of the equal-width kind.
func TestServerRefuses(t *testing.T) {
	tab := head(t, "wdbc", 300)
	st, err := FromTable(tab, Config{Schema: tab.Schema, Fine: true})
	if err != nil {
		t.Fatal(err)
	}
	sv, err := NewServer(st, tab.Schema)
	if err != nil {
		t.Fatal(err)
	}
	j := slices.IndexFunc(tab.Schema.Attributes, func(a data.Attribute) bool { return a.Kind == data.Numeric && !a.Integer })
	if _, err := sv.Histogram(j, 100); err == nil || !strings.Contains(err.Error(), "straddles") {
		t.Fatalf("a histogram on another grid: %v", err)
	}
	a := tab.Schema.Attributes[j]
	odd := []float64{a.Min, a.Min + (a.Max-a.Min)/3}
	if err := sv.SetDomain(domain.Options{Cuts: map[string][]float64{a.Name: odd}}); err == nil || !strings.Contains(err.Error(), a.Name) {
		t.Fatalf("bins that split fine cells: %v", err)
	}
	if _, err := sv.Marginal([]int{j}); err == nil {
		t.Fatal("a marginal answered without a domain")
	}
	plain, err := FromTable(tab, Config{Schema: tab.Schema})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewServer(plain, tab.Schema); err == nil || !strings.Contains(err.Error(), "fine") {
		t.Fatalf("equal-width statistics served: %v", err)
	}
	b, err := plain.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte(fileTag)) {
		t.Fatal("statistics without fine cells changed their file version")
	}
}
