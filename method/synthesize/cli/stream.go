package synthesizecli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/spf13/cobra"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/method/synthesize"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/utility"
)

// synthInput is what synthesize read: a table (a built-in dataset, a
// Parquet file), or records encoded as they were read and never held as
// a table (CSV/TSV), with the real numeric values' counts for the
// owner's summary.
type synthInput struct {
	table   *data.Table
	encoded *synthesize.Encoded
	// values[j] counts numeric attribute j's real values (nil when it
	// had more than maxDistinct distinct values).
	values map[int]utility.ValueCounts
	// tooMany names the numeric attributes left out of values.
	tooMany []string
	// counts are the real rows' marginals as dppub compare counts them
	// (nil until countTable, for a table).
	counts *utility.Joint
}

// countTable counts the marginals of the input held as a table (once
// the release gate's held-out rows have left it).
func (in *synthInput) countTable() error {
	j, err := kit.RealCounts(in.table)
	in.counts = j
	return err
}

func (in *synthInput) schema() data.Schema {
	if in.table != nil {
		return in.table.Schema
	}
	return in.encoded.Domain.Schema()
}

// maxDistinct bounds the distinct values of one numeric column the
// owner's summary counts (its Wasserstein and KS distances need them).
const maxDistinct = 1 << 18

// streamInput reads a CSV/TSV file (or standard input) once, on every
// core, encoding each row into compact per-attribute cells as it is
// parsed (with the domain the run will discretise with, which the
// settings fix) and counting the numeric values. Each core merges the
// records whose cells are identical into one weighted row
// (domain.Tally), and the cores' rows are merged at the end: memory
// grows with the distinct tuples of cells, which the domain bounds, not
// with the number of records; the counts the run takes are those of the
// records one by one. A tuple costs a byte per attribute (two for an
// attribute of more than 256 cells) and 16 bytes more, and when the
// records hardly repeat the tally holds them one by one at the byte per
// cell alone.
func streamInput(notes io.Writer, path string, s data.Schema, skip []string, st *synthesize.Settings) (*synthInput, error) {
	// Most of the heap from here on is the records' cells, which hold no
	// pointers and so cost the collector nothing to mark: collecting when
	// the heap has grown by half of them, not by all of them, keeps the
	// peak well below twice the cells at little cost.
	debug.SetGCPercent(50)
	o := data.ScanOptions{ReadOptions: data.ReadOptions{Header: true, SkipColumns: skip, MinRows: kit.MinOwnerRows}}
	o.Workers = runtime.GOMAXPROCS(0)
	ss := &streamStats{settings: st, ws: make([]*streamTally, o.Workers)}
	var (
		rst data.ReadStats
		err error
	)
	if path == kit.StdinPath {
		o.Name = kit.StdinName
		rst, err = data.Scan(os.Stdin, s, o, ss.start, ss.consume)
	} else {
		rst, err = data.ScanFile(path, s, o, ss.start, ss.consume)
	}
	if err != nil {
		return nil, err
	}
	in, err := ss.input()
	if err != nil {
		return nil, err
	}
	if notes != nil && rst.DroppedMissing > 0 {
		fmt.Fprintf(notes, "%s: %d of %d rows dropped for a missing value (not released)\n", kit.DisplayPath(path, kit.StdinName), rst.DroppedMissing, rst.DroppedMissing+rst.Rows)
	}
	return in, nil
}

// streamStats gathers a streamed input's statistics, one tally per
// worker of data.Scan, merged at the end.
type streamStats struct {
	settings *synthesize.Settings
	dom      *domain.Domain // set by start
	numeric  []int          // the numeric attributes' indices
	ws       []*streamTally
}

// streamTally is one worker's share: its records' cells merged into
// weighted rows, the values it clamped, each numeric attribute's value
// counts (nil once over maxDistinct values) and the quality counts.
type streamTally struct {
	tally   *domain.Tally
	clamped int
	values  []map[float64]int
	counts  *utility.Joint
}

// start fixes the domain the settings give the schema sc and makes every
// worker's tally (data.Scan's start).
func (ss *streamStats) start(sc data.Schema) error {
	d, err := ss.settings.Domain(sc)
	if err != nil {
		return err
	}
	ss.dom = d
	for j, a := range sc.Attributes {
		if a.Kind == data.Numeric {
			ss.numeric = append(ss.numeric, j)
		}
	}
	for w := range ss.ws {
		counts, err := kit.NewQualityCounts(sc)
		if err != nil {
			return err
		}
		ss.ws[w] = &streamTally{tally: domain.NewTally(d.Sizes()), values: make([]map[float64]int, len(ss.numeric)), counts: counts}
		for k := range ss.numeric {
			ss.ws[w].values[k] = map[float64]int{}
		}
	}
	return nil
}

// consume counts worker w's rows into its tally (data.Scan's consume).
func (ss *streamStats) consume(w int, rows [][]float64) error {
	wk := ss.ws[w]
	for k, j := range ss.numeric {
		m := wk.values[k]
		if m == nil {
			continue
		}
		for _, r := range rows {
			m[r[j]]++
		}
		if len(m) > maxDistinct {
			wk.values[k] = nil
		}
	}
	wk.counts.AddRows(rows)
	c, err := wk.tally.AddRows(ss.dom, rows)
	wk.clamped += c
	return err
}

// input merges the workers' tallies into the run's input: the encoded
// records, the quality counts and each numeric attribute's value counts
// (or its name among those with too many values).
func (ss *streamStats) input() (*synthInput, error) {
	in := &synthInput{encoded: &synthesize.Encoded{Domain: ss.dom}, values: map[int]utility.ValueCounts{}}
	var pieces domain.Chunks
	for _, wk := range ss.ws {
		if wk == nil {
			continue
		}
		pieces = append(pieces, wk.tally.Chunks()...)
		in.encoded.Clamped += wk.clamped
		if in.counts == nil {
			in.counts = wk.counts
		} else if err := in.counts.Merge(wk.counts); err != nil {
			return nil, err
		}
	}
	// Tuples that several cores saw are merged into one row.
	var err error
	if in.encoded.Chunks, err = pieces.Merged(); err != nil {
		return nil, err
	}
	for k, j := range ss.numeric {
		h, ok := ss.valueCounts(k)
		if !ok {
			in.tooMany = append(in.tooMany, ss.dom.Name(j))
			continue
		}
		in.values[j] = h
	}
	return in, nil
}

// valueCounts merges the workers' counts of the k-th numeric attribute's
// values, in increasing order of value; false when it has more than
// maxDistinct values.
func (ss *streamStats) valueCounts(k int) (utility.ValueCounts, bool) {
	all := map[float64]int{}
	for _, wk := range ss.ws {
		if all != nil && wk.values[k] == nil {
			all = nil
		}
		for v, c := range wk.values[k] {
			if all != nil {
				all[v] += c
			}
		}
	}
	if all == nil || len(all) > maxDistinct {
		return utility.ValueCounts{}, false
	}
	var h utility.ValueCounts
	h.Values = make([]float64, 0, len(all))
	for v := range all {
		h.Values = append(h.Values, v)
	}
	slices.Sort(h.Values)
	h.Counts = make([]int, len(h.Values))
	for i, v := range h.Values {
		h.Counts[i] = all[v]
	}
	return h, true
}

// tableValues counts the numeric values of an input held as a table.
func tableValues(t *data.Table) map[int]utility.ValueCounts {
	out := map[int]utility.ValueCounts{}
	c := make([]float64, t.Len())
	for j, a := range t.Schema.Attributes {
		if a.Kind != data.Numeric {
			continue
		}
		for i, row := range t.Rows {
			c[i] = row[j]
		}
		slices.Sort(c)
		out[j] = utility.Histogram(c)
	}
	return out
}

// synthSample is the synthetic numeric values the owner's summary
// compares with the real ones: every row's up to sampleRows rows, the
// first ones written (beyond, rows repeat fitted records anyway).
type synthSample map[int][]float64

const sampleRows = 1 << 18

// add keeps t's numeric values while the sample has room.
// With csv, the values are kept as the CSV output holds them (rounded to
// their decimals: data.Attribute.AsWritten), as dppub compare reads them.
func (s synthSample) add(t *data.Table, csv bool) {
	for j, a := range t.Schema.Attributes {
		if a.Kind != data.Numeric {
			continue
		}
		for _, row := range t.Rows {
			if len(s[j]) == sampleRows {
				break
			}
			v := row[j]
			if csv {
				v = a.AsWritten(v)
			}
			s[j] = append(s[j], v)
		}
	}
}

// publishStream writes the synthetic table a chunk at a time — decoded
// (and formatted as CSV) on every core, written in order and hashed on
// the way — to any output, then the report with the output's digest
// (publishStreamed); nothing of it is held whole. owners are the gate's
// members (with the gate on).
func publishStream(cmd *cobra.Command, o *kit.OutputFlags, g *kit.GateFlags, owners []*data.Table, res method.RowChunks, report *privacy.Report) (synthSample, *kit.SynthCounts, error) {
	sample := synthSample{}
	csv := !data.IsParquetPath(o.Out)
	schema := res.TableSchema()
	// The written rows' marginals, as dppub compare will count them.
	counts, err := kit.NewSynthCounts(schema, o.Out)
	if err != nil {
		return nil, nil, err
	}
	err = kit.PublishStreamed(o, cmd, g, owners, schema, func(emit kit.EmitFunc) (*privacy.Report, error) {
		err := decodeChunks(res, csv, func(t *data.Table, b []byte) error {
			if len(sample) == 0 || len(sample[firstNumeric(t.Schema)]) < sampleRows {
				sample.add(t, csv)
			}
			counts.Add(t)
			return emit(t, b)
		})
		if err != nil {
			return nil, err
		}
		return report, nil
	})
	if err != nil {
		return nil, nil, err
	}
	return sample, counts, nil
}

func firstNumeric(s data.Schema) int {
	for j, a := range s.Attributes {
		if a.Kind == data.Numeric {
			return j
		}
	}
	return -1
}

// decodeChunks decodes the synthetic records chunk by chunk (the
// result's chunks, their randomness drawn up front) and, when csv is set, formats each as CSV rows, on every core, and
// hands each chunk's table and bytes (nil without csv) to emit in order,
// from this goroutine. At most one
// chunk per core, and the one being written, are in flight.
func decodeChunks(res method.RowChunks, csv bool, emit func(*data.Table, []byte) error) error {
	n, decode := res.Chunks()
	workers := max(1, min(runtime.GOMAXPROCS(0), n))
	type chunk struct {
		t   data.Table
		b   bytes.Buffer
		err error
	}
	slots := make([]chan *chunk, n)
	for k := range slots {
		slots[k] = make(chan *chunk, 1) // a worker never waits to hand over
	}
	pool := sync.Pool{New: func() any { return new(chunk) }}
	inFlight := make(chan struct{}, workers+1)
	next, stop := make(chan int), make(chan struct{})
	go func() {
		defer close(next)
		for k := range n {
			select {
			case inFlight <- struct{}{}:
			case <-stop:
				return
			}
			select {
			case next <- k:
			case <-stop:
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for k := range next {
				c := pool.Get().(*chunk)
				c.b.Reset()
				c.err = decode(k, &c.t)
				if c.err == nil && csv {
					c.err = data.WriteCSVRows(&c.b, &c.t)
				}
				slots[k] <- c
			}
		})
	}
	var err error
	for k := range n {
		c := <-slots[k]
		if err = c.err; err == nil {
			var b []byte
			if csv {
				b = c.b.Bytes()
			}
			err = emit(&c.t, b)
		}
		pool.Put(c)
		<-inFlight
		if err != nil {
			break
		}
	}
	close(stop)
	wg.Wait()
	return err
}
