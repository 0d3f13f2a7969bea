package cli

import (
	"fmt"
	"io"
	"maps"
	"time"

	"github.com/dppub/dppub/internal/fsutil"
	"github.com/dppub/dppub/privacy"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// stampReport records in r when it is published and the run's settings:
// the command and every flag, set or default (so the run can be repeated),
// except the owner's own (the release gate's: ownerOnlyKey), with extra
// entries on top.
func stampReport(cmd *cobra.Command, r *privacy.Report, extra map[string]string) {
	params := map[string]string{"command": cmd.CommandPath()}
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Name != "help" && f.Annotations[ownerOnlyKey] == nil {
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

// outputFile is one published file and its bytes.
type outputFile struct {
	path string
	data []byte
}

// publishFiles writes every output atomically, then records in r the run
// (stampReport, with extra parameters) and each output's SHA-256, and
// writes r to reportPath. The outputs are rendered before the run is
// recorded, so a report embedded in an output (a model file) holds no
// publication time or parameters and a seeded run's outputs stay the same
// byte for byte wherever it runs. The report comes last because it lists
// the outputs' digests (it cannot list its own). If any write fails, the
// files already written are removed, so nothing is half-published. An
// output to standard output ("-") is written after the report, once
// every file is in place; so is a report to standard output (--report -).
func publishFiles(cmd *cobra.Command, extra map[string]string, r *privacy.Report, reportPath string, outs ...outputFile) error {
	var written []string
	var toStdout []byte
	for _, o := range outs {
		if o.path == stdoutPath {
			toStdout = o.data
			continue
		}
		if err := writeBytes(o.path, o.data); err != nil {
			removeAll(written)
			return fmt.Errorf("writing %s: %w", o.path, err)
		}
		written = append(written, o.path)
	}
	stampReport(cmd, r, extra)
	for _, o := range outs {
		r.RecordOutput(displayPath(o.path, stdoutName), o.data)
	}
	js, err := r.JSON()
	if err != nil {
		removeAll(written)
		return err
	}
	if err := writeOutput(cmd, reportPath, js); err != nil {
		removeAll(written)
		return fmt.Errorf("writing %s: %w", displayPath(reportPath, stdoutName), err)
	}
	if toStdout != nil {
		if err := writeStdout(cmd, toStdout); err != nil {
			removeAll(append(written, reportPath))
			return err
		}
	}
	return nil
}

// writeOutput writes one output file, or to standard output for "-".
func writeOutput(cmd *cobra.Command, path string, b []byte) error {
	if path == stdoutPath {
		return writeStdout(cmd, b)
	}
	return writeBytes(path, b)
}

func writeBytes(path string, b []byte) error {
	return fsutil.WriteFileAtomic(path, 0o644, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}
