package infer

import (
	"context"
	"math"
	"testing"

	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/internal/domaintest"
	"github.com/dppub/dppub/randx"
)

// refGUM is GUM as it was before the updater stopped sorting the records
// (a counting sort by cell per update): the reference the faster updater
// must match draw for draw.
func refGUM(ctx context.Context, sizes []int, targets []*domain.Marginal, o GUMOptions) (*domain.Dataset, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	ds, err := initialDataset(sizes, targets, o.Rows, o.Source)
	if err != nil {
		return nil, err
	}
	u := newRefUpdater(ds, o)
	for round := range o.Rounds {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		alpha := math.Max(o.Alpha*math.Pow(o.Decay, float64(round)), o.MinAlpha)
		for _, t := range targets {
			if len(t.Attrs) == 1 || o.Mode == MoveCells {
				u.update(t, alpha)
				continue
			}
			for p := range t.Attrs {
				u.updateAlong(t, p, alpha)
			}
			if o.Mode == MoveBoth {
				u.update(t, alpha)
			}
		}
	}
	return ds, nil
}

// refUpdater is the old updater (see refGUM).
type refUpdater struct {
	ds      *domain.Dataset
	src     *randx.Source
	dup     float64
	idx     []int32
	order   []int32
	start   []int32
	fill    []int32
	removed []int32
	copies  [][2]int32 // (destination, source) records to duplicate
	vals    []int
}

func newRefUpdater(ds *domain.Dataset, o GUMOptions) *refUpdater {
	n := ds.Len()
	return &refUpdater{ds: ds, src: o.Source, dup: o.Duplicate,
		idx: make([]int32, n), order: make([]int32, n), removed: make([]int32, 0, n)}
}

// update moves records of ds towards target t at rate alpha.
// sortByCell computes every record's cell of t and counting-sorts the
// records by cell: the records of cell c are order[start[c]:start[c+1]].
func (u *refUpdater) sortByCell(t *domain.Marginal) []int32 {
	cells := t.Cells()
	if cap(u.start) < cells+1 {
		u.start = make([]int32, cells+1)
		u.fill = make([]int32, cells)
	}
	start, fill := u.start[:cells+1], u.fill[:cells]
	clear(start)
	u.indexAndCount(t, start[1:])
	for c := range cells {
		start[c+1] += start[c]
	}
	copy(fill, start[:cells])
	for i, c := range u.idx {
		u.order[fill[c]] = int32(i)
		fill[c]++
	}
	return start
}

// indexAndCount writes every record's cell of t into u.idx and adds the
// cell counts to counts, in one pass for the common one- and two-attribute
// targets.
func (u *refUpdater) indexAndCount(t *domain.Marginal, counts []int32) {
	idx := u.idx
	switch len(t.Attrs) {
	case 1:
		col := u.ds.Cols[t.Attrs[0]]
		for i := range idx {
			c := int32(col[i])
			idx[i] = c
			counts[c]++
		}
	case 2:
		a, b := u.ds.Cols[t.Attrs[0]], u.ds.Cols[t.Attrs[1]]
		s := int32(t.Sizes[1])
		b = b[:len(a)]
		for i := range idx {
			c := int32(a[i])*s + int32(b[i])
			idx[i] = c
			counts[c]++
		}
	default:
		domain.CellIndex(u.ds, t.Attrs, idx)
		for _, c := range idx {
			counts[c]++
		}
	}
}

// updateAlong moves records of ds towards t at rate alpha by changing
// attribute t.Attrs[p] only: within every slice of cells that agree on
// t's other attributes, the target is rescaled to the slice's current
// total and records move from over- to under-represented cells of the
// slice. It fits the conditional distribution of one attribute given the
// others while leaving every other attribute, and so the correlations not
// involving it, untouched.
func (u *refUpdater) updateAlong(t *domain.Marginal, p int, alpha float64) {
	start := u.sortByCell(t)
	n := u.ds.Len()
	scale := float64(n) / t.Total()
	s := t.Sizes[p]
	stride := 1
	for _, z := range t.Sizes[p+1:] {
		stride *= z
	}
	col := u.ds.Cols[t.Attrs[p]]
	have, want, need := make([]float64, s), make([]float64, s), make([]float64, s)
	for slice := range t.Cells() / s {
		base := (slice/stride)*stride*s + slice%stride
		sumHave, sumWant := 0.0, 0.0
		for v := range s {
			c := base + v*stride
			have[v] = float64(start[c+1] - start[c])
			want[v] = t.Counts[c] * scale
			sumHave += have[v]
			sumWant += want[v]
		}
		if sumHave == 0 || sumWant == 0 {
			continue
		}
		u.removed = u.removed[:0]
		for v := range s {
			diff := want[v]*sumHave/sumWant - have[v]
			need[v] = 0
			if diff > 0 {
				need[v] = alpha * diff
				continue
			}
			c := base + v*stride
			u.pick(u.order[start[c]:start[c+1]], u.stochRound(-alpha*diff))
		}
		if len(u.removed) == 0 {
			continue
		}
		u.src.Shuffle(len(u.removed), func(a, b int) { u.removed[a], u.removed[b] = u.removed[b], u.removed[a] })
		k := 0
		for v, cnt := range apportion(need, len(u.removed), u.src) {
			for range cnt {
				col[u.removed[k]] = uint16(v)
				k++
			}
		}
	}
}

// pick appends k random records of seg (all if k ≥ len(seg)) to removed,
// by a partial Fisher–Yates shuffle of seg.
func (u *refUpdater) pick(seg []int32, k int) {
	k = min(k, len(seg))
	for r := range k {
		s := r + u.src.IntN(len(seg)-r)
		seg[r], seg[s] = seg[s], seg[r]
		u.removed = append(u.removed, seg[r])
	}
}

// update moves records of ds towards target t at rate alpha, changing all
// of t's attributes of a moved record (or copying a whole record).
func (u *refUpdater) update(t *domain.Marginal, alpha float64) {
	ds, n := u.ds, u.ds.Len()
	cells := t.Cells()
	start := u.sortByCell(t)
	scale := float64(n) / t.Total()
	add := make([]float64, cells)
	u.removed = u.removed[:0]
	for c := range cells {
		have := float64(start[c+1] - start[c])
		diff := t.Counts[c]*scale - have
		if diff > 0 {
			add[c] = alpha * diff
			continue
		}
		u.pick(u.order[start[c]:start[c+1]], u.stochRound(-alpha*diff))
	}
	if len(u.removed) == 0 {
		return
	}
	dest := apportion(add, len(u.removed), u.src)
	u.src.Shuffle(len(u.removed), func(a, b int) { u.removed[a], u.removed[b] = u.removed[b], u.removed[a] })
	if cap(u.vals) < len(t.Attrs) {
		u.vals = make([]int, len(t.Attrs))
	}
	vals := u.vals[:len(t.Attrs)]
	u.copies = u.copies[:0]
	k := 0
	for c, cnt := range dest {
		if cnt == 0 {
			continue
		}
		t.Values(c, vals)
		members := u.order[start[c]:start[c+1]]
		for range cnt {
			r := u.removed[k]
			k++
			if len(members) > 0 && u.src.Float64() < u.dup {
				u.copies = append(u.copies, [2]int32{r, members[u.src.IntN(len(members))]})
				continue
			}
			for p, a := range t.Attrs {
				ds.Cols[a][r] = uint16(vals[p])
			}
		}
	}
	u.copyRecords()
}

func (u *refUpdater) stochRound(x float64) int {
	f := math.Floor(x)
	if u.src.Float64() < x-f {
		f++
	}
	return int(f)
}

// copyRecords applies the duplications column by column, so that each
// pass stays within one column's cache lines. Sources lie in
// under-represented cells, which this update never writes, so the order
// of the copies does not matter.
func (u *refUpdater) copyRecords() {
	for _, col := range u.ds.Cols {
		for _, p := range u.copies {
			col[p[0]] = col[p[1]]
		}
	}
}

// The updater makes exactly the moves it made before its passes were
// split among goroutines and before it kept a target's cells across that
// target's updates: draw for draw, in every mode, with one part or
// several (70 000 records make up to two parts of at least minPart).
func TestGUMMatchesSortingUpdater(t *testing.T) {
	cases := []struct {
		name    string
		sizes   []int
		rows    int
		mode    GUMMode
		workers int
		sets    [][]int
	}{
		{"conditional", []int{6, 5, 4, 3}, 3000, MoveConditional, 1, [][]int{{0}, {1}, {0, 1}, {1, 2, 3}}},
		{"cells", []int{6, 5, 4, 3}, 3000, MoveCells, 1, [][]int{{0}, {2}, {0, 1}, {1, 2, 3}}},
		{"both", []int{7, 2, 9}, 2500, MoveBoth, 1, [][]int{{0, 1}, {1, 2}, {0, 2}}},
		{"few rows many cells", []int{40, 30}, 500, MoveBoth, 1, [][]int{{0}, {0, 1}}},
		{"parallel conditional", []int{12, 5, 4, 3}, 70000, MoveConditional, 3, [][]int{{0}, {1}, {0, 1}, {1, 2, 3}, {0, 3}}},
		{"parallel both", []int{12, 5, 4}, 70000, MoveBoth, 2, [][]int{{0, 1}, {1, 2}, {2}}},
		{"one target", []int{5, 4, 3}, 3000, MoveBoth, 1, [][]int{{0, 1, 2}}},
		{"parallel cells", []int{12, 5, 4}, 70000, MoveCells, 2, [][]int{{0, 1}, {2}, {0, 1, 2}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ds := domaintest.RandomDataset(c.sizes, c.rows+17, 0.7, randx.NewSeeded(21))
			targets := exactTargets(t, ds, c.sets...)
			o := GUMOptions{Rows: c.rows, Rounds: 4, Mode: c.mode}
			want, err := refGUM(context.Background(), c.sizes, targets, withSource(o, 5))
			if err != nil {
				t.Fatal(err)
			}
			got, err := gum(context.Background(), c.sizes, targets, withSource(o, 5), c.workers)
			if err != nil {
				t.Fatal(err)
			}
			for j := range c.sizes {
				if i := firstDiff(got.Cols[j], want.Cols[j]); i >= 0 {
					t.Fatalf("attribute %d first differs at record %d of %d: %d, sorting updater %d", j, i, c.rows, got.Cols[j][i], want.Cols[j][i])
				}
			}
		})
	}
}

func withSource(o GUMOptions, seed uint64) GUMOptions {
	o.Source = randx.NewSeeded(seed)
	if err := o.defaults(); err != nil {
		panic(err)
	}
	return o
}

func firstDiff(a, b []uint16) int {
	if len(a) != len(b) {
		return 0
	}
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}
