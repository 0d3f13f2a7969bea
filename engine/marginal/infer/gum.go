package infer

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/randx"
)

// GUMOptions configure the gradually update method.
type GUMOptions struct {
	// Rows is the number of synthetic records (required).
	Rows int
	// Fit, if positive and below Rows, is how many records GUM fits: it
	// returns Fit records, and the synthetic table's record r is record
	// r mod Fit (Domain.DecodeRows). GUM's time grows with the records it
	// fits (about 30 rounds × every target's attributes passes over them),
	// so a table far larger than the data's detail needs is not fitted
	// record by record; DefaultFit suits the single-owner pipeline.
	Fit int
	// Rounds is the number of passes over all marginals (default 30).
	Rounds int
	// Alpha is the update rate of the first round: the fraction of each
	// cell's surplus moved (default 1); round t uses
	// max(Alpha·Decay^t, MinAlpha).
	Alpha, Decay, MinAlpha float64
	// Duplicate is the probability that a record moved into an
	// under-represented cell becomes a copy of a record already there
	// (keeping its other attributes' correlations) rather than having only
	// the marginal's attributes rewritten (default 0.7).
	Duplicate float64
	// Mode chooses how a multi-attribute target is fitted (default
	// MoveConditional).
	Mode GUMMode
	// Source drives every random choice; the result is a deterministic
	// function of the seed for a seeded Source (required).
	Source *randx.Source
	// Progress, if set, is called after every round.
	Progress func(done, total int)
}

// DefaultFit is the most records the single-owner pipeline has GUM fit
// (GUMOptions.Fit): 2^20, above a million rows. On Adult resampled to
// 10^7 rows GUM then takes about as long as at 10^6, and each fitted
// record stands for about ten synthetic ones.
const DefaultFit = 1 << 20

// Fitted is how many records GUM fits.
func (o *GUMOptions) Fitted() int {
	if o.Fit > 0 && o.Fit < o.Rows {
		return o.Fit
	}
	return o.Rows
}

func (o *GUMOptions) defaults() error {
	if o.Rounds == 0 {
		o.Rounds = 30
	}
	if o.Alpha == 0 {
		o.Alpha = 1
	}
	if o.Decay == 0 {
		o.Decay = 0.95
	}
	if o.MinAlpha == 0 {
		o.MinAlpha = 0.05
	}
	if o.Duplicate == 0 {
		o.Duplicate = 0.7
	}
	switch {
	case o.Rows < 1:
		return fmt.Errorf("infer: gum: rows = %d, need at least 1", o.Rows)
	case o.Rows > math.MaxInt32:
		return fmt.Errorf("infer: gum: rows = %d is too many", o.Rows)
	case o.Fit < 0:
		return fmt.Errorf("infer: gum: fit = %d, need 0 (all rows) or more", o.Fit)
	case o.Mode < MoveConditional || o.Mode > MoveBoth:
		return fmt.Errorf("infer: gum: unknown mode %d", o.Mode)
	case o.Rounds < 0:
		return fmt.Errorf("infer: gum: rounds = %d", o.Rounds)
	case !(o.Alpha > 0 && o.Alpha <= 1), !(o.Decay > 0 && o.Decay <= 1), !(o.MinAlpha > 0 && o.MinAlpha <= 1):
		return fmt.Errorf("infer: gum: rates alpha=%v decay=%v min=%v must be in (0, 1]", o.Alpha, o.Decay, o.MinAlpha)
	case !(o.Duplicate >= 0 && o.Duplicate <= 1):
		return fmt.Errorf("infer: gum: duplicate = %v, need [0, 1]", o.Duplicate)
	case o.Source == nil:
		return fmt.Errorf("infer: gum: a randomness source is required")
	}
	return nil
}

// GUM synthesises Rows records (Fit of them, if set and fewer) over a domain of the given sizes that match
// the target marginals (non-negative; any total): PrivSyn's gradually
// update method. Every attribute is first drawn independently from the
// one-way distribution of the first target containing it (uniform if none
// does); then, for every round and every target in turn, a fraction α of
// each over-represented cell's surplus is moved into under-represented
// cells in proportion to their deficits (see GUMMode for how). It uses
// only the targets, so it is post-processing of whatever they were
// measured under.
func GUM(ctx context.Context, sizes []int, targets []*domain.Marginal, o GUMOptions) (*domain.Dataset, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	for _, t := range targets {
		if err := checkTarget(sizes, t); err != nil {
			return nil, err
		}
	}
	return gum(ctx, sizes, targets, o, runtime.GOMAXPROCS(0), false)
}

// gum is GUM with its passes over the records split among at most workers
// goroutines. With reindex, every update finds the records' cells afresh
// instead of keeping a target's cells across that target's updates. The
// result depends on neither: the tests compare the plain updater (one
// goroutine, reindexing) with the fast one draw for draw.
func gum(ctx context.Context, sizes []int, targets []*domain.Marginal, o GUMOptions, workers int, reindex bool) (*domain.Dataset, error) {
	ds, err := initialDataset(sizes, targets, o.Fitted(), o.Source)
	if err != nil {
		return nil, err
	}
	u := newUpdater(ds, o, workers)
	u.reindex = reindex
	for round := range o.Rounds {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		alpha := math.Max(o.Alpha*math.Pow(o.Decay, float64(round)), o.MinAlpha)
		for _, t := range targets {
			u.fit(t, alpha, o.Mode)
		}
		if o.Progress != nil {
			o.Progress(round+1, o.Rounds)
		}
	}
	return ds, nil
}

// GUMMode chooses the moves GUM makes for a target over two or more
// attributes (one-way targets always use whole-cell moves).
type GUMMode int

const (
	// MoveConditional (the default) fits, for each attribute of the target
	// in turn, its distribution conditional on the target's other
	// attributes, changing only that attribute of the moved records. On
	// Big5, whose 57 attributes each sit in dozens of selected pairs, it
	// lowered the mean 2-way TVD at ρ = 0.5 from 0.065 (MoveCells) to 0.049;
	// on Adult it was as good or better.
	MoveConditional GUMMode = iota
	// MoveCells makes PrivSyn's whole-cell moves: a record of an
	// over-represented cell has all the target's attributes rewritten to
	// an under-represented cell's, or becomes a copy of a record there.
	MoveCells
	// MoveBoth makes the conditional moves, then the whole-cell ones.
	MoveBoth
)

func (u *updater) fit(t *domain.Marginal, alpha float64, mode GUMMode) {
	if len(t.Attrs) == 1 || mode == MoveCells {
		u.update(t, alpha)
		return
	}
	for p := range t.Attrs {
		u.updateAlong(t, p, alpha)
	}
	if mode == MoveBoth {
		u.update(t, alpha)
	}
}

func checkTarget(sizes []int, t *domain.Marginal) error {
	if err := checkFits(sizes, t, "gum: target"); err != nil {
		return err
	}
	for _, c := range t.Counts {
		if !(c >= 0) || math.IsInf(c, 0) {
			return fmt.Errorf("infer: gum: target over %v has count %v (post-process first)", t.Attrs, c)
		}
	}
	if !(t.Total() > 0) {
		return fmt.Errorf("infer: gum: target over %v is empty", t.Attrs)
	}
	return nil
}

// initialDataset draws each attribute independently from its one-way
// target distribution, with exact (stochastically rounded) counts.
func initialDataset(sizes []int, targets []*domain.Marginal, n int, src *randx.Source) (*domain.Dataset, error) {
	ds := domain.NewDataset(sizes, n)
	for j, s := range sizes {
		w := make([]float64, s)
		for i := range w {
			w[i] = 1
		}
		for _, t := range targets {
			if slices.Contains(t.Attrs, j) {
				p, err := t.Project([]int{j})
				if err != nil {
					return nil, err
				}
				w = p.Counts
				break
			}
		}
		col := ds.Cols[j]
		k := 0
		for v, cnt := range apportion(w, n, src) {
			for range cnt {
				col[k] = uint16(v)
				k++
			}
		}
		src.Shuffle(n, func(a, b int) { col[a], col[b] = col[b], col[a] })
	}
	return ds, nil
}

// apportion returns integer counts summing to total in proportion to w
// (systematic sampling: one uniform offset, so each count is the floor or
// ceiling of its share).
func apportion(w []float64, total int, src *randx.Source) []int {
	out := make([]int, len(w))
	sum := 0.0
	for _, v := range w {
		sum += v
	}
	if total == 0 || !(sum > 0) {
		return out
	}
	step := sum / float64(total)
	pos := src.Float64() * step
	cum := 0.0
	given := 0
	for i, v := range w {
		cum += v
		for given < total && pos < cum {
			out[i]++
			given++
			pos += step
		}
	}
	// Rounding can leave the last draw just beyond cum: give it to the
	// heaviest cell.
	if given < total {
		out[slices.Index(w, slices.Max(w))] += total - given
	}
	return out
}

// updater holds the scratch space of GUM's updates. Its passes over the
// records (computing every record's cell, counting, scattering) are split
// into parts, one goroutine each; the counting sort stays stable across
// parts (part q's records of a cell follow part q−1's), so the order, and
// with it every draw, is the same however many parts there are.
type updater struct {
	ds    *domain.Dataset
	src   *randx.Source
	dup   float64
	parts [][2]int  // record ranges, one per worker
	cnt   [][]int32 // per part, records per cell of the current target
	fill  [][]int32 // per part, where its next record of each cell goes
	idx   []int32
	// indexed is the target whose cells idx and cnt hold: the updates of
	// one target move records between its cells knowingly, so the next
	// update of the same target needs no pass to find them.
	indexed *domain.Marginal
	reindex bool // find the cells afresh on every update (see gum)
	order   []int32
	start   []int32
	removed []int32
	copies  [][2]int32 // (destination, source) records to duplicate
	vals    []int
}

// minPart is the fewest records worth a goroutine of their own in a pass.
const minPart = 1 << 15

func newUpdater(ds *domain.Dataset, o GUMOptions, workers int) *updater {
	n := ds.Len()
	p := max(1, min(workers, n/minPart))
	u := &updater{ds: ds, src: o.Source, dup: o.Duplicate,
		cnt: make([][]int32, p), fill: make([][]int32, p),
		idx: make([]int32, n), order: make([]int32, n), removed: make([]int32, 0, n)}
	for q := range p {
		u.parts = append(u.parts, [2]int{q * n / p, (q + 1) * n / p})
	}
	return u
}

// parallel runs f on every part, each in its own goroutine when there are
// several.
func (u *updater) parallel(f func(q, lo, hi int)) {
	if len(u.parts) == 1 {
		f(0, u.parts[0][0], u.parts[0][1])
		return
	}
	var wg sync.WaitGroup
	for q, pr := range u.parts {
		wg.Go(func() { f(q, pr[0], pr[1]) })
	}
	wg.Wait()
}

// grown returns s with length n, reallocated if it is too short.
func grown(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	return s[:n]
}

// sortByCell computes every record's cell of t and counting-sorts the
// records by cell: the records of cell c are order[start[c]:start[c+1]],
// in increasing record order.
func (u *updater) sortByCell(t *domain.Marginal) []int32 {
	cells := t.Cells()
	if u.indexed != t || u.reindex {
		u.parallel(func(q, lo, hi int) {
			cnt := grown(u.cnt[q], cells)
			clear(cnt)
			u.indexAndCount(t, lo, hi, cnt)
			u.cnt[q] = cnt
		})
		u.indexed = t
	}
	u.start = grown(u.start, cells+1)
	start := u.start
	for q := range u.parts {
		u.fill[q] = grown(u.fill[q], cells)
	}
	pos := int32(0)
	for c := range cells {
		start[c] = pos
		for q := range u.parts {
			u.fill[q][c] = pos
			pos += u.cnt[q][c]
		}
	}
	start[cells] = pos
	u.parallel(func(q, lo, hi int) {
		fill, order := u.fill[q], u.order
		for i, c := range u.idx[lo:hi] {
			order[fill[c]] = int32(lo + i)
			fill[c]++
		}
	})
	return start
}

// moved records that record r now lies in cell c of the indexed target.
func (u *updater) moved(r, c int32) {
	q := 0
	for q+1 < len(u.parts) && int(r) >= u.parts[q+1][0] {
		q++
	}
	u.cnt[q][u.idx[r]]--
	u.cnt[q][c]++
	u.idx[r] = c
}

// indexAndCount writes the cell of t of records lo..hi−1 into u.idx and
// adds the cell counts to counts, in one pass for the common one- and
// two-attribute targets.
func (u *updater) indexAndCount(t *domain.Marginal, lo, hi int, counts []int32) {
	idx := u.idx[lo:hi]
	switch len(t.Attrs) {
	case 1:
		col := u.ds.Cols[t.Attrs[0]][lo:hi]
		for i := range idx {
			c := int32(col[i])
			idx[i] = c
			counts[c]++
		}
	case 2:
		a, b := u.ds.Cols[t.Attrs[0]][lo:hi], u.ds.Cols[t.Attrs[1]][lo:hi]
		s := int32(t.Sizes[1])
		b = b[:len(a)]
		for i := range idx {
			c := int32(a[i])*s + int32(b[i])
			idx[i] = c
			counts[c]++
		}
	default:
		col := u.ds.Cols[t.Attrs[0]][lo:hi]
		for i := range idx {
			idx[i] = int32(col[i])
		}
		for k, a := range t.Attrs[1:] {
			s := int32(t.Sizes[k+1])
			col := u.ds.Cols[a][lo:hi]
			for i := range idx {
				idx[i] = idx[i]*s + int32(col[i])
			}
		}
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
func (u *updater) updateAlong(t *domain.Marginal, p int, alpha float64) {
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
				r := u.removed[k]
				u.moved(r, u.idx[r]+int32((v-int(col[r]))*stride))
				col[r] = uint16(v)
				k++
			}
		}
	}
}

// pick appends k random records of seg (all if k ≥ len(seg)) to removed,
// by a partial Fisher–Yates shuffle of seg.
func (u *updater) pick(seg []int32, k int) {
	k = min(k, len(seg))
	for r := range k {
		s := r + u.src.IntN(len(seg)-r)
		seg[r], seg[s] = seg[s], seg[r]
		u.removed = append(u.removed, seg[r])
	}
}

// update moves records of ds towards target t at rate alpha, changing all
// of t's attributes of a moved record (or copying a whole record).
func (u *updater) update(t *domain.Marginal, alpha float64) {
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
				from := members[u.src.IntN(len(members))]
				u.copies = append(u.copies, [2]int32{r, from})
				u.moved(r, u.idx[from])
				continue
			}
			for p, a := range t.Attrs {
				ds.Cols[a][r] = uint16(vals[p])
			}
			u.moved(r, int32(c))
		}
	}
	u.copyRecords()
}

func (u *updater) stochRound(x float64) int {
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
func (u *updater) copyRecords() {
	for _, col := range u.ds.Cols {
		for _, p := range u.copies {
			col[p[0]] = col[p[1]]
		}
	}
}
