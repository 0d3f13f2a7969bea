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
	// noise holds the NoiseSample of every release by side, when the
	// mechanism states its Noise.
	noise [2][]NoiseSample
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
	for _, side := range []Side{D, DPrime} {
		b.stats[side] = make([]float64, runs)
		if s.m.Noise != nil {
			b.noise[side] = make([]NoiseSample, runs)
		}
	}
	err := releaseEach(s.m, runs, s.workers, parent, s.progress, func(side Side, run int, out []float64) error {
		v := out[0]
		if s.m.Statistic != nil {
			v = s.m.Statistic(out)
		}
		if math.IsNaN(v) {
			return fmt.Errorf("audit: %s on %v: the statistic is NaN", s.m.Name, side)
		}
		b.stats[side][run] = v
		if s.m.Noise != nil {
			b.noise[side][run] = s.m.Noise(out)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// progress counts releases for Options.Progress.
type progress struct {
	fn    func(done, total int)
	total int
	mu    sync.Mutex
	done  int
}

func (p *progress) add(n int) {
	if p.fn == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	p.fn(p.done, p.total)
}

// releaseEach releases m runs times on each side in parallel, calling
// visit after each release with its side, index and output (out is reused
// afterwards). The chunks and their child sources are fixed before any
// worker starts, so nothing depends on the number of workers.
func releaseEach(m Mechanism, runs, workers int, parent *randx.Source, prog *progress, visit func(side Side, run int, out []float64) error) error {
	var chunks []chunk
	for _, side := range []Side{D, DPrime} {
		for from := 0; from < runs; from += chunkSize {
			chunks = append(chunks, chunk{side: side, from: from, to: min(from+chunkSize, runs), src: parent.Child()})
		}
	}
	jobs := make(chan chunk)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out := make([]float64, m.Dim)
			for c := range jobs {
				if err := releaseChunk(m, c, out, visit); err != nil {
					errs <- err
					for range jobs { // drain so the feeder finishes
					}
					return
				}
				prog.add(c.to - c.from)
			}
		}()
	}
	for _, c := range chunks {
		jobs <- c
	}
	close(jobs)
	wg.Wait()
	close(errs)
	return <-errs
}

func releaseChunk(m Mechanism, c chunk, out []float64, visit func(Side, int, []float64) error) error {
	for run := c.from; run < c.to; run++ {
		clear(out)
		if err := m.Release(c.side, c.src, out); err != nil {
			return fmt.Errorf("audit: %s on %v: %w", m.Name, c.side, err)
		}
		if err := visit(c.side, run, out); err != nil {
			return err
		}
	}
	return nil
}
