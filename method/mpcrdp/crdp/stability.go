package crdp

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/dppub/dppub/randx"
)

// StabilityInput is one party's data for stability selection: its encoded
// feature columns, which columns belong to which feature, and the labels.
type StabilityInput struct {
	X      *Sparse
	Groups [][]int // Groups[f] lists feature f's columns of X
	Y      []int
}

// StabilityCounts runs the L1 selector runs times and counts, per feature,
// the runs that give any of its columns a non-zero weight. With disjoint
// set, the runs use a random partition of the records into runs blocks
// (subsample-and-aggregate: one record touches one run); otherwise each run
// draws a subsample of half the records without replacement (Meinshausen &
// Bühlmann 2010). The penalty of a run is lambdaRatio·LambdaMax of its own
// rows. Runs execute in parallel, each with its own child of src.
func StabilityCounts(in StabilityInput, runs int, disjoint bool, lambdaRatio float64, src *randx.Source) ([]int, error) {
	n := in.X.Len()
	if n != len(in.Y) {
		return nil, fmt.Errorf("mpcrdp: stability selection on %d rows with %d labels", n, len(in.Y))
	}
	if runs < 1 || (disjoint && n < runs) || (!disjoint && n < 2) {
		return nil, fmt.Errorf("mpcrdp: %d stability runs over %d records", runs, n)
	}
	perm := src.Perm(n)
	blocks := make([][]int, runs)
	for r := range runs {
		if disjoint {
			blocks[r] = perm[r*n/runs : (r+1)*n/runs]
		} else {
			blocks[r] = src.Perm(n)[:n/2]
		}
	}
	selected := make([][]bool, runs)
	errs := make([]error, runs)
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for r := range runs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			selected[r], errs[r] = selectOnce(in, blocks[r], lambdaRatio)
		}()
	}
	wg.Wait()
	counts := make([]int, len(in.Groups))
	for r := range runs {
		if errs[r] != nil {
			return nil, errs[r]
		}
		for f, s := range selected[r] {
			if s {
				counts[f]++
			}
		}
	}
	return counts, nil
}

// selectOnce fits the L1 selector on some rows and reports which features
// it keeps.
func selectOnce(in StabilityInput, rows []int, lambdaRatio float64) ([]bool, error) {
	X := in.X.Subset(rows)
	y := make([]int, len(rows))
	for k, i := range rows {
		y[k] = in.Y[i]
	}
	w, _, err := FitL1Logistic(X, y, L1Options{Lambda: lambdaRatio * LambdaMax(X, y)})
	if err != nil {
		return nil, err
	}
	out := make([]bool, len(in.Groups))
	for f, cols := range in.Groups {
		for _, j := range cols {
			if w[j] != 0 {
				out[f] = true
			}
		}
	}
	return out, nil
}
