package cli

import (
	"bufio"
	"crypto/sha256"
	"fmt"
	"io"
	"os"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/internal/fsutil"
	"github.com/dppub/dppub/privacy"
	"github.com/spf13/cobra"
)

// canStream reports whether the output can be written as its rows come:
// a CSV file. --gate attacks the whole synthetic table before anything is
// written, Parquet is written from the whole table, and standard output
// cannot be written atomically, so those keep the whole-table path.
func (o *outputFlags) canStream(gate bool) bool {
	return !gate && o.out != stdoutPath && !data.IsParquetPath(o.out)
}

// streamTable publishes a synthetic CSV whose rows run hands, a decoded
// chunk at a time, to the sink it is given: each chunk is formatted and
// written as it comes and hashed on the way, then the report goes beside
// it with the file's digest, so the rows are never held whole. The file is
// written atomically (nothing is left if run fails) and removed if the
// report cannot be written, so nothing is half-published; the header is
// the first chunk's schema's (what data.WriteCSV would write for the
// whole table), or schema's if no row came.
func (o *outputFlags) streamTable(cmd *cobra.Command, schema data.Schema, run func(sink func(*data.Table) error) (*privacy.Report, error)) error {
	h := sha256.New()
	var (
		r    *privacy.Report
		rows int
	)
	err := fsutil.WriteFileAtomic(o.out, 0o644, func(f io.Writer) error {
		bw := bufio.NewWriterSize(io.MultiWriter(f, h), 1<<20)
		header := false
		var err error
		r, err = run(func(t *data.Table) error {
			if !header {
				schema, header = t.Schema, true
				if err := data.WriteCSVHeader(bw, schema); err != nil {
					return err
				}
			}
			rows += t.Len()
			return data.WriteCSVRows(bw, t)
		})
		if err != nil {
			return err
		}
		if !header {
			if err := data.WriteCSVHeader(bw, schema); err != nil {
				return err
			}
		}
		return bw.Flush()
	})
	if err != nil {
		if r == nil {
			return err // the run's own error, already naming what failed
		}
		return fmt.Errorf("writing %s: %w", o.out, err)
	}
	stampReport(cmd, r, nil)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	r.RecordOutputSHA256(displayPath(o.out, stdoutName), sum)
	js, err := r.JSON()
	if err == nil {
		err = writeBytes(o.report, js)
	}
	if err != nil {
		os.Remove(o.out)
		return fmt.Errorf("writing %s: %w", o.report, err)
	}
	w := cmd.OutOrStdout()
	printReport(cmd, w, r)
	fmt.Fprintf(w, "\nWrote %d synthetic rows × %d columns to %s and the report to %s\n",
		rows, len(schema.Attributes), displayPath(o.out, stdoutName), o.report)
	return nil
}
