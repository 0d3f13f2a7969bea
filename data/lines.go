package data

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"strings"
)

// LineParser reads single lines of a delimited file, one record per line,
// exactly as ReadCSV reads them (same separator, header mapping, missing
// tokens, skipped prefixes, categories and Other mapping): the per-record
// path of a distributed pipeline, whose workers see lines in no order, and
// of one-pass readers that never build a table. It is not safe for
// concurrent use; make one per goroutine or worker. Records spanning
// several lines (quoted newlines) are not supported.
type LineParser struct {
	rd     reader
	header string // the header line, skipped wherever it appears
	fields []string
	comma  string
	line   int
	// read[i] says field i is an attribute's or the ID column (the
	// fields the missing-value check looks at).
	read []bool
}

// NewLineParser prepares to parse lines of a file whose first line is
// first (its header when o.Header; with o.Comma = 0 the separator is
// detected from it, as ReadCSV does).
func NewLineParser(s Schema, o ReadOptions, first string) (*LineParser, error) {
	if o.Name == "" {
		o.Name = "input"
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if err := o.validate(s); err != nil {
		return nil, err
	}
	declared := s
	s, err := s.without(o.SkipColumns)
	if err != nil {
		return nil, fmt.Errorf("data: %q: %w", o.Name, err)
	}
	lp := &LineParser{rd: reader{name: o.Name, schema: s, declared: declared, opts: o}}
	if err := lp.init(first); err != nil {
		return nil, err
	}
	return lp, nil
}

// init reads the header (or detects the separator) from the first line.
func (lp *LineParser) init(first string) error {
	first = strings.TrimPrefix(first, utf8BOM)
	if err := lp.rd.init(bufio.NewReader(strings.NewReader(first + "\n"))); err != nil {
		return err
	}
	lp.comma = string(lp.rd.csv.Comma)
	if lp.rd.opts.Header {
		lp.header = strings.TrimSuffix(first, "\r")
	}
	return nil
}

// Stats counts what parsing skipped and mapped so far (Rows counts the
// rows kept).
func (lp *LineParser) Stats() ReadStats { return lp.rd.stats }

// Parse reads one line into dst (length the schema's attributes; nil
// allocates) and reports whether it holds a row: false for an empty line,
// the header, a skipped prefix or a row with a missing value (counted in
// Stats).
func (lp *LineParser) Parse(line string, dst []float64) ([]float64, bool, error) {
	return lp.parseAt(lp.line+1, line, dst)
}

// parseAt is Parse of the line numbered n in messages.
func (lp *LineParser) parseAt(n int, line string, dst []float64) ([]float64, bool, error) {
	lp.line = n
	line = strings.TrimSuffix(line, "\r")
	// A byte order mark begins only a file's first line, but a worker
	// of a pipeline does not know which line is first.
	line = strings.TrimPrefix(line, utf8BOM)
	if line == "" || (lp.header != "" && line == lp.header) {
		return nil, false, nil
	}
	var rec []string
	if strings.IndexByte(line, '"') < 0 {
		rec = splitInto(lp.fields[:0], line, lp.comma)
		lp.fields = rec
	} else {
		c := csv.NewReader(strings.NewReader(line))
		c.Comma, c.FieldsPerRecord = lp.rd.csv.Comma, -1
		var err error
		if rec, err = c.Read(); err != nil && err != io.EOF {
			return nil, false, fmt.Errorf("data: %q: %w", lp.rd.name, err)
		}
	}
	if hasAnyPrefix(rec[0], lp.rd.opts.SkipLinePrefixes) {
		lp.rd.stats.SkippedLines++
		return nil, false, nil
	}
	if len(rec) != lp.rd.width {
		return nil, false, fmt.Errorf("data: %q line %d has %d fields, want %d", lp.rd.name, n, len(rec), lp.rd.width)
	}
	var missing bool
	if !lp.rd.opts.KeepSpace {
		// Trim each field once here (the parse below trims again, which
		// costs nothing on a trimmed field), and look for a missing
		// token on the way: only a field no longer than the longest
		// token, in a column that is read, can be one.
		if lp.read == nil {
			lp.read = make([]bool, lp.rd.width)
			for _, c := range lp.rd.cols {
				lp.read[c] = true
			}
			if lp.rd.idCol >= 0 {
				lp.read[lp.rd.idCol] = true
			}
		}
		for i, f := range rec {
			f = trimSpace(f)
			rec[i] = f
			if len(f) <= lp.rd.maxMissing && lp.read[i] && lp.rd.isMissing(f) {
				missing = true
			}
		}
	} else {
		missing = lp.rd.hasMissing(rec)
	}
	if missing {
		lp.rd.stats.DroppedMissing++
		return nil, false, nil
	}
	if dst == nil {
		dst = lp.rd.newRow()
	}
	row, err := lp.rd.parseInto(rec, lp.line, dst[:len(lp.rd.schema.Attributes)])
	if err != nil {
		return nil, false, err
	}
	lp.rd.stats.Rows++
	return row, true, nil
}

// splitInto is strings.Split into dst's storage (a line's fields, reused
// from line to line instead of allocated for each).
func splitInto(dst []string, s, sep string) []string {
	if len(sep) == 1 {
		// One byte (a comma or a tab): IndexByte without strings.Index's
		// dispatch on the separator's length, field by field.
		c := sep[0]
		for {
			i := strings.IndexByte(s, c)
			if i < 0 {
				return append(dst, s)
			}
			dst = append(dst, s[:i])
			s = s[i+1:]
		}
	}
	for {
		i := strings.Index(s, sep)
		if i < 0 {
			return append(dst, s)
		}
		dst = append(dst, s[:i])
		s = s[i+len(sep):]
	}
}
