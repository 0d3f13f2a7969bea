package cli

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"os"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// sourceFlags choose the randomness.
type sourceFlags struct {
	seed uint64
}

func (s *sourceFlags) register(fs *pflag.FlagSet) {
	fs.Uint64Var(&s.seed, "seed", 0, "INSECURE: seed the randomness for a reproducible run (tests and experiments only; the output carries no privacy guarantee)")
}

func (s *sourceFlags) source(fs *pflag.FlagSet, stderr io.Writer) *randx.Source {
	if fs.Changed("seed") {
		fmt.Fprintf(stderr, "WARNING: --seed %d makes the noise predictable: this output carries NO privacy guarantee\n", s.seed)
		return randx.NewSeeded(s.seed)
	}
	return randx.NewSecure()
}

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
	registerSkipColumns(fs, &o.skip)
	fs.IntVar(&o.parties, "owners", 0, "number of owners of rows to split one table into (default 3 for --dataset, 1 per --input file)")
	// --parties names parties of columns elsewhere; kept here for old scripts.
	fs.IntVar(&o.parties, "parties", 0, "")
	_ = fs.MarkDeprecated("parties", "owners of rows are --owners; --parties is for parties of columns")
}

// load returns one table per owner.
func (o *ownerFlags) load(notes io.Writer, src *randx.Source) ([]*data.Table, error) {
	switch {
	case o.dataset != "" && len(o.inputs) > 0:
		return nil, usagef("give --dataset or --input, not both")
	case o.dataset == "" && len(o.inputs) == 0:
		return nil, usagef("no data: give --dataset NAME or --input FILE")
	case o.parties < 0:
		return nil, usagef("--owners must be positive, got %d", o.parties)
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
		return nil, usagef("--input needs --schema FILE (column kinds and public bounds)")
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
	if n := tables[0].Len(); n < minOwnerRows*owners {
		// Each owner's share is an owner's input to the release, held to
		// the same minimum as a file of its own (readOwnerTable).
		return nil, usagef("--owners %d: %q holds %d rows, so an owner would get %d: a release needs at least %d rows per owner (give fewer owners)",
			owners, displayPath(paths[0], stdinName), n, n/owners, minOwnerRows)
	}
	return data.SplitHorizontal(tables[0], owners, nil, src)
}

// checkOwnerInputs checks, before any file is read, that the --input
// files can be laid out among --owners owners (owners 0: not given) and
// that no owner's file is another's (checkDistinctInputs).
func checkOwnerInputs(inputs []string, owners int) error {
	switch {
	case owners < 0:
		return usagef("--owners must be positive, got %d", owners)
	case len(inputs) > 1 && owners != 0 && owners != len(inputs):
		return usagef("--owners %d does not match the %d --input files", owners, len(inputs))
	}
	return checkDistinctInputs(inputs, ownersOfRows)
}

// Why each --input must be another file, for owners of rows and for
// parties of columns (checkDistinctInputs).
const (
	ownersOfRows    = "each owner brings its own records (given twice, every record would be counted twice)"
	partiesOfColumn = "each party brings its own columns of the records (given twice, the same columns would be released twice as two parties')"
)

// checkDistinctInputs refuses the same file given for two owners: the
// same path, the same file through another path (a symbolic or hard
// link), or another file with the same bytes (compared by SHA-256 here,
// never written anywhere). Each owner's records would be counted twice
// while the report claims the owners hold disjoint records, or a party's
// columns charged and released as two parties'; why says which.
func checkDistinctInputs(paths []string, why string) error {
	seen := map[[sha256.Size]byte]string{}
	var infos []os.FileInfo
	var named []string
	for _, p := range paths {
		if p == stdinPath {
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			continue // the reader says what is wrong with it
		}
		for i, other := range infos {
			if os.SameFile(fi, other) {
				return usagef("--input %q and --input %q are the same file: %s", cut(named[i]), cut(p), why)
			}
		}
		infos, named = append(infos, fi), append(named, p)
	}
	for i, p := range named {
		if !sizeRepeats(infos, i) {
			continue
		}
		sum, err := fileSHA256(p)
		if err != nil {
			continue
		}
		if first, ok := seen[sum]; ok {
			return usagef("--input %q has the same content as --input %q: %s", cut(p), cut(first), why)
		}
		seen[sum] = p
	}
	return nil
}

// sizeRepeats reports whether another file has the size of infos[i]:
// only such files can have the same content, so only they are hashed.
func sizeRepeats(infos []os.FileInfo, i int) bool {
	for j, fi := range infos {
		if j != i && fi.Size() == infos[i].Size() {
			return true
		}
	}
	return false
}

func fileSHA256(path string) ([sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	f, err := os.Open(path)
	if err != nil {
		return sum, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return sum, err
	}
	copy(sum[:], h.Sum(nil))
	return sum, nil
}

// cut shortens a long user value for a message.
func cut(s string) string {
	const most = 200
	if len(s) <= most {
		return s
	}
	return s[:most] + "…"
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

// writeOutputs writes the table and then its report, which records the
// table's digest; if the report cannot be written the table is removed, so
// nothing is half-published.
func writeOutputs(cmd *cobra.Command, out, reportPath string, t *data.Table, r *privacy.Report) error {
	b, err := tableBytes(out, t)
	if err != nil {
		return fmt.Errorf("writing %s: %w", out, err)
	}
	return publishFiles(cmd, nil, r, reportPath, outputFile{out, b})
}

// tableBytes is a published table as the file out: Parquet for a path
// ending in .parquet, CSV otherwise (standard output included).
func tableBytes(out string, t *data.Table) ([]byte, error) {
	var b bytes.Buffer
	write := data.WriteCSV
	if data.IsParquetPath(out) {
		write = data.WriteParquet
	}
	if err := write(&b, t); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func union(tables []*data.Table) *data.Table {
	u := &data.Table{Schema: tables[0].Schema}
	for _, t := range tables {
		u.Rows = append(u.Rows, t.Rows...)
	}
	return u
}

// outputFlags are the --out and --report flags of every publishing command.
type outputFlags struct {
	out, report string
	force       bool
}

// register adds the flags; what names the output ("synthetic CSV").
func (o *outputFlags) register(fs *pflag.FlagSet, what string) {
	fs.StringVar(&o.out, "out", "", what+" to write (required)")
	fs.StringVar(&o.report, "report", "", "privacy report JSON (default <out>.privacy.json)")
	fs.BoolVar(&o.force, "force", false, "replace outputs that already exist")
}

// resolve requires --out and puts the report beside it by default.
func (o *outputFlags) resolve() error {
	if o.out == "" {
		return usagef("--out FILE is required")
	}
	if o.report == "" {
		o.report = o.out + ".privacy.json"
	}
	return nil
}

// publishTable writes a synthetic table and its report, then prints the
// report and where both went.
func (o *outputFlags) publishTable(cmd *cobra.Command, t *data.Table, r *privacy.Report) error {
	if err := writeOutputs(cmd, o.out, o.report, t, r); err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	printReport(cmd, w, r)
	fmt.Fprintf(w, "\nWrote %d synthetic rows × %d columns to %s and the report to %s\n",
		t.Len(), len(t.Schema.Attributes), displayPath(o.out, stdoutName), o.report)
	return nil
}
