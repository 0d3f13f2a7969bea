package kit

import (
	"io"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/randx"
	"github.com/spf13/pflag"
)

// OwnerFlags choose the owners' data: a built-in dataset or CSV files.
type OwnerFlags struct {
	Dataset string
	Inputs  []string
	Schema  string
	Skip    []string
	Parties int
}

// Register adds the owners' data flags.
func (o *OwnerFlags) Register(fs *pflag.FlagSet) {
	fs.StringVar(&o.Dataset, "dataset", "", "built-in dataset (see `dppub datasets`), split among --owners owners")
	fs.StringArrayVar(&o.Inputs, "input", nil, "CSV/TSV file (gzip allowed) with a header row, a .parquet file, or - for standard input; repeat once per owner, or give one file and --owners")
	fs.StringVar(&o.Schema, "schema", "", "schema JSON for --input files (see README: column kinds and public bounds)")
	RegisterSkipColumns(fs, &o.Skip)
	fs.IntVar(&o.Parties, "owners", 0, "number of owners of rows to split one table into (default 3 for --dataset, 1 per --input file)")
	// --parties names parties of columns elsewhere; kept here for old scripts.
	fs.IntVar(&o.Parties, "parties", 0, "")
	_ = fs.MarkDeprecated("parties", "owners of rows are --owners; --parties is for parties of columns")
}

// load returns one table per owner.
func (o *OwnerFlags) Load(notes io.Writer, src *randx.Source) ([]*data.Table, error) {
	switch {
	case o.Dataset != "" && len(o.Inputs) > 0:
		return nil, Usagef("give --dataset or --input, not both")
	case o.Dataset == "" && len(o.Inputs) == 0:
		return nil, Usagef("no data: give --dataset NAME or --input FILE")
	case o.Parties < 0:
		return nil, Usagef("--owners must be positive, got %d", o.Parties)
	}
	if err := CheckStdinOnce("input", o.Inputs); err != nil {
		return nil, err
	}
	if err := CheckOwnerInputs(o.Inputs, o.Parties); err != nil {
		return nil, err
	}
	if o.Dataset != "" {
		t, err := LoadDataset(o.Dataset, o.Skip)
		if err != nil {
			return nil, err
		}
		return Split(t, max(o.Parties, 0), 3, src)
	}
	if o.Schema == "" {
		return nil, Usagef("--input needs --schema FILE (column kinds and public bounds)")
	}
	s, err := data.LoadSchema(o.Schema)
	if err != nil {
		return nil, err
	}
	var tables []*data.Table
	for _, path := range o.Inputs {
		t, _, err := ReadOwnerTable(notes, path, s, o.Skip)
		if err != nil {
			return nil, err
		}
		tables = append(tables, t)
	}
	return LayOutOwners(o.Inputs, tables, o.Parties, method.Rows, src)
}

// LayOutOwners returns one table per owner from the tables of the
// --input files, the same way for every method of several owners: each
// of several files is one owner (--owners, when given, must count them),
// and one file is split among --owners owners (its rows for owners of
// rows, its columns for parties of columns), or is one owner when
// --owners is not given (owners 0). paths are the files the tables were
// read from, for the messages.
func LayOutOwners(paths []string, tables []*data.Table, owners int, s method.Split, src *randx.Source) ([]*data.Table, error) {
	switch {
	case len(tables) > 1 || owners <= 1:
		return tables, nil
	case s == method.Columns:
		return data.SplitVerticalEven(tables[0], owners)
	}
	if n := tables[0].Len(); n < MinOwnerRows*owners {
		// Each owner's share is an owner's input to the release, held to
		// the same minimum as a file of its own (readOwnerTable).
		return nil, Usagef("--owners %d: %q holds %d rows, so an owner would get %d: a release needs at least %d rows per owner (give fewer owners)",
			owners, DisplayPath(paths[0], StdinName), n, n/owners, MinOwnerRows)
	}
	return data.SplitHorizontal(tables[0], owners, nil, src)
}

// CheckOwnerInputs checks, before any file is read, that the --input
// files can be laid out among --owners owners (owners 0: not given) and
// that no owner's file is another's (checkDistinctInputs).
func CheckOwnerInputs(inputs []string, owners int) error {
	switch {
	case owners < 0:
		return Usagef("--owners must be positive, got %d", owners)
	case len(inputs) > 1 && owners != 0 && owners != len(inputs):
		return Usagef("--owners %d does not match the %d --input files", owners, len(inputs))
	}
	return CheckDistinctInputs(inputs, OwnersOfRows)
}

// Split lays one table out among parties owners of rows (def when
// parties is 0; one owner keeps the table whole).
func Split(t *data.Table, parties, def int, src *randx.Source) ([]*data.Table, error) {
	if parties == 0 {
		parties = def
	}
	if parties == 1 {
		return []*data.Table{t}, nil
	}
	return data.SplitHorizontal(t, parties, nil, src)
}

// Union is the owners' rows as one table.
func Union(tables []*data.Table) *data.Table {
	u := &data.Table{Schema: tables[0].Schema}
	for _, t := range tables {
		u.Rows = append(u.Rows, t.Rows...)
	}
	return u
}
