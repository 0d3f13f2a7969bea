// The header row of delimited text: matching its columns to the schema's
// (renamed, skipped or ignored ones), and telling a file that has none.

package data

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

func (rd *reader) mapHeader() error {
	header, line, err := rd.next()
	if err == io.EOF {
		return fmt.Errorf("data: %q is empty: want a header row naming the columns, then one row per record", rd.name)
	}
	if err != nil {
		return err
	}
	if err := rd.matchHeader(header, line); err != nil {
		if HeaderLooksLikeData(header) && !rd.namesAnyColumn(header) {
			return headerlessError(rd.name, rd.schema.Names())
		}
		return err
	}
	return nil
}

// namesAnyColumn reports whether a header names some column of the
// declared schema (then it is a header, however numeric its other names).
func (rd *reader) namesAnyColumn(header []string) bool {
	for _, h := range header {
		h = rd.trim(h)
		if _, err := rd.declared.Attribute(h); err == nil || (h != "" && h == rd.declared.ID) {
			return true
		}
	}
	return false
}

// ErrNoHeader is the error of a file whose first row looks like data
// where a header row naming the columns is needed.
var ErrNoHeader = errors.New("the first row looks like data")

// headerlessError says that the input seems to have no header and how to
// give it one: the way `dppub schema` (ReadRaw) and the readers tell a
// headerless file, in one place.
func headerlessError(name string, columns []string) error {
	fix := "add one as its first line, naming the columns in the file's order (a .names file or code book lists them)"
	if len(columns) > 0 {
		fix += "; the schema's are " + listBrief(columns)
	}
	return fmt.Errorf("data: %q: %w; dppub needs a header row naming the columns: %s", name, ErrNoHeader, fix)
}

// matchHeader maps the schema's columns to the header's.
func (rd *reader) matchHeader(header []string, line int) error {
	var err error
	pos := make(map[string]int, len(header))
	for i, h := range header {
		h = rd.trim(h)
		if to, ok := rd.opts.Rename[h]; ok {
			h = to
		}
		if _, dup := pos[h]; dup {
			return fmt.Errorf("data: %q line %d: header names column %s twice", rd.name, line, QuoteValue(h))
		}
		pos[h] = i
	}
	used := make(map[int]bool, len(header))
	find := func(col string) (int, error) {
		i, ok := pos[col]
		if !ok {
			return 0, fmt.Errorf("data: %q line %d: header lacks column %q of the schema", rd.name, line, col)
		}
		used[i] = true
		return i, nil
	}
	rd.cols = make([]int, len(rd.schema.Attributes))
	for j, a := range rd.schema.Attributes {
		if rd.cols[j], err = find(a.Name); err != nil {
			return err
		}
	}
	rd.idCol = -1
	if rd.schema.ID != "" {
		if _, ok := pos[rd.schema.ID]; !ok && rd.opts.OptionalID {
			rd.schema.ID = ""
		} else if rd.idCol, err = find(rd.schema.ID); err != nil {
			return err
		}
	}
	ignore := toSet(rd.opts.IgnoreColumns)
	for _, col := range rd.opts.SkipColumns {
		_, inHeader := pos[col]
		_, attrErr := rd.declared.Attribute(col)
		switch {
		case inHeader:
			ignore[col] = true
			rd.stats.Ignored++
		case attrErr != nil && col != rd.declared.ID:
			return fmt.Errorf("data: %q: column %s to skip is neither in the header (%s) nor in the schema", rd.name, QuoteValue(col), listBrief(header))
		}
	}
	for _, col := range rd.opts.IgnoreColumns {
		i, ok := pos[col]
		switch {
		case !ok:
			return fmt.Errorf("data: %q: column %s to skip is not in the header (%s)", rd.name, QuoteValue(col), listBrief(header))
		case used[i]:
			return fmt.Errorf("data: %q: column %q to skip is declared by the schema (read it, or leave it out of the schema)", rd.name, col)
		}
	}
	for _, h := range header { // in file order, so the first extra column is named
		h = rd.trim(h)
		if to, ok := rd.opts.Rename[h]; ok {
			h = to
		}
		if !used[pos[h]] && !ignore[h] {
			return &UnknownColumnError{Input: rd.name, Line: line, Column: h}
		}
	}
	rd.stats.Ignored += len(rd.opts.IgnoreColumns)
	rd.width = len(header)
	return nil
}

// without returns s without the attributes (and the ID column) named.
func (s Schema) without(names []string) (Schema, error) {
	if len(names) == 0 {
		return s, nil
	}
	out := s.clone()
	out.Attributes = nil
	for _, a := range s.Attributes {
		if !slices.Contains(names, a.Name) {
			out.Attributes = append(out.Attributes, a)
		}
	}
	if len(out.Attributes) == 0 {
		return Schema{}, fmt.Errorf("skipping %s leaves no attribute of the schema", listBrief(names))
	}
	if s.Label != "" && slices.Contains(names, s.Label) {
		out.Label = ""
	}
	if s.ID != "" && slices.Contains(names, s.ID) {
		out.ID = ""
	}
	return out, nil
}

// UnknownColumnError is a header column that is neither an attribute of
// the schema nor its ID column, nor listed in ReadOptions.IgnoreColumns.
type UnknownColumnError struct {
	Input  string // the input's name
	Line   int    // the header's line
	Column string // the column's name in the header
	// Remedy says what to do (default: declare the column or skip it); a
	// command line names its own flag.
	Remedy string
}

func (e *UnknownColumnError) Error() string {
	remedy := e.Remedy
	if remedy == "" {
		remedy = "declare it in the schema, or skip it"
	}
	return fmt.Sprintf("data: %q line %d: column %s is not in the schema (%s)", e.Input, e.Line, QuoteValue(e.Column), remedy)
}

// HeaderLooksLikeData reports whether a first row is more likely a record
// than a header: some field is a number (column names are words).
func HeaderLooksLikeData(fields []string) bool {
	for _, f := range fields {
		if _, err := strconv.ParseFloat(strings.TrimSpace(f), 64); err == nil {
			return true
		}
	}
	return false
}
