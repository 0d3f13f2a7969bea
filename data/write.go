package data

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// WriteCSV writes t as comma-separated text with a header row: the ID
// column first (if any), then the attributes; categories are written as
// their names and numbers in plain decimal notation (never exponents):
// integer attributes as whole numbers, others with their Decimals places,
// or without Decimals in the shortest form that reads back exactly.
// ReadCSV with Header (or without, since the column order is the
// header-less one) reads it back.
func WriteCSV(w io.Writer, t *Table) error {
	if err := t.Validate(); err != nil {
		return err
	}
	if err := WriteCSVHeader(w, t.Schema); err != nil {
		return err
	}
	return writeRows(w, t)
}

// WriteCSVHeader writes WriteCSV's header row for schema s; WriteCSVRows
// then writes the rows of one table after another, so that a table too
// big to hold is written a piece at a time, byte for byte as WriteCSV
// would write it whole.
func WriteCSVHeader(w io.Writer, s Schema) error {
	cw := csv.NewWriter(w)
	var rec []string
	if s.ID != "" {
		rec = append(rec, s.ID)
	}
	if err := cw.Write(append(rec, s.Names()...)); err != nil {
		return fmt.Errorf("data: write csv: %w", err)
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("data: write csv: %w", err)
	}
	return nil
}

// WriteCSVRows writes t's rows as WriteCSV does, without the header.
func WriteCSVRows(w io.Writer, t *Table) error {
	if err := t.Validate(); err != nil {
		return err
	}
	return writeRows(w, t)
}

func writeRows(w io.Writer, t *Table) error {
	cw := csv.NewWriter(w)
	offset := 0
	if t.Schema.ID != "" {
		offset = 1
	}
	rec := make([]string, offset+len(t.Schema.Attributes))
	for i, row := range t.Rows {
		if offset == 1 {
			rec[0] = t.IDs[i]
		}
		for j, a := range t.Schema.Attributes {
			rec[offset+j] = formatCell(a, row[j])
		}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("data: write csv: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("data: write csv: %w", err)
	}
	return nil
}

func formatCell(a Attribute, v float64) string {
	if a.Kind != Numeric {
		return a.Categories[int(v)]
	}
	prec := -1
	switch {
	case a.Integer && v == math.Trunc(v):
		prec = 0
	case a.Decimals > 0:
		prec = a.Decimals
	}
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.TrimLeft(s, "-0.") == "" {
		return strings.TrimPrefix(s, "-") // no "-0" nor "-0.00"
	}
	return s
}

// AsWritten is v as a CSV file written by WriteCSV holds it, read back:
// rounded to the attribute's decimals (a whole value of an integer
// attribute, and any other value, round-trips exactly). A quality figure
// computed on a table about to be written counts it as dppub compare will
// read it from the file.
func (a Attribute) AsWritten(v float64) float64 {
	if a.Kind != Numeric || a.Decimals <= 0 || (a.Integer && v == math.Trunc(v)) {
		return v
	}
	r, err := strconv.ParseFloat(formatCell(a, v), 64)
	if err != nil {
		panic(fmt.Sprintf("data: formatted %v as %q, which does not parse", v, formatCell(a, v)))
	}
	return r
}
