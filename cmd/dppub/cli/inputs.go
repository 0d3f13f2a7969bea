package cli

import (
	"io"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/randx"
	"github.com/spf13/pflag"
)

// ownerFlags choose the owners' data: a built-in dataset or CSV files.
type ownerFlags struct {
	dataset string
	inputs  []string
	schema  string
	skip    []string
	parties int
}

func (o *ownerFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&o.dataset, "dataset", "", "built-in dataset (see `dppub datasets`), split among --owners owners")
	fs.StringArrayVar(&o.inputs, "input", nil, "CSV/TSV file (gzip allowed) with a header row, a .parquet file, or - for standard input; repeat once per owner, or give one file and --owners")
	fs.StringVar(&o.schema, "schema", "", "schema JSON for --input files (see README: column kinds and public bounds)")
	kit.RegisterSkipColumns(fs, &o.skip)
	fs.IntVar(&o.parties, "owners", 0, "number of owners of rows to split one table into (default 3 for --dataset, 1 per --input file)")
	// --parties names parties of columns elsewhere; kept here for old scripts.
	fs.IntVar(&o.parties, "parties", 0, "")
	_ = fs.MarkDeprecated("parties", "owners of rows are --owners; --parties is for parties of columns")
}

// load returns one table per owner.
func (o *ownerFlags) load(notes io.Writer, src *randx.Source) ([]*data.Table, error) {
	switch {
	case o.dataset != "" && len(o.inputs) > 0:
		return nil, kit.Usagef("give --dataset or --input, not both")
	case o.dataset == "" && len(o.inputs) == 0:
		return nil, kit.Usagef("no data: give --dataset NAME or --input FILE")
	case o.parties < 0:
		return nil, kit.Usagef("--owners must be positive, got %d", o.parties)
	}
	if err := checkStdinOnce("input", o.inputs); err != nil {
		return nil, err
	}
	if err := checkOwnerInputs(o.inputs, o.parties); err != nil {
		return nil, err
	}
	if o.dataset != "" {
		t, err := loadDataset(o.dataset, o.skip)
		if err != nil {
			return nil, err
		}
		return split(t, max(o.parties, 0), 3, src)
	}
	if o.schema == "" {
		return nil, kit.Usagef("--input needs --schema FILE (column kinds and public bounds)")
	}
	s, err := data.LoadSchema(o.schema)
	if err != nil {
		return nil, err
	}
	var tables []*data.Table
	for _, path := range o.inputs {
		t, _, err := readOwnerTable(notes, path, s, o.skip)
		if err != nil {
			return nil, err
		}
		tables = append(tables, t)
	}
	return layOutOwners(o.inputs, tables, o.parties, method.Rows, src)
}

// layOutOwners returns one table per owner from the tables of the
// --input files, the same way for every method of several owners: each
// of several files is one owner (--owners, when given, must count them),
// and one file is split among --owners owners (its rows for owners of
// rows, its columns for parties of columns), or is one owner when
// --owners is not given (owners 0). paths are the files the tables were
// read from, for the messages.
func layOutOwners(paths []string, tables []*data.Table, owners int, s method.Split, src *randx.Source) ([]*data.Table, error) {
	switch {
	case len(tables) > 1 || owners <= 1:
		return tables, nil
	case s == method.Columns:
		return data.SplitVerticalEven(tables[0], owners)
	}
	if n := tables[0].Len(); n < kit.MinOwnerRows*owners {
		// Each owner's share is an owner's input to the release, held to
		// the same minimum as a file of its own (readOwnerTable).
		return nil, kit.Usagef("--owners %d: %q holds %d rows, so an owner would get %d: a release needs at least %d rows per owner (give fewer owners)",
			owners, kit.DisplayPath(paths[0], kit.StdinName), n, n/owners, kit.MinOwnerRows)
	}
	return data.SplitHorizontal(tables[0], owners, nil, src)
}

// checkOwnerInputs checks, before any file is read, that the --input
// files can be laid out among --owners owners (owners 0: not given) and
// that no owner's file is another's (checkDistinctInputs).
func checkOwnerInputs(inputs []string, owners int) error {
	switch {
	case owners < 0:
		return kit.Usagef("--owners must be positive, got %d", owners)
	case len(inputs) > 1 && owners != 0 && owners != len(inputs):
		return kit.Usagef("--owners %d does not match the %d --input files", owners, len(inputs))
	}
	return kit.CheckDistinctInputs(inputs, kit.OwnersOfRows)
}

func split(t *data.Table, parties, def int, src *randx.Source) ([]*data.Table, error) {
	if parties == 0 {
		parties = def
	}
	if parties == 1 {
		return []*data.Table{t}, nil
	}
	return data.SplitHorizontal(t, parties, nil, src)
}

func union(tables []*data.Table) *data.Table {
	u := &data.Table{Schema: tables[0].Schema}
	for _, t := range tables {
		u.Rows = append(u.Rows, t.Rows...)
	}
	return u
}
