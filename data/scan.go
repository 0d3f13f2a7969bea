package data

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"unsafe"
)

// ScanOptions configure Scan: how to read the text (as ReadCSV) and how
// many goroutines parse it.
type ScanOptions struct {
	ReadOptions
	// Workers parse blocks of lines concurrently (default GOMAXPROCS).
	Workers int
	// Block is the size in bytes of the pieces of input handed to the
	// workers (default 1 MiB); a record longer than a block makes the
	// block grow to hold it.
	Block int
}

// Scan reads delimited text as ReadCSV does — the same header mapping,
// separator, missing tokens, skipped prefixes, categories, Other mapping
// and counts — without building a table: one goroutine cuts the input
// into blocks of whole records, Workers goroutines parse them, and every
// block's rows go to consume, called concurrently from the workers (the
// rows are reused once it returns). start, if set, is called once before
// any rows with the schema they follow (s less ReadOptions.SkipColumns).
// Rows reach consume in no particular order. A quoted field may hold a
// newline. On a malformed record Scan reports the first one in the input,
// as ReadCSV would; consume may have seen rows of later blocks by then.
func Scan(r io.Reader, s Schema, o ScanOptions, start func(Schema) error, consume func(worker int, rows [][]float64) error) (ReadStats, error) {
	run, err := openScan(r, s, o)
	if err != nil {
		return ReadStats{}, err
	}
	parsers, err := run.parsers()
	if err != nil {
		return ReadStats{}, run.in.blame(err)
	}
	stats := ReadStats{Ignored: parsers[0].rd.stats.Ignored, SkippedLines: run.sc.skipped}
	if start != nil {
		if err := start(run.schema.clone()); err != nil {
			return stats, err
		}
	}
	if !run.o.Header {
		// The first record is data: parse it with the rest.
		run.sc.pending = append([]piece{{text: run.first, line: run.firstLine}}, run.sc.pending...)
	}
	failed, readErr := run.parse(parsers, consume)
	for _, lp := range parsers {
		stats.add(lp.rd.stats)
	}
	if failed != nil {
		return stats, run.in.blame(failed)
	}
	if readErr != nil {
		return stats, readErr
	}
	return stats, run.checkScanned(stats)
}

// scanRun is one Scan: its settings, its input and the first record,
// which decides the separator and holds the header.
type scanRun struct {
	name      string
	schema    Schema // less the skipped columns
	declared  Schema
	o         ScanOptions
	in        *text
	sc        *scanner
	first     string
	firstLine int
}

// openScan checks the schema and options, fills the defaults, opens the
// input and reads its first record.
func openScan(r io.Reader, s Schema, o ScanOptions) (*scanRun, error) {
	if o.Name == "" {
		o.Name = "input"
	}
	name := o.Name
	base, err := newReader(name, s, o.ReadOptions)
	if err != nil {
		return nil, err
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Block <= 0 {
		o.Block = 1 << 20
	}
	in, err := openText(r, name)
	if err != nil {
		return nil, err
	}
	sc := &scanner{r: in.Reader, block: o.Block, line: 1}
	first, firstLine, err := sc.firstRecord(o.SkipLinePrefixes)
	if err != nil {
		return nil, wrapRead(name, err)
	}
	if first == "" {
		if o.Header {
			return nil, fmt.Errorf("data: %q is empty: want a header row naming the columns, then one row per record", name)
		}
		return nil, fmt.Errorf("data: no rows in %q", name)
	}
	return &scanRun{name: name, schema: base.schema, declared: base.declared, o: o, in: in, sc: sc, first: first, firstLine: firstLine}, nil
}

// parsers returns one line parser per worker, each initialised from the
// first record. The first parser's stats keep what the header ignored;
// the others start from zero.
func (run *scanRun) parsers() ([]*LineParser, error) {
	parsers := make([]*LineParser, run.o.Workers)
	for w := range parsers {
		lp := &LineParser{rd: reader{name: run.name, schema: run.schema, declared: run.declared, opts: run.o.ReadOptions}}
		if err := lp.init(run.first); err != nil {
			return nil, err
		}
		parsers[w] = lp
	}
	return parsers, nil
}

// scanJob is a block of records and its place in the input.
type scanJob struct {
	seq    int
	pieces []piece
}

// parse cuts the input into jobs for one goroutine per parser and waits
// for them. It returns the error of the first malformed record (or of
// consume) in input order, and the error of reading the input. The
// parsers' stats are reset first and hold their counts on return.
func (run *scanRun) parse(parsers []*LineParser, consume func(worker int, rows [][]float64) error) (failed, readErr error) {
	jobs := make(chan scanJob, len(parsers))
	var first firstFailure
	var wg sync.WaitGroup
	for w, lp := range parsers {
		lp.rd.stats = ReadStats{}
		wg.Go(func() { run.work(w, lp, jobs, &first, consume) })
	}
	readErr = run.feed(jobs, &first)
	close(jobs)
	wg.Wait()
	return first.err, readErr
}

// feed hands the input's blocks to the workers in order until the input
// ends, a read fails or a record before the next block is known to be
// wrong.
func (run *scanRun) feed(jobs chan<- scanJob, first *firstFailure) error {
	for seq := 0; ; {
		ps, err := run.sc.next()
		if len(ps) > 0 {
			if first.before(seq) {
				return nil
			}
			jobs <- scanJob{seq: seq, pieces: ps}
			seq++
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return wrapRead(run.name, err)
		}
	}
}

// work is worker w: it parses each job's records with lp and hands the
// rows to consume, skipping jobs after a known failure.
func (run *scanRun) work(w int, lp *LineParser, jobs <-chan scanJob, first *firstFailure, consume func(worker int, rows [][]float64) error) {
	var rows [][]float64
	var buf []float64
	width := len(run.schema.Attributes)
	for jb := range jobs {
		if first.before(jb.seq) {
			continue // an earlier record is already wrong
		}
		rows, buf = parseJob(jb, lp, buf, width, first)
		if first.before(jb.seq + 1) {
			continue
		}
		if len(rows) > 0 {
			if err := consume(w, rows); err != nil {
				first.record(jb.seq, 0, err)
			}
		}
	}
}

// parseJob parses the records of jb into rows whose cells are carved
// from buf (consume is done with the last job's rows: their cells are
// reused; a new buffer when short), and records the first malformed
// record of each piece in first. It returns the rows and the buffer.
func parseJob(jb scanJob, lp *LineParser, buf []float64, width int, first *firstFailure) ([][]float64, []float64) {
	var rows [][]float64
	cells := buf
	for _, p := range jb.pieces {
		for rec, line := range p.records() {
			if len(cells) < width {
				buf = make([]float64, width*max(1024, 2*len(rows)))
				cells = buf
			}
			row, ok, err := lp.parseAt(line, rec, cells[:width:width])
			if err != nil {
				first.record(jb.seq, line, err)
				break
			}
			if ok {
				rows = append(rows, row)
				cells = cells[width:]
			}
		}
	}
	return rows, buf
}

// firstFailure keeps the error that comes first in the input (by job,
// then line) of those the workers meet, so that Scan reports what ReadCSV
// would.
type firstFailure struct {
	mu   sync.Mutex
	seq  int // -1 (or unset err): none yet
	line int
	err  error
}

// record keeps err if it comes before the failure kept so far.
func (f *firstFailure) record(seq, line int, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil || seq < f.seq || (seq == f.seq && line < f.line) {
		f.seq, f.line, f.err = seq, line, err
	}
}

// before reports whether a job before seq has failed.
func (f *firstFailure) before(seq int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err != nil && f.seq < seq
}

// add counts a parser's rows, drops, clamps, skipped lines and values
// mapped to Other into st.
func (st *ReadStats) add(p ReadStats) {
	st.Rows += p.Rows
	st.DroppedMissing += p.DroppedMissing
	st.Clamped += p.Clamped
	st.SkippedLines += p.SkippedLines
	st.MappedToOther += p.MappedToOther
}

// checkScanned refuses an input without rows, or whose rows all have a
// missing value, then checks the counts against the options.
func (run *scanRun) checkScanned(stats ReadStats) error {
	return run.o.checkRead(run.name, stats.Rows+stats.DroppedMissing, run.o.Header, stats)
}

// ScanFile opens path and Scans it, messages naming the file.
func ScanFile(path string, s Schema, o ScanOptions, start func(Schema) error, consume func(worker int, rows [][]float64) error) (ReadStats, error) {
	f, err := os.Open(path)
	if err != nil {
		return ReadStats{}, fmt.Errorf("data: %w", err)
	}
	defer f.Close()
	if o.Name == "" {
		o.Name = path
	}
	return Scan(f, s, o, start, consume)
}

// piece is a run of whole records and the line the first one starts on.
type piece struct {
	text string
	line int
}

// records yields each non-empty record of the piece (a quoted field may
// span lines) and the line it starts on.
func (p piece) records() func(yield func(string, int) bool) {
	return func(yield func(string, int) bool) {
		text, line := p.text, p.line
		quoted := strings.IndexByte(text, '"') >= 0
		for len(text) > 0 {
			end := recordEnd(text, quoted)
			rec := text[:end]
			next := min(end+1, len(text))
			nl := 1
			if quoted {
				nl += strings.Count(rec, "\n")
			}
			if strings.TrimSuffix(rec, "\r") != "" && !yield(rec, line) {
				return
			}
			text, line = text[next:], line+nl
		}
	}
}

// recordEnd is the index of the newline ending the first record of text
// (len(text) if none): the first newline, or with quotes the first one
// outside a quoted field.
func recordEnd(text string, quoted bool) int {
	if !quoted {
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			return i
		}
		return len(text)
	}
	in := false
	for i := range len(text) {
		switch text[i] {
		case '"':
			in = !in
		case '\n':
			if !in {
				return i
			}
		}
	}
	return len(text)
}

// scanner cuts its input into blocks of whole records.
type scanner struct {
	r       io.Reader
	block   int
	rest    []byte // the start of a record the last block cut through
	line    int    // the line the next block starts on
	eof     bool
	skipped int
	pending []piece
}

// next returns the next pieces (one block, or what firstRecord left),
// and io.EOF after the last.
func (sc *scanner) next() ([]piece, error) {
	if len(sc.pending) > 0 {
		ps := sc.pending
		sc.pending = nil
		return ps, nil
	}
	if sc.eof {
		return nil, io.EOF
	}
	buf := make([]byte, len(sc.rest), max(sc.block, 2*len(sc.rest)))
	copy(buf, sc.rest)
	for {
		n, err := fill(sc.r, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			sc.eof, sc.rest = true, nil
			return sc.cut(buf, len(buf)), nil
		}
		if err != nil {
			return nil, err
		}
		if end := lastRecordEnd(buf); end >= 0 {
			sc.rest = buf[end+1:]
			return sc.cut(buf, end+1), nil
		}
		// No record ends in the block: grow it.
		buf = append(buf, make([]byte, len(buf))...)[:len(buf)]
	}
}

// fill reads into b until it is full or the input ends (io.EOF, possibly
// with bytes read). Unlike io.ReadFull it keeps the input's own errors
// apart from its end: a gzip stream cut short says io.ErrUnexpectedEOF,
// which must not read as the end of the file.
func fill(r io.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := r.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// cut hands out buf[:end] as one piece. The block is never written again,
// so the piece's string shares its bytes instead of copying them.
func (sc *scanner) cut(buf []byte, end int) []piece {
	if end == 0 {
		return nil
	}
	p := piece{text: unsafe.String(&buf[0], end), line: sc.line}
	sc.line += bytes.Count(buf[:end], []byte{'\n'})
	if buf[end-1] != '\n' {
		sc.line++
	}
	return []piece{p}
}

// lastRecordEnd is the index of the last newline of b outside a quoted
// field (-1 if none).
func lastRecordEnd(b []byte) int {
	if bytes.IndexByte(b, '"') < 0 {
		return bytes.LastIndexByte(b, '\n')
	}
	in, last := false, -1
	for i, c := range b {
		switch c {
		case '"':
			in = !in
		case '\n':
			if !in {
				last = i
			}
		}
	}
	return last
}

// firstRecord returns the first record that is neither blank nor skipped
// by prefix ("" at the end of the input) and its line; what follows it
// stays pending for the workers.
func (sc *scanner) firstRecord(skip []string) (string, int, error) {
	for {
		ps, err := sc.next()
		if err == io.EOF {
			return "", 0, nil
		}
		if err != nil {
			return "", 0, err
		}
		for k, p := range ps {
			text, line := p.text, p.line
			quoted := strings.IndexByte(text, '"') >= 0
			for len(text) > 0 {
				end := recordEnd(text, quoted)
				rec := strings.TrimSuffix(text[:end], "\r")
				next := min(end+1, len(text))
				nl := 1 + strings.Count(text[:end], "\n")
				if rec != "" && hasAnyPrefix(rec, skip) {
					sc.skipped++
				} else if rec != "" {
					var rest []piece
					if next < len(text) {
						rest = append(rest, piece{text: text[next:], line: line + nl})
					}
					sc.pending = append(rest, ps[k+1:]...)
					return rec, line, nil
				}
				text, line = text[next:], line+nl
			}
		}
	}
}
