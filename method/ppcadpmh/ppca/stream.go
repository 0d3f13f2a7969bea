package ppca

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/dppub/dppub/data"
	"gonum.org/v1/gonum/mat"
)

// TableMoments computes the exact Moments of t's rows as enc encodes
// them, in one pass that encodes each row on the fly into its nonzero
// entries (no n×p matrix: memory depends on p, not on n). The rows are
// split into contiguous ranges, one per core (workers ≤ 0: GOMAXPROCS),
// whose sums merge exactly, so the result does not depend on the split.
// It also returns how many numeric cells were clamped into their bounds.
func TableMoments(t *data.Table, enc *data.Encoder, workers int) (*Moments, int, error) {
	if t.Len() == 0 {
		return nil, 0, fmt.Errorf("ppca: cannot compute the moments of an empty table")
	}
	re, err := enc.RowEncoder(t.Schema)
	if err != nil {
		return nil, 0, err
	}
	parts := make([]*Moments, splitWorkers(t.Len(), workers))
	clamped := make([]int, len(parts))
	errs := make([]error, len(parts))
	parallel(t.Len(), len(parts), func(w, lo, hi int) {
		m := NewMoments(enc.Dim())
		var idx []int
		var val []float64
		for i := lo; i < hi; i++ {
			var c int
			idx, val, c, errs[w] = re.Sparse(t.Rows[i], idx[:0], val[:0])
			if errs[w] != nil {
				errs[w] = fmt.Errorf("ppca: row %d: %w", i, errs[w])
				return
			}
			clamped[w] += c
			m.AddSparse(idx, val)
		}
		parts[w] = m
	})
	for _, err := range errs {
		if err != nil {
			return nil, 0, err
		}
	}
	total, c := parts[0], clamped[0]
	for w := 1; w < len(parts); w++ {
		total.Merge(parts[w])
		c += clamped[w]
	}
	return total, c, nil
}

// DenseMoments computes the exact Moments of the rows of X (every entry
// in [0, 1]) on workers cores (≤ 0: GOMAXPROCS), skipping zero entries.
func DenseMoments(X *mat.Dense, workers int) *Moments {
	n, p := X.Dims()
	parts := make([]*Moments, splitWorkers(n, workers))
	parallel(n, len(parts), func(w, lo, hi int) {
		m := NewMoments(p)
		for i := lo; i < hi; i++ {
			m.AddDense(X.RawRowView(i))
		}
		parts[w] = m
	})
	total := parts[0]
	for _, m := range parts[1:] {
		total.Merge(m)
	}
	return total
}

// splitWorkers is the number of goroutines for n rows: one below 4096
// rows, where starting more costs more than it saves.
func splitWorkers(n, workers int) int {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if n < 4096 {
		return 1
	}
	return max(1, min(workers, n))
}

// parallel runs f on workers contiguous ranges of [0, n) and waits.
func parallel(n, workers int, f func(w, lo, hi int)) {
	chunk := (n + workers - 1) / workers
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(w, min(w*chunk, n), min((w+1)*chunk, n))
		}()
	}
	wg.Wait()
}
