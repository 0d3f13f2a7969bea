package kit

import "github.com/spf13/pflag"

// SkipColumnsFlag is the one name of the flag, on every command that
// reads a CSV, that leaves columns out (data.ReadOptions.SkipColumns).
const SkipColumnsFlag = "skip-columns"

// RegisterSkipColumns adds --skip-columns to fs, writing the names to p.
func RegisterSkipColumns(fs *pflag.FlagSet, p *[]string) {
	fs.StringSliceVar(p, SkipColumnsFlag, nil,
		"columns of the input CSV to leave out, comma-separated or repeated: extra columns the schema does not declare (an ID, a note), or declared ones to drop")
}

// StdinPath is the --input (or positional input) that reads standard
// input, and StdinName how messages name it.
const (
	StdinPath = "-"
	StdinName = "standard input"
)

// DisplayPath names a path in messages: stream ("standard input",
// "standard output") for "-".
func DisplayPath(path, stream string) string {
	if path == StdinPath {
		return stream
	}
	return path
}

// MinOwnerRows is the fewest rows an owner's input to a release may hold
// (data.ReadOptions.MinRows): with one row, the default δ = 1/n² is 1.
const MinOwnerRows = 2
