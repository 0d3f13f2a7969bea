package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/internal/fsutil"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/transport"
	"github.com/spf13/cobra"
)

// streamedRows is what a session wrote to its main output as the rows
// came: how many rows and columns, and the output's SHA-256 computed on
// the way (a file is never read back whole); written is how many bytes
// reached standard output (--out -), so that a session failing midway
// can say they are incomplete.
type streamedRows struct {
	rows, cols int
	sum        [sha256.Size]byte
	written    int64
}

// streamsRows reports whether a networked session's synthetic rows go to
// the output as they arrive: those of a method whose coordinator takes a
// row sink (method.Spec.StreamsRows, method.RowSink), to every output
// publish streams to (a CSV or Parquet file, standard output). The other
// methods' coordinators build their table whole, as their one-process
// publish does.
func streamsRows(name string) bool {
	s, err := method.Lookup(name)
	return err == nil && s.StreamsRows
}

// streamingMethods names the methods whose rows can go to standard output.
func streamingMethods() string {
	return strings.Join(method.Names(func(s method.Spec) bool { return s.StreamsRows }), ", ")
}

// runStreamingRows runs the session with a sink on the curator that takes
// the synthetic rows decoded, a chunk at a time in owner order, and
// writes them to out with publish's writer (tableSink: CSV, or Parquet by
// row group), hashing them on the way: the coordinator never holds the
// rows whole, and the output is what data.WriteCSV or data.WriteParquet
// would write for the whole table (the header of the first chunk's
// schema, or of the session's if no row came). A file is written
// atomically, so a session that fails (or a sink that cannot write, which
// fails the session) leaves no file; standard output gets the rows as
// they come, and the returned streamedRows says how many bytes went there
// whatever happened. A nil Result means the session failed (its error
// names what failed); a Result with an error means the session succeeded
// but out could not be written.
func runStreamingRows(ctx context.Context, cmd *cobra.Command, node *transport.Node, opts transport.RunOptions, out string) (*transport.Result, *streamedRows, error) {
	var (
		sink   *kit.TableSink
		res    *transport.Result
		runErr error
	)
	produce := func(w io.Writer, name string) error {
		sink = kit.NewTableSink(w, name, data.IsParquetPath(out), nil)
		opts.Attach = method.RowSink(func(t *data.Table) error { return sink.Add(t, nil) })
		if res, runErr = node.Run(ctx, opts); runErr != nil {
			return runErr
		}
		var schema data.Schema
		if !sink.Started {
			if d, ok := res.Detail.(method.TableSchema); ok {
				schema = d.TableSchema()
			}
			if len(schema.Attributes) == 0 {
				return fmt.Errorf("writing %s: no rows came and the outcome names no schema for the header", name)
			}
		}
		return sink.Finish(schema)
	}
	var inner, err error
	if out == kit.StdoutPath {
		inner = produce(kit.DataStdout(cmd), kit.StdoutName)
		err = inner
	} else {
		err = fsutil.WriteFileAtomic(out, 0o644, func(f io.Writer) error {
			inner = produce(f, out)
			return inner
		})
	}
	st := &streamedRows{}
	if sink != nil {
		st.rows, st.cols = sink.Rows, sink.Cols
		if out == kit.StdoutPath {
			st.written = sink.Written()
		}
	}
	switch {
	case runErr != nil:
		return nil, st, runErr // as the whole-table path reports it (and the ledger records it)
	case inner != nil:
		return res, st, inner // the sink's errors name the output
	case err != nil:
		return res, st, fmt.Errorf("writing %s: %w", out, err)
	}
	st.sum = sink.Sum()
	return res, st, nil
}

// stdoutIncomplete adds to the error of a run that streamed to standard
// output what became of the rows already written there.
func stdoutIncomplete(err error, out string, st *streamedRows) error {
	if out != kit.StdoutPath || st == nil || st.written == 0 {
		return err
	}
	return fmt.Errorf("%w; the %d bytes already written to %s are incomplete and unpublished (no report was written): discard them", err, st.written, kit.StdoutName)
}

// writeStreamedOutcome is writeOutcome for an outcome whose main output
// is in place already, written as its rows came: the report records the
// digest taken on the way, and the main file is removed again if the
// further files or the report cannot be written.
func writeStreamedOutcome(cmd *cobra.Command, params map[string]string, out, report string, o *transport.Outcome, st *streamedRows) error {
	o.Report.RecordOutputSHA256(kit.DisplayPath(out, kit.StdoutName), st.sum)
	var outs []kit.OutputFile
	for _, f := range o.Files {
		outs = append(outs, kit.OutputFile{Path: out + f.Suffix, Data: f.Data})
	}
	if err := kit.PublishFiles(cmd, params, o.Report, report, outs...); err != nil {
		if out == kit.StdoutPath {
			return fmt.Errorf("%w; the rows written to %s have no report: discard them", err, kit.StdoutName)
		}
		os.Remove(out)
		return err
	}
	return nil
}

// streamedDigests maps each written file's base name to its SHA-256, the
// streamed main output's from the digest taken as it was written (keyed
// "standard output" for --out -, as in the report) and the others' (the
// report, further files: small) read back.
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
	key := filepath.Base(out)
	if out == kit.StdoutPath {
		key = kit.StdoutName
	}
	digests[key] = hex.EncodeToString(st.sum[:])
	return digests, nil
}
