package data

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ReadOptions says how to read a delimited text file. The zero value reads
// a header-less comma- or tab-separated file whose columns are the ID
// column (if the schema has one) followed by the attributes in schema
// order.
type ReadOptions struct {
	// Name names the input in error messages; ReadCSV defaults it to
	// "input" and ReadFile to the path.
	Name string
	// Comma is the field separator; 0 picks a tab if the first line
	// (after skipped lines) contains one, and a comma otherwise.
	Comma rune
	// Header says the first line names the columns. Columns are then
	// matched by name in any order; a column that is neither an attribute
	// nor the ID column is an error unless listed in IgnoreColumns.
	Header bool
	// IgnoreColumns names header columns to skip (needs Header); each must
	// be a column of the header that the schema does not declare.
	IgnoreColumns []string
	// SkipColumns names columns to leave out (needs Header): an attribute
	// of the schema (or its ID column) named is dropped from the schema,
	// and the table has the others; a header column named is skipped. A
	// name that is neither in the schema nor in the header is an error,
	// and so is leaving no attribute.
	SkipColumns []string
	// Rename maps header names to schema names, for files whose header
	// spells columns differently (needs Header).
	Rename map[string]string
	// MissingTokens are the cell values that mean "missing"; a row with a
	// missing cell is dropped and counted, as the papers do. Nil means
	// {"?", ""}; an empty non-nil slice means no value is missing.
	MissingTokens []string
	// SkipLinePrefixes drops records whose first field starts with one of
	// these prefixes (e.g. "|" for the comment line of UCI adult.test).
	SkipLinePrefixes []string
	// KeepSpace keeps the white space around fields. By default fields are
	// trimmed, which reads UCI files separated by ", ".
	KeepSpace bool
	// StripSuffix is removed from a categorical or binary value that is
	// not itself a category (e.g. "." for the labels of adult.test).
	StripSuffix string
	// OtherCategory maps a categorical attribute to one of its categories
	// that values outside its declared list are read as, instead of being
	// an error (e.g. country codes missing from a fixed code list).
	// It overrides the schema's own Attribute.Other.
	OtherCategory map[string]string
	// MinRows, when above 1, is the fewest rows (kept, after those with a
	// missing value are dropped) an owner's input to a release must hold:
	// fewer is an error naming the input and its count. With n = 1 row
	// the default δ = 1/n² is 1, which protects no one.
	MinRows int
	// OptionalID reads a header that lacks the schema's ID column as a
	// table without IDs (its schema names no ID) instead of an error
	// (needs Header): a synthetic table has the real one's attributes
	// and no identifiers.
	OptionalID bool
}

// ReadStats counts what reading did.
type ReadStats struct {
	// Rows is the number of rows kept.
	Rows int
	// DroppedMissing is the number of rows dropped for a missing value.
	DroppedMissing int
	// Clamped is the number of numeric cells outside their declared
	// bounds. They are kept as read; the Encoder clamps them.
	Clamped int
	// Ignored is the number of file columns skipped (IgnoreColumns).
	Ignored int
	// SkippedLines is the number of records dropped by SkipLinePrefixes.
	SkippedLines int
	// MappedToOther is the number of cells read as an OtherCategory.
	MappedToOther int
}

var defaultMissing = []string{"?", ""}

// ReadFile reads a delimited file (gzip-compressed or not: detected from
// its first bytes) into a table; see ReadCSV.
func ReadFile(path string, s Schema, o ReadOptions) (*Table, ReadStats, error) {
	return readPath(path, s, o, func(f *os.File, s Schema, o ReadOptions) (*Table, ReadStats, error) { return ReadCSV(f, s, o) })
}

// readPath opens path and reads it with read, messages naming the file.
func readPath(path string, s Schema, o ReadOptions, read func(*os.File, Schema, ReadOptions) (*Table, ReadStats, error)) (*Table, ReadStats, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, ReadStats{}, fmt.Errorf("data: %w", err)
	}
	defer f.Close()
	if o.Name == "" {
		o.Name = path
	}
	return read(f, s, o)
}

// ReadCSV reads delimited text (transparently gunzipped if it starts with
// the gzip magic bytes; a truncated or damaged gzip stream is a
// CorruptInputError, never a shorter table; a leading UTF-8 byte order
// mark is dropped) into a table with schema s. Numeric cells must parse
// as finite numbers, whole ones for an integer attribute; categorical and
// binary cells must be one of their attribute's categories. Rows with a
// missing value are dropped.
func ReadCSV(r io.Reader, s Schema, o ReadOptions) (*Table, ReadStats, error) {
	name := o.Name
	if name == "" {
		name = "input"
	}
	rd, err := newReader(name, s, o)
	if err != nil {
		return nil, ReadStats{}, err
	}
	in, err := openText(r, name)
	if err != nil {
		return nil, ReadStats{}, err
	}
	if err := rd.init(in.Reader); err != nil {
		return nil, ReadStats{}, in.blame(err)
	}
	t, st, err := rd.read()
	return t, st, in.blame(err)
}

// newReader checks the schema and the options, then drops the skipped
// columns from the schema the reader maps (every reader of a whole table
// starts so). name names the input in messages.
func newReader(name string, s Schema, o ReadOptions) (*reader, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if err := o.validate(s); err != nil {
		return nil, err
	}
	kept, err := s.without(o.SkipColumns)
	if err != nil {
		return nil, fmt.Errorf("data: %q: %w", name, err)
	}
	return &reader{name: name, schema: kept, declared: s, opts: o}, nil
}

func (o ReadOptions) validate(s Schema) error {
	if o.Comma != 0 && (o.Comma == '\r' || o.Comma == '\n' || o.Comma == '"' || !utf8.ValidRune(o.Comma) || o.Comma == utf8.RuneError) {
		return fmt.Errorf("data: invalid separator %q", o.Comma)
	}
	if !o.Header && (len(o.IgnoreColumns) > 0 || len(o.Rename) > 0 || len(o.SkipColumns) > 0 || o.OptionalID) {
		return errors.New("data: columns can be skipped, renamed or optional only in a file with a header row")
	}
	for attr, other := range o.OtherCategory {
		a, err := s.Attribute(attr)
		if err != nil {
			return fmt.Errorf("data: OtherCategory: %w", err)
		}
		if a.Kind == Numeric {
			return fmt.Errorf("data: OtherCategory: attribute %q is numeric", attr)
		}
		if _, err := a.CategoryIndex(other); err != nil {
			return fmt.Errorf("data: OtherCategory: %w", err)
		}
	}
	return nil
}

// reader holds the state of one ReadCSV call.
type reader struct {
	name     string
	schema   Schema
	declared Schema // the schema before SkipColumns
	opts     ReadOptions
	csv      *csv.Reader
	missing  map[string]bool
	// missingList is missing as a list: the tokens are few, and comparing
	// a short field with each is cheaper than hashing it.
	missingList []string
	// cols[j] is the file column of attribute j; idCol that of the ID
	// column or -1; width the number of fields per record.
	cols         []int
	idCol, width int
	cats         []catIndex
	other        []int
	stats        ReadStats
	block        []float64
	// maxMissing is the length of the longest missing token.
	maxMissing int
}

func (rd *reader) init(br *bufio.Reader) error {
	comma := rd.opts.Comma
	if comma == 0 {
		comma = detectComma(br, rd.opts.SkipLinePrefixes)
	}
	rd.csv = csv.NewReader(br)
	rd.csv.Comma = comma
	rd.csv.FieldsPerRecord = -1 // ragged rows are reported by read with counts
	rd.csv.ReuseRecord = true
	rd.missing = toSet(rd.opts.MissingTokens)
	if rd.opts.MissingTokens == nil {
		rd.missing = toSet(defaultMissing)
	}
	rd.maxMissing = 0
	rd.missingList = rd.missingList[:0]
	for m := range rd.missing {
		rd.maxMissing = max(rd.maxMissing, len(m))
		rd.missingList = append(rd.missingList, m)
	}
	rd.cats = make([]catIndex, len(rd.schema.Attributes))
	rd.other = make([]int, len(rd.schema.Attributes))
	for j, a := range rd.schema.Attributes {
		rd.other[j] = -1
		if a.Kind == Numeric {
			continue
		}
		rd.cats[j] = newCatIndex(a.Categories)
		if a.Other != "" {
			rd.other[j], _ = rd.cats[j].get(a.Other)
		}
		if other, ok := rd.opts.OtherCategory[a.Name]; ok {
			rd.other[j], _ = rd.cats[j].get(other)
		}
	}
	if rd.opts.Header {
		return rd.mapHeader()
	}
	rd.idCol = -1
	offset := 0
	if rd.schema.ID != "" {
		rd.idCol, offset = 0, 1
	}
	rd.cols = make([]int, len(rd.schema.Attributes))
	for j := range rd.cols {
		rd.cols[j] = j + offset
	}
	rd.width = len(rd.cols) + offset
	return nil
}

// detectComma looks at the first line that is not skipped.
func detectComma(br *bufio.Reader, skip []string) rune {
	buf, _ := br.Peek(br.Size())
	for len(buf) > 0 {
		line := buf
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			line, buf = buf[:i], buf[i+1:]
		} else {
			buf = nil
		}
		if len(bytes.TrimSpace(line)) == 0 || hasAnyPrefix(string(line), skip) {
			continue
		}
		if bytes.IndexByte(line, '\t') >= 0 {
			return '\t'
		}
		return ','
	}
	return ','
}

// next returns the next record that is not skipped, and its line number.
func (rd *reader) next() ([]string, int, error) {
	for {
		rec, err := rd.csv.Read()
		if err == io.EOF {
			return nil, 0, err
		}
		if err != nil {
			return nil, 0, wrapRead(rd.name, err)
		}
		line, _ := rd.csv.FieldPos(0)
		if hasAnyPrefix(rec[0], rd.opts.SkipLinePrefixes) {
			rd.stats.SkippedLines++
			continue
		}
		return rec, line, nil
	}
}

func (rd *reader) read() (*Table, ReadStats, error) {
	t := &Table{Schema: rd.schema.clone()}
	seen := 0
	for {
		rec, line, err := rd.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, rd.stats, err
		}
		seen++
		if len(rec) != rd.width {
			return nil, rd.stats, fmt.Errorf("data: %q line %d has %d fields, want %d", rd.name, line, len(rec), rd.width)
		}
		if rd.hasMissing(rec) {
			rd.stats.DroppedMissing++
			continue
		}
		row, err := rd.parse(rec, line)
		if err != nil {
			return nil, rd.stats, err
		}
		t.Rows = append(t.Rows, row)
		if rd.idCol >= 0 {
			t.IDs = append(t.IDs, rd.trim(rec[rd.idCol]))
		}
	}
	rd.stats.Rows = len(t.Rows)
	if err := rd.opts.checkRead(rd.name, seen, rd.opts.Header, rd.stats); err != nil {
		return nil, rd.stats, err
	}
	return t, rd.stats, nil
}

// checkRead refuses an input in which no row was seen (header: its only
// line was the header row), or whose seen rows all have a missing value,
// then checks the rows kept against MinRows. Every reader (delimited text,
// Parquet, the streaming scan) says it in the same words.
func (o ReadOptions) checkRead(name string, seen int, header bool, st ReadStats) error {
	switch {
	case seen == 0 && header:
		return fmt.Errorf("data: no rows in %q: it holds only the header row", name)
	case seen == 0:
		return fmt.Errorf("data: no rows in %q", name)
	case st.Rows == 0:
		return fmt.Errorf("data: all %d rows of %q have a missing value", seen, name)
	}
	return o.checkRows(name, st)
}

// checkRows refuses fewer rows than MinRows.
func (o ReadOptions) checkRows(name string, st ReadStats) error {
	if st.Rows >= o.MinRows {
		return nil
	}
	dropped := ""
	if st.DroppedMissing > 0 {
		dropped = fmt.Sprintf(" once %d with a missing value are dropped", st.DroppedMissing)
	}
	rows := "rows"
	if st.Rows == 1 {
		rows = "row"
	}
	return fmt.Errorf("data: %q holds %d %s%s: a release needs at least %d (with n = 1, the default δ = 1/n² would be 1, which protects no one)", name, st.Rows, rows, dropped, o.MinRows)
}

func (rd *reader) hasMissing(rec []string) bool {
	if len(rd.missing) == 0 {
		return false
	}
	if rd.idCol >= 0 && rd.isMissing(rec[rd.idCol]) {
		return true
	}
	for _, c := range rd.cols {
		if rd.isMissing(rec[c]) {
			return true
		}
	}
	return false
}

// isMissing reports whether a field is a missing token. The tokens are
// few and short (by default "?" and ""): a longer field is none of them
// without hashing it (the check runs for every cell of a file).
func (rd *reader) isMissing(field string) bool {
	f := rd.trim(field)
	if len(f) > rd.maxMissing {
		return false
	}
	for _, m := range rd.missingList {
		if f == m {
			return true
		}
	}
	return false
}

func (rd *reader) parse(rec []string, line int) ([]float64, error) {
	return rd.parseInto(rec, line, rd.newRow())
}

// parseInto parses rec into row (one cell per attribute).
func (rd *reader) parseInto(rec []string, line int, row []float64) ([]float64, error) {
	for j, a := range rd.schema.Attributes {
		field := rd.trim(rec[rd.cols[j]])
		if a.Kind == Numeric {
			v, ok := parseDecimal(field)
			if !ok {
				var err error
				v, err = strconv.ParseFloat(field, 64)
				if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("data: %q line %d: column %q: %s is not a finite number", rd.name, line, a.Name, QuoteValue(field))
				}
			}
			if a.Integer && v != math.Trunc(v) {
				return nil, fmt.Errorf("data: %q line %d: %w", rd.name, line, notWholeError(a.Name, field))
			}
			if v < a.Min || v > a.Max {
				rd.stats.Clamped++
			}
			row[j] = v
			continue
		}
		k, err := rd.category(j, field)
		if err != nil {
			return nil, fmt.Errorf("data: %q line %d: %w", rd.name, line, err)
		}
		row[j] = float64(k)
	}
	return row, nil
}

func (rd *reader) category(j int, field string) (int, error) {
	if k, ok := rd.cats[j].get(field); ok {
		return k, nil
	}
	if suf := rd.opts.StripSuffix; suf != "" && strings.HasSuffix(field, suf) {
		if k, ok := rd.cats[j].get(strings.TrimSuffix(field, suf)); ok {
			return k, nil
		}
	}
	if rd.other[j] >= 0 {
		rd.stats.MappedToOther++
		return rd.other[j], nil
	}
	a := rd.schema.Attributes[j]
	return 0, fmt.Errorf("unknown category %s in column %q (declared: %s)", QuoteValue(field), a.Name, listBrief(a.Categories))
}

// notWholeError is a value with a fraction in an integer attribute's
// column: read as it is, it would stand outside the whole numbers the
// schema declares, and rounding it would change the data without saying
// so.
func notWholeError(column, field string) error {
	return fmt.Errorf("column %q is declared integer, but %s is not a whole number (fix the value, or declare the column without \"integer\": true)", column, QuoteValue(field))
}

// listBrief joins a list for an error message, eliding long ones (and
// cutting long items, as QuoteValue does).
func listBrief(xs []string) string {
	const most = 12
	shown := make([]string, 0, min(len(xs), most))
	for _, x := range xs[:min(len(xs), most)] {
		shown = append(shown, cutValue(x))
	}
	if len(xs) <= most {
		return strings.Join(shown, ", ")
	}
	return fmt.Sprintf("%s, ... (%d in all)", strings.Join(shown, ", "), len(xs))
}

// newRow hands out row slices cut from larger blocks, so that a big file
// costs a few allocations rather than one per row.
func (rd *reader) newRow() []float64 {
	w := len(rd.schema.Attributes)
	if len(rd.block) < w {
		rd.block = make([]float64, w*1024)
	}
	row := rd.block[:w:w]
	rd.block = rd.block[w:]
	return row
}

func (rd *reader) trim(s string) string {
	if rd.opts.KeepSpace {
		return s
	}
	return trimSpace(s)
}

func toSet(xs []string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

func hasAnyPrefix(s string, prefixes []string) bool {
	return slices.ContainsFunc(prefixes, func(p string) bool { return p != "" && strings.HasPrefix(s, p) })
}
