package cli

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/internal/fsutil"
	mppca "github.com/dppub/dppub/method/ppcadpmh"
	"github.com/dppub/dppub/transport"
	"github.com/spf13/cobra"
)

// streamedRows is what a session wrote to its main output as the rows
// came: how many rows and columns, and the file's SHA-256 computed on the
// way (the file is never read back whole).
type streamedRows struct {
	rows, cols int
	sum        [sha256.Size]byte
}

// streamsRows reports whether a networked session's synthetic rows go to
// out as they arrive: ppca-dp-mh's (its curator takes a row sink,
// mppca.RowSink) to a CSV file. Parquet and standard output keep the
// whole-table path here (publish streams them too:
// outputFlags.publishStreamed).
func streamsRows(method, out string) bool {
	return method == mppca.Name && out != stdoutPath && !data.IsParquetPath(out)
}

// runStreamingRows runs the session with a sink on the curator that takes
// the synthetic rows decoded, a chunk at a time in owner order, and
// writes them as CSV to out, hashing them on the way: the coordinator
// never holds the rows whole, and the file is what data.WriteCSV would
// write for the whole table (the header of the first chunk's schema, or
// of the session's if no row came). out is written atomically, so a
// session that fails (or a sink that cannot write, which fails the
// session) leaves no file. A nil Result means the session failed (its
// error names what failed); a Result with an error means the session
// succeeded but out could not be written.
func runStreamingRows(ctx context.Context, node *transport.Node, opts transport.RunOptions, out string) (*transport.Result, *streamedRows, error) {
	h := sha256.New()
	st := &streamedRows{}
	var (
		res    *transport.Result
		runErr error
	)
	err := fsutil.WriteFileAtomic(out, 0o644, func(f io.Writer) error {
		bw := bufio.NewWriterSize(io.MultiWriter(f, h), 1<<20)
		header := false
		writeHeader := func(s data.Schema) error {
			header, st.cols = true, len(s.Attributes)
			return data.WriteCSVHeader(bw, s)
		}
		opts.Attach = mppca.RowSink(func(t *data.Table) error {
			if !header {
				if err := writeHeader(t.Schema); err != nil {
					return err
				}
			}
			st.rows += t.Len()
			return data.WriteCSVRows(bw, t)
		})
		if res, runErr = node.Run(ctx, opts); runErr != nil {
			return runErr
		}
		if !header {
			d, ok := res.Detail.(*mppca.Result)
			if !ok || d.Encoder == nil {
				return fmt.Errorf("no rows came and the outcome names no schema for the header")
			}
			if err := writeHeader(d.Encoder.Schema()); err != nil {
				return err
			}
		}
		return bw.Flush()
	})
	switch {
	case runErr != nil:
		return nil, nil, runErr // as the whole-table path reports it (and the ledger records it)
	case err != nil:
		return res, nil, fmt.Errorf("writing %s: %w", out, err)
	}
	h.Sum(st.sum[:0])
	return res, st, nil
}

// writeStreamedOutcome is writeOutcome for an outcome whose main output
// is in place already, written as its rows came: the report records the
// digest taken on the way, and the main file is removed again if the
// further files or the report cannot be written.
func writeStreamedOutcome(cmd *cobra.Command, params map[string]string, out, report string, o *transport.Outcome, st *streamedRows) error {
	o.Report.RecordOutputSHA256(displayPath(out, stdoutName), st.sum)
	var outs []outputFile
	for _, f := range o.Files {
		outs = append(outs, outputFile{out + f.Suffix, f.Data})
	}
	if err := publishFiles(cmd, params, o.Report, report, outs...); err != nil {
		os.Remove(out)
		return err
	}
	return nil
}

// streamedDigests maps each written file's base name to its SHA-256, the
// streamed main output's from the digest taken as it was written and the
// others' (the report, further files: small) read back.
func streamedDigests(written []string, out string, st *streamedRows) (map[string]string, error) {
	var rest []string
	for _, p := range written {
		if p != out {
			rest = append(rest, p)
		}
	}
	digests, err := digestFiles(rest)
	if err != nil {
		return nil, err
	}
	digests[filepath.Base(out)] = hex.EncodeToString(st.sum[:])
	return digests, nil
}
