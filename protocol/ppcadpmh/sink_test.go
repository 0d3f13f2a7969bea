package ppcadpmh

import (
	"context"
	"slices"
	"testing"

	"github.com/dppub/dppub/algo/ppca"
	"github.com/dppub/dppub/protocol"
	"gonum.org/v1/gonum/mat"
)

// TestSinkTakesRowsInOwnerOrder runs a session whose owners stream their
// rows last owner first, interleaved chunk by chunk (as a network may
// deliver them), into a curator with a sink: the sink must see exactly
// the rows a curator without one holds after an in-order run, in the
// same order, each chunk with its owner and first row.
func TestSinkTakesRowsInOwnerOrder(t *testing.T) {
	// p = 16 makes a chunk 32768 rows: 33000 rows are 2 chunks per owner.
	pr := params(3, 16, Local, ppca.Laplace)
	const rows = 33000

	owners, _ := newOwners(t, pr, rows, 5)
	whole, _ := NewCurator(pr)
	roles := []protocol.Role{whole}
	for _, o := range owners {
		roles = append(roles, o)
	}
	if _, err := protocol.RunLocal(context.Background(), roles...); err != nil {
		t.Fatal(err)
	}
	want, err := whole.Result()
	if err != nil {
		t.Fatal(err)
	}

	owners, _ = newOwners(t, pr, rows, 5)
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
	for _, r := range append([]protocol.Role{cur}, roles[1:]...) {
		out, err := byID[r.ID()].Start()
		if err != nil {
			t.Fatal(err)
		}
		queue = append(queue, out...)
	}
	live := slices.Clone(owners)
	slices.Reverse(live)
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
	if len(cur.early) != 0 {
		t.Fatalf("%d owners' early chunks left undelivered", len(cur.early))
	}
}
