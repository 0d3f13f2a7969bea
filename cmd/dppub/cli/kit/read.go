package kit

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/dppub/dppub/datasets"

	"github.com/dppub/dppub/data"
)

// readOptionalID reads a table as readTable does, with the schema's ID
// column only when the file has one (data.ReadOptions OptionalID): a
// synthetic table stands for no one, so synthesize writes none, and a
// held-out file may come with or without the owners' identifiers.
func readOptionalID(notes io.Writer, path string, s data.Schema, skip []string) (*data.Table, data.ReadStats, error) {
	return readWith(notes, path, s, data.ReadOptions{Header: true, SkipColumns: skip, OptionalID: true})
}

// ReadSynthetic reads a synthetic table for comparison with the real one
// (compare, check): the schema's ID column only when the file has one
// (readOptionalID), and of the --skip-columns only those the file has.
// An ID or note column of the owner's file is in the real table and
// named in --skip-columns, but a synthetic table has none: it stands for
// no one. The declared columns named are always left out, so that both
// tables keep the same attributes.
func ReadSynthetic(notes io.Writer, path string, s data.Schema, skip []string) (*data.Table, data.ReadStats, error) {
	var declared []string
	for _, name := range skip {
		if _, err := s.Attribute(name); err == nil || name == s.ID {
			declared = append(declared, name)
		}
	}
	t, st, err := readOptionalID(notes, path, s, declared)
	var unknown *data.UnknownColumnError
	if err != nil && path != StdinPath && errors.As(err, &unknown) && slices.Contains(skip, unknown.Column) {
		// The synthetic file has the undeclared column too: skip them all.
		return readOptionalID(notes, path, s, skip)
	}
	return t, st, err
}

// ReadTable reads one CSV/TSV file with a header row (gzip allowed), a
// Parquet file (a path ending in .parquet), or standard input (CSV) for
// "-", with schema s, leaving out the columns in skip (--skip-columns).
// When notes is set, it says there how many rows were dropped for a
// missing value (for the owner's eyes: the count is not released).
func ReadTable(notes io.Writer, path string, s data.Schema, skip []string) (*data.Table, data.ReadStats, error) {
	return readWith(notes, path, s, data.ReadOptions{Header: true, SkipColumns: skip})
}

// ReadOwnerTable is readTable of an owner's data for a release: fewer
// than minOwnerRows rows is an error naming the file and its count.
func ReadOwnerTable(notes io.Writer, path string, s data.Schema, skip []string) (*data.Table, data.ReadStats, error) {
	return readWith(notes, path, s, data.ReadOptions{Header: true, SkipColumns: skip, MinRows: MinOwnerRows})
}

// readWith is readTable with the read options o.
func readWith(notes io.Writer, path string, s data.Schema, o data.ReadOptions) (*data.Table, data.ReadStats, error) {
	var (
		t   *data.Table
		st  data.ReadStats
		err error
	)
	switch {
	case path == StdinPath:
		o.Name = StdinName
		t, st, err = data.ReadCSV(os.Stdin, s, o)
	case data.IsParquetPath(path):
		t, st, err = data.ReadParquetFile(path, s, o)
	default:
		t, st, err = data.ReadFile(path, s, o)
	}
	if err == nil && notes != nil && st.DroppedMissing > 0 {
		fmt.Fprintf(notes, "%s: %d of %d rows dropped for a missing value (not released)\n", DisplayPath(path, StdinName), st.DroppedMissing, st.DroppedMissing+t.Len())
	}
	return t, st, err
}

// dropColumns applies --skip-columns to a built-in dataset's table.
// LoadDataset loads built-in dataset name without the columns skip names.
func LoadDataset(name string, skip []string) (*data.Table, error) {
	t, err := datasets.Load(name)
	if err != nil {
		return nil, err
	}
	return dropColumns(t, skip)
}

func dropColumns(t *data.Table, skip []string) (*data.Table, error) {
	if len(skip) == 0 {
		return t, nil
	}
	for _, name := range skip {
		if _, err := t.Schema.Attribute(name); err != nil {
			return nil, Usagef("--%s: the dataset has no column %q (%s)", SkipColumnsFlag, name, strings.Join(t.Schema.Names(), ", "))
		}
	}
	var keep []string
	for _, name := range t.Schema.Names() {
		if !slices.Contains(skip, name) {
			keep = append(keep, name)
		}
	}
	if len(keep) == 0 {
		return nil, Usagef("--%s leaves no column of the dataset", SkipColumnsFlag)
	}
	return t.SelectColumns(keep...)
}

// OpenInput opens a file, or standard input for "-", and the name to
// give it in messages.
func OpenInput(path string) (io.ReadCloser, string, error) {
	if path == StdinPath {
		return io.NopCloser(os.Stdin), StdinName, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, path, fmt.Errorf("data: %w", err)
	}
	return f, path, nil
}

// CheckStdinOnce refuses standard input named as more than one input:
// it can be read once.
func CheckStdinOnce(flag string, paths []string) error {
	n := 0
	for _, p := range paths {
		if p == StdinPath {
			n++
		}
	}
	if n > 1 {
		return Usagef("--%s - (standard input) given %d times: standard input can be read once", flag, n)
	}
	return nil
}
