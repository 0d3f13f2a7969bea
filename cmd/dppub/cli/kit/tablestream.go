package kit

import (
	"bufio"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/internal/fsutil"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
	"github.com/spf13/cobra"
)

// EmitFunc takes the next chunk of synthetic rows, in order; csv, when
// not nil, is the chunk already formatted as CSV rows (data.WriteCSVRows),
// which a CSV output writes as it is.
type EmitFunc func(t *data.Table, csv []byte) error

// fillFunc produces a synthetic table: it hands every chunk of rows to
// emit, then returns the release's privacy report.
type fillFunc func(emit EmitFunc) (*privacy.Report, error)

// TableSink writes chunks of a synthetic table as they come, as CSV or
// Parquet (by row group), through a hash of every byte written (the
// report's output digest), and keeps the release gate's sample of them.
type TableSink struct {
	path    string // the output, as named in messages
	parquet bool
	count   *countingWriter
	w       *bufio.Writer
	h       hash.Hash
	pq      *data.ParquetWriter
	Started bool
	Rows    int
	Cols    int
	sample  *reservoir // nil without the gate
}

// NewTableSink writes a table chunk by chunk to w (path names it; Parquet
// when parquet), keeping a sample for the gate when sample is not nil.
func NewTableSink(w io.Writer, path string, parquet bool, sample *reservoir) *TableSink {
	s := &TableSink{path: path, parquet: parquet, h: sha256.New(), count: &countingWriter{w: w}, sample: sample}
	s.w = bufio.NewWriterSize(io.MultiWriter(s.count, s.h), 1<<20)
	return s
}

// start writes the header of a table of schema sc (CSV), or starts the
// Parquet file.
func (s *TableSink) start(sc data.Schema) error {
	s.Started, s.Cols = true, len(sc.Attributes)
	if s.parquet {
		pq, err := data.NewParquetWriter(s.w, sc)
		if err != nil {
			return err
		}
		s.pq = pq
		return nil
	}
	return data.WriteCSVHeader(s.w, sc)
}

// add writes one chunk. The output's header is the first chunk's schema
// (what the whole table's writer writes).
func (s *TableSink) Add(t *data.Table, csv []byte) error {
	if !s.Started {
		if err := s.start(t.Schema); err != nil {
			return s.writeErr(err)
		}
	}
	s.Rows += t.Len()
	if s.sample != nil {
		s.sample.add(t)
	}
	var err error
	switch {
	case s.pq != nil:
		err = s.pq.Write(t)
	case csv != nil:
		_, err = s.w.Write(csv)
	default:
		err = data.WriteCSVRows(s.w, t)
	}
	return s.writeErr(err)
}

// finish writes what is left: a header of schema if no row came, the
// Parquet file's last row group and footer, the buffer.
func (s *TableSink) Finish(schema data.Schema) error {
	if !s.Started {
		if err := s.start(schema); err != nil {
			return s.writeErr(err)
		}
	}
	if s.pq != nil {
		if err := s.pq.Close(); err != nil {
			return s.writeErr(err)
		}
	}
	return s.writeErr(s.w.Flush())
}

func (s *TableSink) writeErr(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("writing %s: %w", s.path, err)
}

// Sum is the SHA-256 of the bytes written.
func (s *TableSink) Sum() (sum [sha256.Size]byte) {
	s.h.Sum(sum[:0])
	return sum
}

// countingWriter counts the bytes that reached w (for standard output:
// whether a failed run left anything there).
// Written is how many bytes the sink has written to its output.
func (s *TableSink) Written() int64 { return s.count.n }

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

// PublishStreamed publishes the synthetic table that fill produces a
// chunk at a time, never holding it whole: to --out, a CSV or Parquet
// file (by row group) written atomically, or standard output; with the
// gate on (g.On; owners are the members it attacks) the gate checks a
// bounded uniform sample of the rows (reservoir) once they are all
// written and before they are published. It writes the report with the
// output's digest, the gate's result beside the output, and prints the
// summary. schema is the header's when no row comes.
//
//   - A file is written to a temporary file beside it that becomes the
//     output only once every row is written and the gate (when on) has
//     passed; a failed run, or a refusal, leaves no file. The gate's
//     result is written before the rename and the output removed again if
//     the report cannot be written, so nothing is half-published.
//   - Standard output without the gate gets the rows as they come (the
//     data cannot be taken back): a run that fails after some rows were
//     written says that standard output is incomplete, and no report is
//     written; the report is written only once every row is.
//   - Standard output with the gate: the rows go first to a temporary
//     file (removed afterwards), so that a refusal writes nothing; once the
//     gate passes, the report is written and the rows copied out.
func PublishStreamed(o *OutputFlags, cmd *cobra.Command, g *GateFlags, owners []*data.Table, schema data.Schema, fill fillFunc) error {
	if err := CheckParquet(o, schema); err != nil {
		return err
	}
	s := &streamedRelease{cmd: cmd, g: g, owners: owners, schema: schema, fill: fill, parquet: data.IsParquetPath(o.Out), gated: g != nil && g.On}
	if s.gated {
		s.sample = &reservoir{max: GateSampleRows}
	}
	var err error
	switch {
	case o.Out != StdoutPath:
		err = s.toFile(o.Out)
	case !s.gated:
		err = s.toStdout()
	default:
		var removeSpool func()
		removeSpool, err = s.spooled()
		if removeSpool != nil {
			defer removeSpool() // after writeStreamedReport copies the rows out
		}
	}
	if err != nil {
		return err
	}
	if err := writeStreamedReport(o, s); err != nil {
		return err
	}
	if s.gated {
		g.result = g.pending
	}
	w := cmd.OutOrStdout()
	PrintReport(cmd, w, s.r)
	fmt.Fprintf(w, "\nWrote %d synthetic rows × %d columns to %s and the report to %s\n",
		s.sink.Rows, max(s.sink.Cols, len(schema.Attributes)), DisplayPath(o.Out, StdoutName), o.Report)
	if s.gated {
		g.Summary(cmd)
	}
	return nil
}

// streamedRelease is one run of publishStreamed: the generator, the
// output's sink, the gate's sample and the files written so far.
type streamedRelease struct {
	cmd     *cobra.Command
	g       *GateFlags
	owners  []*data.Table
	schema  data.Schema
	fill    fillFunc
	parquet bool
	gated   bool
	sample  *reservoir // nil without the gate
	sink    *TableSink
	r       *privacy.Report
	written []string // files to remove if a later step fails
}

// produce runs the generator into a sink on w (named name in messages)
// and finishes the output.
func (s *streamedRelease) produce(w io.Writer, name string) error {
	s.sink = NewTableSink(w, name, s.parquet, s.sample)
	var err error
	if s.r, err = s.fill(s.sink.Add); err != nil {
		return err
	}
	return s.sink.Finish(s.schema)
}

// check runs the gate (when on) on the rows written and writes its
// result.
func (s *streamedRelease) check() error {
	if !s.gated {
		return nil
	}
	s.g.Account(s.r)
	path, err := s.g.checkSample(s.cmd, s.owners, s.sample.table(), s.sink.Rows)
	if path != "" {
		s.written = append(s.written, path)
	}
	return err
}

// toFile writes the rows to a temporary file that becomes out once every
// row is written and the gate (when on) has passed.
func (s *streamedRelease) toFile(out string) error {
	var inner error
	err := fsutil.WriteFileAtomic(out, 0o644, func(f io.Writer) error {
		if inner = s.produce(f, out); inner == nil {
			inner = s.check()
		}
		return inner
	})
	if err != nil {
		RemoveAll(s.written)
		if inner != nil {
			return inner // the run's, the gate's or the write's own error
		}
		return fmt.Errorf("writing %s: %w", out, err)
	}
	s.written = append(s.written, out)
	return nil
}

// toStdout writes the rows to standard output as they come (no gate).
func (s *streamedRelease) toStdout() error {
	err := s.produce(DataStdout(s.cmd), StdoutName)
	if err != nil {
		if s.sink != nil && s.sink.count.n > 0 {
			return fmt.Errorf("%w; the %d bytes already written to %s are incomplete and unpublished (no report was written): discard them", err, s.sink.count.n, StdoutName)
		}
		return err
	}
	return nil
}

// spooled writes the rows for standard output to a temporary file and
// runs the gate on them; writeStreamedReport copies them out once the
// report is written. The caller removes the file with the function
// returned (nil when none was made).
func (s *streamedRelease) spooled() (func(), error) {
	spool, untrack, err := fsutil.CreateTemp("", "dppub-synthetic-*") // removed on Ctrl-C too
	if err != nil {
		return nil, fmt.Errorf("a temporary file for the rows before the release gate: %w", err)
	}
	remove := func() {
		spool.Close()
		os.Remove(spool.Name())
		untrack()
	}
	if err := s.produce(spool, fmt.Sprintf("the temporary file %s", spool.Name())); err != nil {
		return remove, err
	}
	if err := s.check(); err != nil {
		RemoveAll(s.written)
		return remove, err
	}
	return remove, nil
}

// writeStreamedReport records the output's digest in the report and
// writes it; for standard output with the gate it then copies the
// spooled rows out. A failure removes what was written.
func writeStreamedReport(o *OutputFlags, s *streamedRelease) error {
	StampReport(s.cmd, s.r, nil)
	s.r.RecordOutputSHA256(DisplayPath(o.Out, StdoutName), s.sink.Sum())
	js, err := s.r.JSON()
	if err == nil {
		err = WriteOutput(s.cmd, o.Report, js) // standard output for --report -
	}
	if err != nil {
		RemoveAll(s.written)
		if o.Out == StdoutPath && !s.gated {
			return fmt.Errorf("writing %s: %w; the rows written to %s have no report: discard them", o.Report, err, StdoutName)
		}
		return fmt.Errorf("writing %s: %w", o.Report, err)
	}
	if o.Out == StdoutPath && s.gated {
		if err := copySpool(s.cmd, s.sink); err != nil {
			RemoveAll(append(s.written, o.Report))
			return err
		}
	}
	return nil
}

// CheckParquet refuses a Parquet --out in a build without Parquet
// (-tags noparquet), before anything runs.
func CheckParquet(o *OutputFlags, schema data.Schema) error {
	if !data.IsParquetPath(o.Out) {
		return nil
	}
	if _, err := data.NewParquetWriter(io.Discard, schema); err != nil {
		return fmt.Errorf("--out %s: %w", o.Out, err)
	}
	return nil
}

// copySpool copies the rows spooled before the gate to standard output.
func copySpool(cmd *cobra.Command, s *TableSink) error {
	f, ok := s.count.w.(*os.File)
	if !ok {
		return errors.New("the rows' temporary file is not a file")
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("reading back %s: %w", f.Name(), err)
	}
	if n, err := io.Copy(DataStdout(cmd), f); err != nil {
		return fmt.Errorf("writing to %s: %w; the %d bytes written there are incomplete and unpublished (the report was removed): discard them", StdoutName, err, n)
	}
	return nil
}

// GateSampleRows bounds the synthetic rows the release gate attacks: a
// larger table is checked on a uniform sample of this many of its rows,
// so the gate's memory and time stop growing with the table. The attacks
// cost queries × synthetic rows in time and hold the rows' cells twice:
// `dppub check` of Adult with 1,000 queries a side took 37 s and 56 MB
// at 45,222 synthetic rows and 9.4 min and 384 MB at 2^20 (2 cores, load
// 4–16). It is the smallest bound under which every table up to 2^20
// rows is still checked whole, with the result it had when the gate held
// the whole table. A variable so that tests can sample small tables.
var GateSampleRows = 1 << 20

// Reservoir keeps a uniform sample of at most max of the rows added
// (Vitter's algorithm R): the first max rows in order, then row i (from
// 0) replaces a uniformly drawn one of them with probability max/(i+1).
// Up to max rows it holds every row, in order, and draws nothing, so the
// gate's check of such a table is what it was on the whole table. The
// draws come from the operating system's CSPRNG, even under --seed, as
// the gate's own: which rows were checked says nothing the seed's
// reproducibility is for.
type reservoir struct {
	max    int
	schema data.Schema
	p      int
	cells  []float64
	seen   int
	src    *randx.Source
}

func (r *reservoir) add(t *data.Table) {
	if r.seen == 0 && r.p == 0 {
		r.schema, r.p = t.Schema, len(t.Schema.Attributes)
	}
	p := r.p
	for _, row := range t.Rows {
		switch {
		case r.seen < r.max:
			if len(r.cells)+p > cap(r.cells) {
				// Grown by doubling up to the sample's size, never past it.
				grown := make([]float64, len(r.cells), min(max(2*cap(r.cells), 1<<12*p), r.max*p))
				copy(grown, r.cells)
				r.cells = grown
			}
			r.cells = append(r.cells, row...)
		default:
			if r.src == nil {
				r.src = randx.NewSecure().Child()
			}
			if j := r.src.IntN(r.seen + 1); j < r.max {
				copy(r.cells[j*p:(j+1)*p], row)
			}
		}
		r.seen++
	}
}

// table is the sample as a table (its rows share the sample's cells).
func (r *reservoir) table() *data.Table {
	t := &data.Table{Schema: r.schema}
	if r.p == 0 {
		return t
	}
	n := len(r.cells) / r.p
	t.Rows = make([][]float64, n)
	for i := range n {
		t.Rows[i] = r.cells[i*r.p : (i+1)*r.p : (i+1)*r.p]
	}
	return t
}
