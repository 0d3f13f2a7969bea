package pdpmvds

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/method/synthesize"
	"github.com/dppub/dppub/randx"
)

// linkParties splits the first n Adult rows (all when n is 0) vertically
// among 3 parties, with IDs; each party lacks a different 10% of the rows
// and holds its rows in its own order. It returns the parts and the full
// table with IDs.
func linkParties(t *testing.T, n int) ([]*data.Table, *data.Table) {
	t.Helper()
	full, err := datasets.Load("adult")
	if err != nil {
		t.Fatal(err)
	}
	if n > 0 {
		full = full.Subset(linkSeq(n))
	}
	full.Schema.ID = "person"
	full.IDs = make([]string, full.Len())
	for i := range full.IDs {
		full.IDs[i] = fmt.Sprintf("p%06d", i)
	}
	parts, err := synthesize.VerticalSplit(full, 3)
	if err != nil {
		t.Fatal(err)
	}
	src := randx.NewSeeded(17)
	perm := src.Perm(full.Len())
	tenth := full.Len() / 10
	for k, p := range parts {
		missing := map[int]bool{}
		for _, r := range perm[k*tenth : (k+1)*tenth] {
			missing[r] = true
		}
		var keep []int
		for r := range full.Len() {
			if !missing[r] {
				keep = append(keep, r)
			}
		}
		src.Shuffle(len(keep), func(a, b int) { keep[a], keep[b] = keep[b], keep[a] })
		parts[k] = p.Subset(keep)
	}
	return parts, full
}

func linkSeq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// prealigned is the intersection aligned by hand: the full table's rows
// of the given IDs, in that order, split like the parties' and without
// IDs.
func prealigned(t *testing.T, full *data.Table, order []string) []*data.Table {
	t.Helper()
	pos := map[string]int{}
	for i, id := range full.IDs {
		pos[id] = i
	}
	rows := make([]int, len(order))
	for j, id := range order {
		rows[j] = pos[id]
	}
	parts, err := synthesize.VerticalSplit(full.Subset(rows), 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range parts {
		p.Schema.ID, p.IDs = "", nil
	}
	return parts
}

// checkLinked runs the linkage and checks that every party keeps exactly
// the IDs all three hold, in one order, and that the linked tables equal
// the intersection pre-aligned by hand in that order. It returns them.
func checkLinked(t *testing.T, parts []*data.Table, full *data.Table) ([]*data.Table, []*data.Table) {
	t.Helper()
	linked, rows, rep, err := link(context.Background(), parts, randx.NewSeeded(5))
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, p := range parts {
		for _, id := range p.IDs {
			count[id]++
		}
	}
	want := 0
	for _, c := range count {
		if c == len(parts) {
			want++
		}
	}
	// Each party lacks a different tenth: 70% are common.
	if rep.Common != want || want != full.Len()-3*(full.Len()/10) {
		t.Fatalf("report says %d common, the parties share %d of %d", rep.Common, want, full.Len())
	}
	var order []string
	for _, r := range rows[0] {
		order = append(order, parts[0].IDs[r])
	}
	for k, p := range parts {
		var ids []string
		for _, r := range rows[k] {
			ids = append(ids, p.IDs[r])
		}
		if !slices.Equal(ids, order) {
			t.Fatalf("party %d's common rows are not in party 1's order", k+1)
		}
		if rep.Records[rep.Parties[k]] != p.Len() {
			t.Errorf("report: party %d holds %d rows, it holds %d", k+1, rep.Records[rep.Parties[k]], p.Len())
		}
	}
	hand := prealigned(t, full, order)
	for k := range linked {
		if !linked[k].Equal(hand[k]) {
			t.Fatalf("party %d's linked table differs from the intersection aligned by hand", k+1)
		}
	}
	if !strings.Contains(rep.Assumption, "Diffie–Hellman") || len(rep.Reveals) == 0 {
		t.Errorf("report without its assumption or leakage: %+v", rep)
	}
	return linked, hand
}

// TestLinkAdultSubset links the first 3000 Adult rows held by 3 parties
// of columns, each lacking a different 10%, and checks that PDP-MVDS on
// the linked tables publishes the same synthetic table as on the
// intersection aligned by hand in the common order, for the same seed.
func TestLinkAdultSubset(t *testing.T) {
	parts, full := linkParties(t, 3000)
	linked, hand := checkLinked(t, parts, full)
	run := func(tables []*data.Table) *data.Table {
		r, err := Publish(context.Background(), Options{Tables: tables, Budgets: []float64{0.5, 0.5, 0.5},
			Source: randx.NewSeeded(23), Settings: Settings{EngineSettings: method.EngineSettings{Rounds: 5}}})
		if err != nil {
			t.Fatal(err)
		}
		return r.Synthetic
	}
	a, b := run(linked), run(hand)
	if a.Len() == 0 || !a.Equal(b) {
		t.Errorf("PDP-MVDS on the linked tables (%d rows) differs from the run on the hand-aligned intersection (%d rows)", a.Len(), b.Len())
	}
}

// TestLinkAdult links all 45 222 Adult rows (about 40 000 IDs per party).
func TestLinkAdult(t *testing.T) {
	if testing.Short() {
		t.Skip("links 3 × 40 000 IDs (about 360 000 scalar multiplications); skipped with -short")
	}
	parts, full := linkParties(t, 0)
	checkLinked(t, parts, full)
}

// badLinkParties are linkParties(t, n) and two bad replacements of its
// later parties: party 2 without an ID column, party 3 with a repeated ID.
func badLinkParties(t *testing.T, n int) (parts []*data.Table, noIDs, dup *data.Table) {
	t.Helper()
	parts, _ = linkParties(t, n)
	bare := *parts[1]
	bare.Schema.ID, bare.IDs = "", nil
	return parts, &bare, parts[2].Subset(append(linkSeq(parts[2].Len()), 0))
}

func TestLinkRefusals(t *testing.T) {
	parts, noIDs, dup := badLinkParties(t, 100)
	for _, c := range []struct {
		name, want string
		tables     []*data.Table
	}{
		{"one table", "need at least 2", parts[:1]},
		{"no ID column", "party 2's table has no ID column", []*data.Table{parts[0], noIDs, parts[2]}},
		{"repeated ID", "IDs must be distinct", []*data.Table{parts[0], parts[1], dup}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, _, err := Link(context.Background(), c.tables, randx.NewSeeded(1)); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error saying %q", err, c.want)
			}
		})
	}
}

// A session lays out its domain once and carries it to every use (each
// party's Join, the coordinator, the report), where it was derived 2m+5
// times a run for m parties; the session the linkage completes lays out
// its own, with the record count the linkage found.
func TestSessionLaysOutOnce(t *testing.T) {
	parts, _ := linkParties(t, 100)
	names := []string{"party-1", "party-2", "party-3"}
	var schemas []data.Schema
	for _, p := range parts {
		schemas = append(schemas, p.Schema)
	}
	for _, link := range []bool{false, true} {
		t.Run(fmt.Sprintf("link=%v", link), func(t *testing.T) {
			st := &Settings{Rho: 1, Delta: 1e-6, Link: link}
			if !link {
				st.Records = 100
			}
			st.SetDefaults()
			sess, err := Spec.Open(st, method.Open{ID: "s", Coordinator: RoleSynthesizer, Schemas: sessionSchemas(schemas, link),
				Members: map[string][]string{method.RoleOwner: names, RoleThirdParty: {"third"}}})
			if err != nil {
				t.Fatal(err)
			}
			s := sess.(*Session)
			if link {
				if s.laid != nil {
					t.Fatal("a linked session laid out its domain before the linkage counted the records")
				}
				if s, err = s.WithRecords(90); err != nil {
					t.Fatal(err)
				}
			}
			first, _, ps, err := s.layout()
			if err != nil {
				t.Fatal(err)
			}
			again, _, _, _ := s.layout()
			if s.laid == nil || first != again {
				t.Fatal("the session derived its domain again instead of carrying it")
			}
			if want := map[bool]int{false: 100, true: 90}[link]; ps.Records != want {
				t.Errorf("the layout counts %d records, want %d", ps.Records, want)
			}
		})
	}
}

// sessionSchemas are the parties' public schemas, without their ID
// column unless the session links the records.
func sessionSchemas(schemas []data.Schema, link bool) []data.Schema {
	out := slices.Clone(schemas)
	if !link {
		for k := range out {
			out[k].ID = ""
		}
	}
	return out
}

// CommonIDs keeps the IDs every table holds, sorted, whatever each
// table's order.
func TestCommonIDs(t *testing.T) {
	a := &data.Table{IDs: []string{"c", "a", "b", "e"}}
	b := &data.Table{IDs: []string{"b", "d", "e", "c"}}
	if got := CommonIDs([]*data.Table{a, b}); !slices.Equal(got, []string{"b", "c", "e"}) {
		t.Errorf("common IDs %v, want [b c e]", got)
	}
}
