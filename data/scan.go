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
	name := o.Name
	if name == "" {
		name = "input"
		o.Name = name
	}
	if err := s.Validate(); err != nil {
		return ReadStats{}, err
	}
	if err := o.validate(s); err != nil {
		return ReadStats{}, err
	}
	declared := s
	s, err := s.without(o.SkipColumns)
	if err != nil {
		return ReadStats{}, fmt.Errorf("data: %q: %w", name, err)
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Block <= 0 {
		o.Block = 1 << 20
	}
	in, err := openText(r, name)
	if err != nil {
		return ReadStats{}, err
	}
	sc := &scanner{r: in.Reader, block: o.Block, line: 1}
	first, firstLine, err := sc.firstRecord(o.SkipLinePrefixes)
	if err != nil {
		return ReadStats{}, wrapRead(name, err)
	}
	if first == "" {
		if o.Header {
			return ReadStats{}, fmt.Errorf("data: %q is empty: want a header row naming the columns, then one row per record", name)
		}
		return ReadStats{}, fmt.Errorf("data: no rows in %q", name)
	}
	newParser := func() (*LineParser, error) {
		lp := &LineParser{rd: reader{name: name, schema: s, declared: declared, opts: o.ReadOptions}}
		if err := lp.init(first); err != nil {
			return nil, err
		}
		return lp, nil
	}
	proto, err := newParser()
	if err != nil {
		return ReadStats{}, in.blame(err)
	}
	stats := ReadStats{Ignored: proto.rd.stats.Ignored, SkippedLines: sc.skipped}
	if start != nil {
		if err := start(s.clone()); err != nil {
			return stats, err
		}
	}
	if !o.Header {
		// The first record is data: parse it with the rest.
		sc.pending = append([]piece{{text: first, line: firstLine}}, sc.pending...)
	}
	type job struct {
		seq    int
		pieces []piece
	}
	jobs := make(chan job, o.Workers)
	var (
		mu      sync.Mutex
		errSeq  = -1
		errLine int
		firstEr error
	)
	fail := func(seq, line int, err error) {
		mu.Lock()
		defer mu.Unlock()
		if errSeq < 0 || seq < errSeq || (seq == errSeq && line < errLine) {
			errSeq, errLine, firstEr = seq, line, err
		}
	}
	failedBefore := func(seq int) bool {
		mu.Lock()
		defer mu.Unlock()
		return errSeq >= 0 && errSeq < seq
	}
	parsers := make([]*LineParser, o.Workers)
	var wg sync.WaitGroup
	for w := range o.Workers {
		lp := proto
		if w > 0 {
			if lp, err = newParser(); err != nil {
				return stats, err
			}
		}
		lp.rd.stats = ReadStats{}
		parsers[w] = lp
		wg.Go(func() {
			var rows [][]float64
			var buf []float64
			width := len(s.Attributes)
			for jb := range jobs {
				if failedBefore(jb.seq) {
					continue // an earlier record is already wrong
				}
				// consume is done with the last block's rows: reuse them.
				rows, cells := rows[:0], buf
				for _, p := range jb.pieces {
					for rec, line := range p.records() {
						if len(cells) < width {
							buf = make([]float64, width*max(1024, 2*len(rows)))
							cells = buf
						}
						row, ok, err := lp.parseAt(line, rec, cells[:width:width])
						if err != nil {
							fail(jb.seq, line, err)
							break
						}
						if ok {
							rows = append(rows, row)
							cells = cells[width:]
						}
					}
				}
				if failedBefore(jb.seq + 1) {
					continue
				}
				if len(rows) > 0 {
					if err := consume(w, rows); err != nil {
						fail(jb.seq, 0, err)
					}
				}
			}
		})
	}
	seq := 0
	var readErr error
	for {
		ps, err := sc.next()
		if len(ps) > 0 {
			if failedBefore(seq) {
				break
			}
			jobs <- job{seq: seq, pieces: ps}
			seq++
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			readErr = wrapRead(name, err)
			break
		}
	}
	close(jobs)
	wg.Wait()
	for _, lp := range parsers {
		st := lp.rd.stats
		stats.Rows += st.Rows
		stats.DroppedMissing += st.DroppedMissing
		stats.Clamped += st.Clamped
		stats.SkippedLines += st.SkippedLines
		stats.MappedToOther += st.MappedToOther
	}
	if firstEr != nil {
		return stats, in.blame(firstEr)
	}
	if readErr != nil {
		return stats, readErr
	}
	seen := stats.Rows + stats.DroppedMissing
	switch {
	case seen == 0 && o.Header:
		return stats, fmt.Errorf("data: no rows in %q: it holds only the header row", name)
	case seen == 0:
		return stats, fmt.Errorf("data: no rows in %q", name)
	case stats.Rows == 0:
		return stats, fmt.Errorf("data: all %d rows of %q have a missing value", seen, name)
	}
	return stats, o.checkRows(name, stats)
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
