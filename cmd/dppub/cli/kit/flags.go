package kit

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"os"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// SourceFlags choose the randomness.
type SourceFlags struct {
	seed uint64
}

// Register adds --seed.
func (s *SourceFlags) Register(fs *pflag.FlagSet) {
	fs.Uint64Var(&s.seed, "seed", 0, "INSECURE: seed the randomness for a reproducible run (tests and experiments only; the output carries no privacy guarantee)")
}

// Source is the run's randomness: secure, or seeded by --seed with a
// warning to stderr that the output then carries no guarantee.
func (s *SourceFlags) Source(fs *pflag.FlagSet, stderr io.Writer) *randx.Source {
	if fs.Changed("seed") {
		fmt.Fprintf(stderr, "WARNING: --seed %d makes the noise predictable: this output carries NO privacy guarantee\n", s.seed)
		return randx.NewSeeded(s.seed)
	}
	return randx.NewSecure()
}

// Why each --input must be another file, for owners of rows and for
// parties of columns (CheckDistinctInputs).
const (
	OwnersOfRows    = "each owner brings its own records (given twice, every record would be counted twice)"
	PartiesOfColumn = "each party brings its own columns of the records (given twice, the same columns would be released twice as two parties')"
)

// CheckDistinctInputs refuses the same file given for two owners: the
// same path, the same file through another path (a symbolic or hard
// link), or another file with the same bytes (compared by SHA-256 here,
// never written anywhere). Each owner's records would be counted twice
// while the report claims the owners hold disjoint records, or a party's
// columns charged and released as two parties'; why says which.
func CheckDistinctInputs(paths []string, why string) error {
	seen := map[[sha256.Size]byte]string{}
	var infos []os.FileInfo
	var named []string
	for _, p := range paths {
		if p == StdinPath {
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			continue // the reader says what is wrong with it
		}
		for i, other := range infos {
			if os.SameFile(fi, other) {
				return Usagef("--input %q and --input %q are the same file: %s", Cut(named[i]), Cut(p), why)
			}
		}
		infos, named = append(infos, fi), append(named, p)
	}
	for i, p := range named {
		if !sizeRepeats(infos, i) {
			continue
		}
		sum, err := FileSHA256(p)
		if err != nil {
			continue
		}
		if first, ok := seen[sum]; ok {
			return Usagef("--input %q has the same content as --input %q: %s", Cut(p), Cut(first), why)
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

// FileSHA256 is the SHA-256 of the file at path.
func FileSHA256(path string) ([sha256.Size]byte, error) {
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

// Cut shortens a long user value for a message.
func Cut(s string) string {
	const most = 200
	if len(s) <= most {
		return s
	}
	return s[:most] + "…"
}

// WriteOutputs writes the table and then its report, which records the
// table's digest; if the report cannot be written the table is removed, so
// nothing is half-published.
func WriteOutputs(cmd *cobra.Command, out, reportPath string, t *data.Table, r *privacy.Report) error {
	b, err := TableBytes(out, t)
	if err != nil {
		return fmt.Errorf("writing %s: %w", out, err)
	}
	return PublishFiles(cmd, nil, r, reportPath, OutputFile{out, b})
}

// TableBytes is a published table as the file out: Parquet for a path
// ending in .parquet, CSV otherwise (standard output included).
func TableBytes(out string, t *data.Table) ([]byte, error) {
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

// OutputFlags are the --out and --report flags of every publishing command.
type OutputFlags struct {
	Out, Report string
	Force       bool
}

// Register adds the flags; what names the output ("synthetic CSV").
func (o *OutputFlags) Register(fs *pflag.FlagSet, what string) {
	fs.StringVar(&o.Out, "out", "", what+" to write (required)")
	fs.StringVar(&o.Report, "report", "", "privacy report JSON (default <out>.privacy.json)")
	fs.BoolVar(&o.Force, "force", false, "replace outputs that already exist")
}

// Resolve requires --out and puts the report beside it by default.
func (o *OutputFlags) Resolve() error {
	if o.Out == "" {
		return Usagef("--out FILE is required")
	}
	if o.Report == "" {
		o.Report = o.Out + ".privacy.json"
	}
	return nil
}

// PublishTable writes a synthetic table and its report, then prints the
// report and where both went.
func (o *OutputFlags) PublishTable(cmd *cobra.Command, t *data.Table, r *privacy.Report) error {
	if err := WriteOutputs(cmd, o.Out, o.Report, t, r); err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	PrintReport(cmd, w, r)
	fmt.Fprintf(w, "\nWrote %d synthetic rows × %d columns to %s and the report to %s\n",
		t.Len(), len(t.Schema.Attributes), DisplayPath(o.Out, StdoutName), o.Report)
	return nil
}
