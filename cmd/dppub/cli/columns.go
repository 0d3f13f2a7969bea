package cli

import (
	"errors"
	"fmt"
	"github.com/dppub/dppub/datasets"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/dppub/dppub/data"
	"github.com/spf13/pflag"
)

// skipColumnsFlag is the one name of the flag, on every command that
// reads a CSV, that leaves columns out (data.ReadOptions.SkipColumns).
const skipColumnsFlag = "skip-columns"

// registerSkipColumns adds --skip-columns to fs, writing the names to p.
func registerSkipColumns(fs *pflag.FlagSet, p *[]string) {
	fs.StringSliceVar(p, skipColumnsFlag, nil,
		"columns of the input CSV to leave out, comma-separated or repeated: extra columns the schema does not declare (an ID, a note), or declared ones to drop")
}

// stdinPath is the --input (or positional input) that reads standard
// input, and stdinName how messages name it.
const (
	stdinPath = "-"
	stdinName = "standard input"
)

// displayPath names a path in messages: stream ("standard input",
// "standard output") for "-".
func displayPath(path, stream string) string {
	if path == stdinPath {
		return stream
	}
	return path
}

// readOptionalID reads a table as readTable does, with the schema's ID
// column only when the file has one (data.ReadOptions OptionalID): a
// synthetic table stands for no one, so synthesize writes none, and a
// held-out file may come with or without the owners' identifiers.
func readOptionalID(notes io.Writer, path string, s data.Schema, skip []string) (*data.Table, data.ReadStats, error) {
	return readWith(notes, path, s, data.ReadOptions{Header: true, SkipColumns: skip, OptionalID: true})
}

// readSynthetic reads a synthetic table for comparison with the real one
// (compare, check): the schema's ID column only when the file has one
// (readOptionalID), and of the --skip-columns only those the file has.
// An ID or note column of the owner's file is in the real table and
// named in --skip-columns, but a synthetic table has none: it stands for
// no one. The declared columns named are always left out, so that both
// tables keep the same attributes.
func readSynthetic(notes io.Writer, path string, s data.Schema, skip []string) (*data.Table, data.ReadStats, error) {
	var declared []string
	for _, name := range skip {
		if _, err := s.Attribute(name); err == nil || name == s.ID {
			declared = append(declared, name)
		}
	}
	t, st, err := readOptionalID(notes, path, s, declared)
	var unknown *data.UnknownColumnError
	if err != nil && path != stdinPath && errors.As(err, &unknown) && slices.Contains(skip, unknown.Column) {
		// The synthetic file has the undeclared column too: skip them all.
		return readOptionalID(notes, path, s, skip)
	}
	return t, st, err
}

// readTable reads one CSV/TSV file with a header row (gzip allowed), a
// Parquet file (a path ending in .parquet), or standard input (CSV) for
// "-", with schema s, leaving out the columns in skip (--skip-columns).
// When notes is set, it says there how many rows were dropped for a
// missing value (for the owner's eyes: the count is not released).
func readTable(notes io.Writer, path string, s data.Schema, skip []string) (*data.Table, data.ReadStats, error) {
	return readWith(notes, path, s, data.ReadOptions{Header: true, SkipColumns: skip})
}

// minOwnerRows is the fewest rows an owner's input to a release may hold
// (data.ReadOptions.MinRows): with one row, the default δ = 1/n² is 1.
const minOwnerRows = 2

// readOwnerTable is readTable of an owner's data for a release: fewer
// than minOwnerRows rows is an error naming the file and its count.
func readOwnerTable(notes io.Writer, path string, s data.Schema, skip []string) (*data.Table, data.ReadStats, error) {
	return readWith(notes, path, s, data.ReadOptions{Header: true, SkipColumns: skip, MinRows: minOwnerRows})
}

// readWith is readTable with the read options o.
func readWith(notes io.Writer, path string, s data.Schema, o data.ReadOptions) (*data.Table, data.ReadStats, error) {
	var (
		t   *data.Table
		st  data.ReadStats
		err error
	)
	switch {
	case path == stdinPath:
		o.Name = stdinName
		t, st, err = data.ReadCSV(os.Stdin, s, o)
	case data.IsParquetPath(path):
		t, st, err = data.ReadParquetFile(path, s, o)
	default:
		t, st, err = data.ReadFile(path, s, o)
	}
	if err == nil && notes != nil && st.DroppedMissing > 0 {
		fmt.Fprintf(notes, "%s: %d of %d rows dropped for a missing value (not released)\n", displayPath(path, stdinName), st.DroppedMissing, st.DroppedMissing+t.Len())
	}
	return t, st, err
}

// dropColumns applies --skip-columns to a built-in dataset's table.
// loadDataset loads built-in dataset name without the columns skip names.
func loadDataset(name string, skip []string) (*data.Table, error) {
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
			return nil, usagef("--%s: the dataset has no column %q (%s)", skipColumnsFlag, name, strings.Join(t.Schema.Names(), ", "))
		}
	}
	var keep []string
	for _, name := range t.Schema.Names() {
		if !slices.Contains(skip, name) {
			keep = append(keep, name)
		}
	}
	if len(keep) == 0 {
		return nil, usagef("--%s leaves no column of the dataset", skipColumnsFlag)
	}
	return t.SelectColumns(keep...)
}

// openInput opens a file, or standard input for "-", and the name to
// give it in messages.
func openInput(path string) (io.ReadCloser, string, error) {
	if path == stdinPath {
		return io.NopCloser(os.Stdin), stdinName, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, path, fmt.Errorf("data: %w", err)
	}
	return f, path, nil
}

// checkStdinOnce refuses standard input named as more than one input:
// it can be read once.
func checkStdinOnce(flag string, paths []string) error {
	n := 0
	for _, p := range paths {
		if p == stdinPath {
			n++
		}
	}
	if n > 1 {
		return usagef("--%s - (standard input) given %d times: standard input can be read once", flag, n)
	}
	return nil
}
