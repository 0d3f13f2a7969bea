package kit

import (
	"fmt"
	"io"
	"maps"
	"os"
	"time"

	"github.com/dppub/dppub/internal/fsutil"
	"github.com/dppub/dppub/privacy"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// StampReport records in r when it is published and the run's settings:
// the command and every flag, set or default (so the run can be repeated),
// except the owner's own (the release gate's: OwnerOnlyKey), with extra
// entries on top.
func StampReport(cmd *cobra.Command, r *privacy.Report, extra map[string]string) {
	params := map[string]string{"command": cmd.CommandPath()}
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Name != "help" && f.Annotations[OwnerOnlyKey] == nil {
			params[f.Name] = f.Value.String()
		}
	})
	if r.Gate != nil {
		// The gate's flags are the owner's, but that the output passed a
		// gate, and at which settings, is part of its accounting.
		maps.Copy(params, r.Gate.Settings)
	}
	maps.Copy(params, extra)
	r.Stamp(time.Now(), params)
}

// OutputFile is one published file and its bytes.
type OutputFile struct {
	Path string
	Data []byte
}

// PublishFiles writes every output atomically, then records in r the run
// (StampReport, with extra parameters) and each output's SHA-256, and
// writes r to reportPath. The outputs are rendered before the run is
// recorded, so a report embedded in an output (a model file) holds no
// publication time or parameters and a seeded run's outputs stay the same
// byte for byte wherever it runs. The report comes last because it lists
// the outputs' digests (it cannot list its own). If any write fails, the
// files already written are removed, so nothing is half-published. An
// output to standard output ("-") is written after the report, once
// every file is in place; so is a report to standard output (--report -).
func PublishFiles(cmd *cobra.Command, extra map[string]string, r *privacy.Report, reportPath string, outs ...OutputFile) error {
	var written []string
	var toStdout []byte
	for _, o := range outs {
		if o.Path == StdoutPath {
			toStdout = o.Data
			continue
		}
		if err := WriteBytes(o.Path, o.Data); err != nil {
			RemoveAll(written)
			return fmt.Errorf("writing %s: %w", o.Path, err)
		}
		written = append(written, o.Path)
	}
	StampReport(cmd, r, extra)
	for _, o := range outs {
		r.RecordOutput(DisplayPath(o.Path, StdoutName), o.Data)
	}
	js, err := r.JSON()
	if err != nil {
		RemoveAll(written)
		return err
	}
	if err := WriteOutput(cmd, reportPath, js); err != nil {
		RemoveAll(written)
		return fmt.Errorf("writing %s: %w", DisplayPath(reportPath, StdoutName), err)
	}
	if toStdout != nil {
		if err := WriteStdout(cmd, toStdout); err != nil {
			RemoveAll(append(written, reportPath))
			return err
		}
	}
	return nil
}

// WriteOutput writes one output file, or to standard output for "-".
func WriteOutput(cmd *cobra.Command, path string, b []byte) error {
	if path == StdoutPath {
		return WriteStdout(cmd, b)
	}
	return WriteBytes(path, b)
}

// WriteBytes writes b to path atomically.
func WriteBytes(path string, b []byte) error {
	return fsutil.WriteFileAtomic(path, 0o644, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// RemoveAll removes the files of a run that failed; never standard output.
func RemoveAll(paths []string) {
	for _, p := range paths {
		if p != StdoutPath { // never a file named "-" that is no output of this run
			os.Remove(p)
		}
	}
}

// OwnerOnlyKey annotates a flag whose value is for the owner only (the
// release gate's): StampReport leaves it out of the published report's
// parameters, since a held-out file's path or the gate's threshold says
// something about the private data and the gate is never published.
const OwnerOnlyKey = "dppub-owner-only"
