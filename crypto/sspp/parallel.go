package sspp

import (
	"io"
	"runtime"
	"sync"

	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/randx"
)

// workersFor bounds goroutines for a loop over n cheap items (words).
func workersFor(n, workers int) int {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return max(1, min(workers, n/256+1))
}

// heavyWorkers bounds goroutines for a loop over n expensive items
// (Paillier operations).
func heavyWorkers(n, workers int) int {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return max(1, min(workers, n))
}

// chunks runs f on w contiguous ranges [lo, hi) covering [0, n), one
// goroutine each; chunk boundaries do not depend on scheduling.
func chunks(n, w int, f func(k, lo, hi int)) {
	w = max(1, min(w, n))
	var wg sync.WaitGroup
	for k := range w {
		lo, hi := k*n/w, (k+1)*n/w
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(k, lo, hi)
		}()
	}
	wg.Wait()
}

// tryEach runs f on every item i of [0, n) over w workers (chunks),
// worker k taking its items in order and stopping at its first error;
// it returns the first error in worker order, so the error, like the
// chunks, does not depend on scheduling.
func tryEach(n, w int, f func(k, i int) error) error {
	errs := make([]error, max(1, w))
	chunks(n, w, func(k, lo, hi int) {
		for i := lo; i < hi; i++ {
			if err := f(k, i); err != nil {
				errs[k] = err
				return
			}
		}
	})
	return firstErr(errs)
}

// readers returns one independent reader per worker, derived from src in
// order so that seeded runs stay reproducible.
func readers(src *randx.Source, w int) []io.Reader {
	out := make([]io.Reader, w)
	for i := range out {
		out[i] = paillier.NewReader(src.Child())
	}
	return out
}

// firstErr returns the first non-nil error of the workers.
func firstErr(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
