package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/internal/fsutil"
	"github.com/dppub/dppub/ownerstats"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// statisticsWarning is said on stderr by every run and in the help: the
// file holds exact counts and sums, no noise, so it is the data itself
// for anyone who reads it.
const statisticsWarning = "SENSITIVE: the statistics file holds the data's exact counts and sums, without noise; it is as sensitive as the data itself. Keep it where the data is; never send or publish it (the owner publishes from it with `dppub publish ... --statistics`)."

type statisticsFlags struct {
	input, schema, out string
	skip               []string
	conf               ownerstats.ConfigFlags
	force, quiet, json bool
}

// register declares the command's flags into f.
func (f *statisticsFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.input, "input", "", "CSV/TSV file with a header row (gzip allowed), or - for standard input (required)")
	fs.StringVar(&f.schema, "schema", "", "the owner's schema JSON, as the session's (required)")
	fs.StringVar(&f.out, "out", "", "the statistics file to write, owner-only permissions (required)")
	kit.RegisterSkipColumns(fs, &f.skip)
	f.conf.Register(fs)
	fs.BoolVar(&f.force, "force", false, "replace an existing output file")
	// Own --quiet and --json (shadowing the publishing commands'): there
	// is no privacy report here, only what was read and written.
	fs.BoolVar(&f.quiet, "quiet", false, "print no summary (the warning on standard error stays)")
	fs.BoolVar(&f.json, "json", false, "print the summary as one JSON document")
}

func newStatisticsCmd() *cobra.Command {
	return kit.NewCommand(&cobra.Command{
		Use:   "statistics --input FILE --schema SCHEMA.json --out FILE.stats",
		Short: "An owner's exact statistics in one pass (for the owner only: as sensitive as the data)",
		Long: `Compute an owner's exact statistics from its rows in one pass over the
file, on every core, in memory that does not grow with the number of rows:
PPCA-DP-MH's moments (n, Σx, Σxxᵀ of the encoded rows) and every 1-way and
2-way marginal count of the marginal engine's domain — with --fine over the
fine cells a synthesize-rows owner needs (--bins/--bins-for must then be
the session's, --grid its public grid). The file is the one dppub-beam
writes (beam/README.md), bit for bit.

The owner then joins sessions with it instead of its rows:
` + "`dppub publish ppca-dp-mh --statistics FILE`" + `, ` + "`dppub publish synthesize-rows\n--statistics FILE --max-cells 1`" + ` (a --fine file), or a consortium entry
whose dataset is {"statistics": FILE, "schema": SCHEMA}. What it publishes
is byte for byte what its rows give.

NOTHING IS NOISY HERE: the file holds the data's exact counts and sums. It
is as sensitive as the data itself; keep it where the data is and never
send or publish it.

The input is CSV or TSV with a header row (gzip allowed), or - for standard
input. Parquet is not read (no streaming Parquet reader yet).

Examples:
  dppub statistics --input people.csv --schema people.json --out people.stats
  dppub statistics --input people.csv.gz --schema people.json --out people.fine.stats --fine --bins 16`,
		Args: cobra.NoArgs,
	}, (*statisticsFlags).register, runStatistics)
}

// statisticsSummary is what --json prints: counts for the owner's eyes.
type statisticsSummary struct {
	Input          string `json:"input"`
	Out            string `json:"out"`
	SHA256         string `json:"sha256"`
	Bytes          int    `json:"bytes"`
	Rows           int    `json:"rows"`
	DroppedMissing int    `json:"dropped_missing"`
	Clamped        int    `json:"clamped"`
	MappedToOther  int    `json:"mapped_to_other"`
	Dim            int    `json:"moments_dim"`
	Cells          int    `json:"marginal_cells"`
	Fine           bool   `json:"fine"`
	Warning        string `json:"warning"`
}

func (f *statisticsFlags) check() error {
	switch {
	case f.input == "":
		return kit.Usagef("--input FILE is required")
	case f.schema == "":
		return kit.Usagef("--schema FILE is required")
	case f.out == "":
		return kit.Usagef("--out FILE is required")
	case f.out == kit.StdoutPath:
		return kit.Usagef("--out %q: the statistics are written to a file (owner-only), not to standard output", f.out)
	case f.quiet && f.json:
		return kit.Usagef("give --quiet or --json, not both")
	case data.IsParquetPath(f.input):
		return kit.Usagef("--input %q: Parquet is not read here (no streaming Parquet reader); convert it to CSV", f.input)
	}
	// The output is checked before anything is read.
	return checkOwnerOutputs(f.force, []string{f.input, f.schema}, f.out)
}

func runStatistics(cmd *cobra.Command, f *statisticsFlags, _ []string) error {
	if err := f.check(); err != nil {
		return err
	}
	s, err := data.LoadSchema(f.schema)
	if err != nil {
		return err
	}
	c := ownerstats.Config{Schema: s, Read: data.ReadOptions{Header: true, SkipColumns: f.skip, MinRows: kit.MinOwnerRows}}
	if err := f.conf.Apply(&c); err != nil {
		return kit.UsageError{Err: err}
	}
	var (
		st  *ownerstats.Statistics
		rst data.ReadStats
	)
	if f.input == kit.StdinPath {
		st, rst, err = ownerstats.Scan(os.Stdin, c, data.ScanOptions{ReadOptions: data.ReadOptions{Name: kit.StdinName}})
	} else {
		st, rst, err = ownerstats.ScanFile(f.input, c, data.ScanOptions{})
	}
	if err != nil {
		return err
	}
	// Said once there is a file to warn about: an input refused gets one
	// line, the error.
	fmt.Fprintln(cmd.ErrOrStderr(), "WARNING: "+statisticsWarning)
	b, err := st.MarshalBinary()
	if err != nil {
		return err
	}
	// Owner-only, like every file computed from the data without noise.
	if err := fsutil.WriteFileAtomic(f.out, 0o600, func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
		return fmt.Errorf("writing %s: %w", f.out, err)
	}
	sum := sha256.Sum256(b)
	rep := statisticsSummary{Input: kit.DisplayPath(f.input, kit.StdinName), Out: f.out, SHA256: hex.EncodeToString(sum[:]), Bytes: len(b),
		Rows: rst.Rows, DroppedMissing: rst.DroppedMissing, Clamped: rst.Clamped, MappedToOther: rst.MappedToOther,
		Dim: st.Moments.P, Cells: len(st.Counts), Fine: c.Fine, Warning: statisticsWarning}
	w := cmd.OutOrStdout()
	switch {
	case f.json:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	case f.quiet:
		return nil
	}
	kind := "equal-width bins (ppca-dp-mh, or any owner of PPCA-DP-MH sessions)"
	if c.Fine {
		kind = "fine cells (synthesize-rows with --max-cells 1, or ppca-dp-mh)"
	}
	fmt.Fprintf(w, "Read %d rows from %s", rst.Rows, rep.Input)
	if rst.DroppedMissing > 0 {
		fmt.Fprintf(w, " (%d dropped for a missing value)", rst.DroppedMissing)
	}
	fmt.Fprintf(w, ".\nWrote %s (%d bytes, sha256 %s): moments of %d encoded columns and %d marginal counts over %s.\n",
		f.out, len(b), rep.SHA256[:16], rep.Dim, rep.Cells, kind)
	if rst.Clamped > 0 {
		fmt.Fprintf(w, "%d numeric values outside the declared bounds were clamped.\n", rst.Clamped)
	}
	fmt.Fprintln(w, "FOR THE DATA OWNER ONLY: exact, without noise. Keep it with the data.")
	return nil
}
