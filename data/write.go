package data

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
)

// WriteCSV writes t as comma-separated text with a header row: the ID
// column first (if any), then the attributes; categories are written as
// their names and numbers in the shortest form that reads back exactly.
// ReadCSV with Header (or without, since the column order is the
// header-less one) reads it back.
func WriteCSV(w io.Writer, t *Table) error {
	if err := t.Validate(); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	offset := 0
	if t.Schema.ID != "" {
		offset = 1
	}
	rec := make([]string, offset+len(t.Schema.Attributes))
	if offset == 1 {
		rec[0] = t.Schema.ID
	}
	copy(rec[offset:], t.Schema.Names())
	if err := cw.Write(rec); err != nil {
		return fmt.Errorf("data: write csv: %w", err)
	}
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
	if a.Kind == Numeric {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return a.Categories[int(v)]
}
