package roles

import (
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/method/ppcadpmh/ppca"
	"github.com/dppub/dppub/protocol"
	"gonum.org/v1/gonum/mat"
)

// TestSinkTakesRowsInOwnerOrder runs a session whose owners are asked
// for their rows last owner first, interleaved chunk by chunk (as a
// network may deliver them), into a curator with a sink: the curator
// sends the model to one owner at a time, each once every row of the
// owners before it is in, and the sink must see exactly the rows a
// curator without one holds after an in-order run, in the same order,
// each chunk with its owner and first row.
func TestSinkTakesRowsInOwnerOrder(t *testing.T) {
	// p = 16 makes a chunk 32768 rows: 33000 rows are 2 chunks per owner.
	pr := params(3, 16, Local, ppca.Laplace)
	const rows = 33000

	_, want, _ := publish(t, pr, rows, 5)

	owners, _ := newOwners(t, pr, rows, 5)
	cur, _ := NewCurator(pr)
	var got []float64
	next := map[string]int{}
	var order []string
	cur.SetSink(func(owner string, first int, m *mat.Dense) error {
		if first != next[owner] {
			t.Fatalf("%s: chunk from row %d, want %d", owner, first, next[owner])
		}
		k, _ := m.Dims()
		next[owner] += k
		if len(order) == 0 || order[len(order)-1] != owner {
			order = append(order, owner)
		}
		got = append(got, m.RawMatrix().Data...)
		return nil
	})
	byID := map[string]protocol.Role{cur.ID(): cur}
	var queue []protocol.Envelope
	for _, o := range owners {
		byID[o.ID()] = o
	}
	for _, id := range append([]string{cur.ID()}, pr.Owners...) {
		out, err := byID[id].Start()
		if err != nil {
			t.Fatal(err)
		}
		queue = append(queue, out...)
	}
	live := slices.Clone(owners)
	slices.Reverse(live)
	models := 0
	for turn := 0; len(queue) > 0 || len(live) > 0; turn++ {
		if len(queue) == 0 {
			// One chunk from each owner in turn, last owner first.
			k := turn % len(live)
			out, err := live[k].More()
			if err != nil {
				t.Fatal(err)
			}
			if live[k].Done() {
				live = slices.Delete(live, k, k+1)
			}
			queue = append(queue, out...)
			continue
		}
		e := queue[0]
		queue = queue[1:]
		if e.Type == TypeModel {
			// Every owner before this one has delivered all its rows.
			for _, o := range pr.Owners[:slices.Index(pr.Owners, e.To)] {
				if next[o] != rows {
					t.Fatalf("the model went to %s with %d of %s's %d rows in", e.To, next[o], o, rows)
				}
			}
			models++
		}
		out, err := byID[e.To].Handle(e)
		if err != nil {
			t.Fatal(err)
		}
		queue = append(queue, out...)
	}
	res, err := cur.Result()
	if err != nil {
		t.Fatal(err)
	}
	if res.Synthetic != nil {
		t.Fatal("a curator with a sink kept the rows")
	}
	if !slices.Equal(order, pr.Owners) {
		t.Fatalf("sink saw owners in order %v, want %v", order, pr.Owners)
	}
	if !slices.Equal(got, want.Synthetic.RawMatrix().Data) {
		t.Fatalf("sink rows (%d values) differ from the whole run's (%d)", len(got), len(want.Synthetic.RawMatrix().Data))
	}
	if models != len(pr.Owners) {
		t.Fatalf("the curator sent %d models to %d owners", models, len(pr.Owners))
	}
}

// A curator with a sink refuses rows from an owner whose turn has not
// come (it was not sent the model): they could only be held, and a
// network run would then hold up to all but one owner's rows.
func TestSinkRefusesRowsOutOfTurn(t *testing.T) {
	pr := params(3, 4, Local, ppca.Laplace)
	owners, _ := newOwners(t, pr, 10, 6)
	cur, _ := NewCurator(pr)
	cur.SetSink(func(string, int, *mat.Dense) error { return nil })
	var models []protocol.Envelope
	for _, o := range owners {
		stats, err := o.Start()
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range stats {
			out, err := cur.Handle(e)
			if err != nil {
				t.Fatal(err)
			}
			models = append(models, out...)
		}
	}
	if len(models) != 1 || models[0].To != pr.Owners[0] {
		t.Fatalf("after the statistics the curator sent %d models (want 1, to %s)", len(models), pr.Owners[0])
	}
	for _, c := range []struct {
		name, from string
		want       string
	}{
		{"later owner", pr.Owners[2], "out of its turn"},
		{"next owner", pr.Owners[1], "out of its turn"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, err := protocol.Seal(pr.Session, c.from, pr.Curator, Rows{P: 4, First: 0, Data: make([]float64, 4)})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cur.Handle(e); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("rows from %s: got %v, want an error containing %q", c.from, err, c.want)
			}
		})
	}
}
