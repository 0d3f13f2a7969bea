package data

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"strings"
)

// Raw is a delimited file read as text, before any schema: the header
// row and the records, each field trimmed of surrounding space.
type Raw struct {
	Header  []string
	Records [][]string
}

// ReadRaw reads delimited text with a header row (gzip, a byte order mark
// and the separator handled as in ReadCSV) without a schema, for tools that look at a file
// before its schema exists (schema discovery). Every record must have as
// many fields as the header; a first row that looks like data is refused
// with a message saying that a header row is needed.
func ReadRaw(r io.Reader, name string) (*Raw, error) {
	in, err := openText(r, name)
	if err != nil {
		return nil, err
	}
	raw, err := readRaw(in.Reader, name)
	return raw, in.blame(err)
}

func readRaw(br *bufio.Reader, name string) (*Raw, error) {
	cr := csv.NewReader(br)
	cr.Comma = detectComma(br, nil)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("data: %q is empty: want a header row naming the columns, then one row per record", name)
	}
	if err != nil {
		return nil, wrapRead(name, err)
	}
	raw := &Raw{Header: trimAll(header)}
	if HeaderLooksLikeData(raw.Header) {
		return nil, headerlessError(name, nil)
	}
	if err := checkHeaderNames(raw.Header, name); err != nil {
		return nil, err
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, wrapRead(name, err)
		}
		if len(rec) != len(raw.Header) {
			line, _ := cr.FieldPos(0)
			return nil, fmt.Errorf("data: %q line %d has %d fields, want %d", name, line, len(rec), len(raw.Header))
		}
		raw.Records = append(raw.Records, trimAll(rec))
	}
	if len(raw.Records) == 0 {
		return nil, fmt.Errorf("data: no rows in %q: it holds only the header row", name)
	}
	return raw, nil
}

func checkHeaderNames(header []string, name string) error {
	seen := make(map[string]bool, len(header))
	for i, h := range header {
		if h == "" {
			return fmt.Errorf("data: %q: header column %d has no name", name, i+1)
		}
		if seen[h] {
			return fmt.Errorf("data: %q: header names column %s twice", name, QuoteValue(h))
		}
		seen[h] = true
	}
	return nil
}

func trimAll(rec []string) []string {
	out := make([]string, len(rec))
	for i, f := range rec {
		out[i] = strings.TrimSpace(f)
	}
	return out
}

// Column returns the values of header column j.
func (r *Raw) Column(j int) []string {
	col := make([]string, len(r.Records))
	for i, rec := range r.Records {
		col[i] = rec[j]
	}
	return col
}

// IsMissing reports whether a raw field is one of the default missing
// tokens ("?" or empty), which ReadCSV drops.
func IsMissing(field string) bool {
	for _, m := range defaultMissing {
		if field == m {
			return true
		}
	}
	return false
}
