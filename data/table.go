package data

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Table is a data set in memory. Rows[i][j] is the value of attribute j in
// record i: the value itself for a numeric attribute, the category index
// (as a float64) for a categorical or binary one. IDs holds the ID column
// and is nil when Schema.ID is empty.
type Table struct {
	Schema Schema
	Rows   [][]float64
	IDs    []string
}

// Len returns the number of rows.
func (t *Table) Len() int { return len(t.Rows) }

// Validate checks that every row has one cell per attribute, that
// category cells hold a valid index and numeric cells a finite number,
// and that IDs match the rows.
func (t *Table) Validate() error {
	if err := t.Schema.Validate(); err != nil {
		return err
	}
	if t.Schema.ID != "" && len(t.IDs) != len(t.Rows) {
		return fmt.Errorf("data: table has %d IDs for %d rows", len(t.IDs), len(t.Rows))
	}
	if t.Schema.ID == "" && t.IDs != nil {
		return errors.New("data: table has IDs but its schema names no ID column")
	}
	for i, row := range t.Rows {
		if len(row) != len(t.Schema.Attributes) {
			return fmt.Errorf("data: row %d has %d cells, want %d", i, len(row), len(t.Schema.Attributes))
		}
		for j, v := range row {
			if err := checkCell(t.Schema.Attributes[j], v); err != nil {
				return fmt.Errorf("data: row %d: %w", i, err)
			}
		}
	}
	return nil
}

func checkCell(a Attribute, v float64) error {
	if a.Kind == Numeric {
		if !isFinite(v) {
			return fmt.Errorf("attribute %q holds %g", a.Name, v)
		}
		return nil
	}
	if v != math.Trunc(v) || v < 0 || int(v) >= len(a.Categories) {
		return fmt.Errorf("attribute %q holds %g, not a category index in [0, %d)", a.Name, v, len(a.Categories))
	}
	return nil
}

// Column returns a copy of the named attribute's values.
func (t *Table) Column(name string) ([]float64, error) {
	j, err := t.Schema.Index(name)
	if err != nil {
		return nil, err
	}
	col := make([]float64, len(t.Rows))
	for i, row := range t.Rows {
		col[i] = row[j]
	}
	return col, nil
}

// Share is the share of the rows whose attribute name holds exactly v
// (e.g. how much of a column a point mass at 0 holds).
func (t *Table) Share(name string, v float64) (float64, error) {
	j, err := t.Schema.Index(name)
	if err != nil {
		return 0, err
	}
	if len(t.Rows) == 0 {
		return 0, nil
	}
	n := 0
	for _, row := range t.Rows {
		if row[j] == v {
			n++
		}
	}
	return float64(n) / float64(len(t.Rows)), nil
}

// Subset returns a new table with copies of the given rows, in that
// order. It panics on an out-of-range index (programmer error).
func (t *Table) Subset(rows []int) *Table {
	out := &Table{Schema: t.Schema.clone(), Rows: make([][]float64, len(rows))}
	if t.IDs != nil {
		out.IDs = make([]string, len(rows))
	}
	cells := make([]float64, len(rows)*len(t.Schema.Attributes))
	w := len(t.Schema.Attributes)
	for k, i := range rows {
		out.Rows[k] = cells[k*w : (k+1)*w : (k+1)*w]
		copy(out.Rows[k], t.Rows[i])
		if t.IDs != nil {
			out.IDs[k] = t.IDs[i]
		}
	}
	return out
}

// SelectColumns returns a new table with copies of the named attributes,
// in the order given; the IDs are kept.
func (t *Table) SelectColumns(names ...string) (*Table, error) {
	idx, err := t.Schema.indices(names)
	if err != nil {
		return nil, err
	}
	schema, _ := t.Schema.Select(names...)
	out := &Table{Schema: schema, Rows: make([][]float64, len(t.Rows)), IDs: slices.Clone(t.IDs)}
	cells := make([]float64, len(t.Rows)*len(idx))
	w := len(idx)
	for i, row := range t.Rows {
		dst := cells[i*w : (i+1)*w : (i+1)*w]
		for k, j := range idx {
			dst[k] = row[j]
		}
		out.Rows[i] = dst
	}
	return out, nil
}

// Concat stacks tables with equal schemas into a new table.
func Concat(tables ...*Table) (*Table, error) {
	if len(tables) == 0 {
		return nil, errors.New("data: nothing to concatenate")
	}
	first := tables[0]
	n := 0
	for i, t := range tables {
		if !t.Schema.Equal(first.Schema) {
			return nil, fmt.Errorf("data: table %d has a different schema from table 0", i)
		}
		n += t.Len()
	}
	all := make([]int, 0, n)
	out := &Table{Schema: first.Schema.clone(), Rows: make([][]float64, 0, n)}
	if first.Schema.ID != "" {
		out.IDs = make([]string, 0, n)
	}
	for _, t := range tables {
		all = all[:0]
		for i := range t.Rows {
			all = append(all, i)
		}
		part := t.Subset(all)
		out.Rows = append(out.Rows, part.Rows...)
		out.IDs = append(out.IDs, part.IDs...)
	}
	return out, nil
}

// CommonIDs are the IDs every table holds, in ascending order: the rows a
// linked vertical split joins on, in the order a linked session lays them
// out. An ID repeated within one table counts once for it.
func CommonIDs(tables []*Table) []string {
	count := map[string]int{}
	for _, t := range tables {
		seen := make(map[string]bool, len(t.IDs))
		for _, id := range t.IDs {
			if !seen[id] {
				seen[id] = true
				count[id]++
			}
		}
	}
	var ids []string
	for id, c := range count {
		if c == len(tables) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// Equal reports whether two tables have the same schema, cells and IDs.
func (t *Table) Equal(o *Table) bool {
	return t.Schema.Equal(o.Schema) && slices.Equal(t.IDs, o.IDs) &&
		slices.EqualFunc(t.Rows, o.Rows, slices.Equal)
}

// Category returns the category name held in row i, column of attribute
// name, which must be categorical or binary.
func (t *Table) Category(i int, name string) (string, error) {
	j, err := t.Schema.Index(name)
	if err != nil {
		return "", err
	}
	a := t.Schema.Attributes[j]
	if a.Kind == Numeric {
		return "", fmt.Errorf("data: attribute %q is numeric, not categorical", name)
	}
	if i < 0 || i >= len(t.Rows) {
		return "", fmt.Errorf("data: row %d out of range [0, %d)", i, len(t.Rows))
	}
	if err := checkCell(a, t.Rows[i][j]); err != nil {
		return "", fmt.Errorf("data: row %d: %w", i, err)
	}
	return a.Categories[int(t.Rows[i][j])], nil
}

// Counts returns how many rows hold each category of a categorical or
// binary attribute, indexed like its Categories.
func (t *Table) Counts(name string) ([]int, error) {
	j, err := t.Schema.Index(name)
	if err != nil {
		return nil, err
	}
	a := t.Schema.Attributes[j]
	if a.Kind == Numeric {
		return nil, fmt.Errorf("data: attribute %q is numeric, not categorical", name)
	}
	counts := make([]int, len(a.Categories))
	for i, row := range t.Rows {
		if err := checkCell(a, row[j]); err != nil {
			return nil, fmt.Errorf("data: row %d: %w", i, err)
		}
		counts[int(row[j])]++
	}
	return counts, nil
}
