package audit

import (
	"fmt"
	"math"
	"sync"

	"github.com/dppub/dppub/randx"
)

// chunkSize is the number of releases drawn from one child source. Chunks
// are fixed before any worker starts, so results do not depend on the
// number of workers.
const chunkSize = 512

// samples holds the statistic of every release of one batch, by side.
type samples struct {
	stats [2][]float64
}

// sampler runs a mechanism in parallel and reports progress.
type sampler struct {
	m        Mechanism
	workers  int
	progress *progress
}

type chunk struct {
	side     Side
	from, to int
	src      *randx.Source
}

// batch releases runs times on each side and keeps the statistics.
func (s *sampler) batch(runs int, parent *randx.Source) (*samples, error) {
	b := &samples{}
	var chunks []chunk
	for _, side := range []Side{D, DPrime} {
		b.stats[side] = make([]float64, runs)
		for from := 0; from < runs; from += chunkSize {
			chunks = append(chunks, chunk{side: side, from: from, to: min(from+chunkSize, runs), src: parent.Child()})
		}
	}
	jobs := make(chan chunk)
	errs := make(chan error, s.workers)
	var wg sync.WaitGroup
	for range s.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range jobs {
				if err := s.run(c, b.stats[c.side][c.from:c.to]); err != nil {
					errs <- err
					for range jobs { // drain so the feeder finishes
					}
					return
				}
			}
		}()
	}
	for _, c := range chunks {
		jobs <- c
	}
	close(jobs)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	return b, nil
}

// run fills dst with the statistics of len(dst) releases on c.side.
func (s *sampler) run(c chunk, dst []float64) error {
	out := make([]float64, s.m.Dim)
	for i := range dst {
		clear(out)
		if err := s.m.Release(c.side, c.src, out); err != nil {
			return fmt.Errorf("audit: %s on %v: %w", s.m.Name, c.side, err)
		}
		v := out[0]
		if s.m.Statistic != nil {
			v = s.m.Statistic(out)
		}
		if math.IsNaN(v) {
			return fmt.Errorf("audit: %s on %v: the statistic is NaN", s.m.Name, c.side)
		}
		dst[i] = v
	}
	s.progress.add(len(dst))
	return nil
}
