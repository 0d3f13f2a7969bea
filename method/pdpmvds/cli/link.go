package pdpmvdscli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/internal/fsutil"
	pdpmvdsspec "github.com/dppub/dppub/method/pdpmvds"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

type linkFlags struct {
	inputs, schemas []string
	id, outDir      string
	skip            []string
	force           bool
	src             kit.SourceFlags
}

// register declares the command's flags into f.
func (f *linkFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.inputs, "input", nil, "a party's CSV/TSV file with a header row (gzip allowed); repeat once per party, at least 2")
	fs.StringArrayVar(&f.schemas, "schema", nil, "the schema JSON of the --input of the same position (one per --input)")
	fs.StringVar(&f.id, "id", "", "name of the ID column every file holds (required)")
	fs.StringVar(&f.outDir, "out-dir", "", "directory to write party-K.csv and link.json to (created if absent; required)")
	fs.BoolVar(&f.force, "force", false, "replace output files that already exist")
	kit.RegisterSkipColumns(fs, &f.skip)
	f.src.Register(fs)
}

// LinkCommand is `dppub link`.
func LinkCommand() *cobra.Command {
	return kit.NewCommand(&cobra.Command{
		Use:   "link --input A.csv --schema A.json --input B.csv --schema B.json --input C.csv --schema C.json --id COL --out-dir DIR",
		Short: "Record linkage: align parties' columns on their common IDs by private set intersection (in-process demonstration)",
		Long: `Parties holding different columns of overlapping sets of people (the input
of PDP-MVDS and MP-CRDP) find the people they all hold and line their rows
up, without showing each other their IDs: a multi-party Diffie–Hellman
private set intersection on the --id column (edwards25519; each party's IDs
are hashed to the curve and blinded by every party's secret key in turn).

Writes, in DIR:
  party-K.csv  party K's rows whose ID every party holds, in one order
               common to all parties, WITHOUT the ID column (PDP-MVDS
               aligns rows by position): row i of every file is the same
               person. Private: each file holds its party's data (mode 600).
  link.json    the linkage report: parties, rows in, rows common, what the
               linkage revealed, the assumption, messages and bytes.

What it reveals (also in link.json): every party's number of IDs, the size
of the intersection, the size of every region of the parties' Venn diagram
(how many IDs parties 1 and 2 hold that party 3 lacks, ...), and to each
party which of its own IDs the others hold. No ID a party does not hold is
revealed, assuming semi-honest parties and the decisional Diffie–Hellman
problem in edwards25519's prime-order subgroup. No privacy budget is spent.

IN-PROCESS DEMONSTRATION: this command runs every party's role in this one
process, so this machine reads every party's file; the roles exchange only
the messages they would send over a network. In a real linkage each party
runs its own role on its own machine: 'dppub run pdp-mvds' with "link":
true in the settings links the serving parties' records as the first phase
of a PDP-MVDS session ('dppub publish pdp-mvds --link' in one process).
Rows with a missing value (in the ID or any column) are dropped on reading,
before the linkage.

Example:
  dppub link --input bank.csv --schema bank.json --input clinic.csv --schema clinic.json \
    --input utility.csv --schema utility.json --id person --out-dir linked/`,
		Args: cobra.NoArgs,
	}, (*linkFlags).register, runLink)
}

func runLink(cmd *cobra.Command, f *linkFlags, _ []string) error {
	switch {
	case len(f.inputs) < 2:
		return kit.Usagef("link needs at least 2 --input files, got %d", len(f.inputs))
	case len(f.schemas) != len(f.inputs):
		return kit.Usagef("give one --schema per --input: %d schemas for %d inputs", len(f.schemas), len(f.inputs))
	case f.id == "":
		return kit.Usagef("--id COL is required (the column of IDs every file holds)")
	case f.outDir == "":
		return kit.Usagef("--out-dir DIR is required")
	}
	if err := kit.CheckDistinctInputs(f.inputs, kit.PartiesOfColumn); err != nil {
		return err
	}
	outs := []string{filepath.Join(f.outDir, "link.json")}
	for k := range f.inputs {
		outs = append(outs, filepath.Join(f.outDir, fmt.Sprintf("party-%d.csv", k+1)))
	}
	if err := checkOutDir("out-dir", f.outDir, outs, append(append([]string(nil), f.inputs...), f.schemas...), f.force); err != nil {
		return err
	}
	tables, dropped, err := readLinkInputs(f)
	if err != nil {
		return err
	}
	src := f.src.Source(cmd.Flags(), cmd.ErrOrStderr())
	linked, rep, err := pdpmvdsspec.Link(cmd.Context(), tables, src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(f.outDir, 0o700); err != nil {
		return err
	}
	for k, t := range linked {
		if err := fsutil.WriteFileAtomic(outs[k+1], 0o600, func(w io.Writer) error { return data.WriteCSV(w, t) }); err != nil {
			return err
		}
	}
	if err := writeJSON(outs[0], 0o644, rep); err != nil {
		return err
	}
	printLink(cmd.OutOrStdout(), f, rep, dropped, outs)
	return nil
}

// checkOutDir checks, before anything is read, that the outputs can be
// written in dir without losing a file; a missing dir is created only
// when the outputs are written, and its parent must exist.
func checkOutDir(flag, dir string, outs, inputs []string, force bool) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := fsutil.CheckOutputs([]string{dir}, inputs, false); err != nil {
			return kit.UsageError{Err: fmt.Errorf("--%s: %w", flag, err)}
		}
		return nil
	case err != nil:
		return fmt.Errorf("--%s: %w", flag, err)
	case !st.IsDir():
		return kit.Usagef("--%s %s is a file, not a directory", flag, dir)
	}
	if err := fsutil.CheckOutputs(outs, inputs, force); err != nil {
		return kit.UsageError{Err: err}
	}
	return nil
}

// readLinkInputs reads each party's file with its schema and the ID
// column, returning the rows dropped for a missing value.
func readLinkInputs(f *linkFlags) ([]*data.Table, []int, error) {
	var tables []*data.Table
	var dropped []int
	for k, path := range f.inputs {
		s, err := data.LoadSchema(f.schemas[k])
		if err != nil {
			return nil, nil, err
		}
		if s.ID != "" && s.ID != f.id {
			return nil, nil, kit.Usagef("schema %s names ID column %q, --id says %q", f.schemas[k], s.ID, f.id)
		}
		s.ID = f.id
		t, stats, err := kit.ReadTable(nil, path, s, f.skip)
		if err != nil {
			return nil, nil, err
		}
		tables, dropped = append(tables, t), append(dropped, stats.DroppedMissing)
	}
	return tables, dropped, nil
}

func printLink(w io.Writer, f *linkFlags, rep pdpmvdsspec.LinkReport, dropped []int, outs []string) {
	fmt.Fprintf(w, "Record linkage of %d parties on %q (private set intersection, all parties in this process): %d records common\n",
		len(rep.Parties), f.id, rep.Common)
	for k, name := range rep.Parties {
		extra := ""
		if dropped[k] > 0 {
			extra = fmt.Sprintf(" (%d rows with a missing value dropped before)", dropped[k])
		}
		fmt.Fprintf(w, "  %s  %s: %d rows in, %d linked -> %s%s\n", name, f.inputs[k], rep.Records[name], rep.Common, outs[k+1], extra)
	}
	fmt.Fprintf(w, "Revealed to the parties:\n  - %s\n", strings.Join(rep.Reveals, "\n  - "))
	fmt.Fprintf(w, "Assumption: %s\n", rep.Assumption)
	fmt.Fprintf(w, "%d messages in %.2f s; report: %s\n", rep.Messages, rep.Seconds, outs[0])
	fmt.Fprintf(w, "The files line up by row (no ID column): 'dppub publish pdp-mvds' takes them in this order as --input files, without --id.\n")
}
