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
	comma  string
	line   int
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
	lp := &LineParser{rd: reader{name: o.Name, schema: s, opts: o}}
	if err := lp.rd.init(bufio.NewReader(strings.NewReader(first + "\n"))); err != nil {
		return nil, err
	}
	lp.comma = string(lp.rd.csv.Comma)
	if o.Header {
		lp.header = strings.TrimSuffix(first, "\r")
	}
	return lp, nil
}

// Stats counts what parsing skipped and mapped so far (Rows counts the
// rows kept).
func (lp *LineParser) Stats() ReadStats { return lp.rd.stats }

// Parse reads one line into dst (length the schema's attributes; nil
// allocates) and reports whether it holds a row: false for an empty line,
// the header, a skipped prefix or a row with a missing value (counted in
// Stats).
func (lp *LineParser) Parse(line string, dst []float64) ([]float64, bool, error) {
	lp.line++
	line = strings.TrimSuffix(line, "\r")
	if line == "" || (lp.header != "" && line == lp.header) {
		return nil, false, nil
	}
	var rec []string
	if strings.IndexByte(line, '"') < 0 {
		rec = strings.Split(line, lp.comma)
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
		return nil, false, fmt.Errorf("data: %q: a line has %d fields, want %d", lp.rd.name, len(rec), lp.rd.width)
	}
	if lp.rd.hasMissing(rec) {
		lp.rd.stats.DroppedMissing++
		return nil, false, nil
	}
	row, err := lp.rd.parse(rec, lp.line)
	if err != nil {
		return nil, false, err
	}
	lp.rd.stats.Rows++
	if dst == nil {
		return row, true, nil
	}
	copy(dst, row)
	return dst, true, nil
}
