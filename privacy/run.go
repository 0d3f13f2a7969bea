package privacy

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"path/filepath"
	"time"
)

// Run records which code produced a report, when, with which settings, and
// which files it published, so that a report can be matched to its
// outputs and its run reproduced or audited later. NewReport sets Version;
// the layer that writes the files (the CLI) calls Stamp before writing and
// RecordOutput for every file once written.
type Run struct {
	// Version is the dppub version (internal/version) that built the report.
	Version string `json:"dppub_version,omitempty"`
	// Created is when the output was published, RFC 3339 in UTC. It is
	// set at publication, not by NewReport, so that the same seeded
	// session builds the same report wherever it runs.
	Created string `json:"created,omitempty"`
	// Parameters are the run's settings (flag or setting name → value).
	Parameters map[string]string `json:"parameters,omitempty"`
	// OutputSHA256 maps the base name of every output file written to the
	// SHA-256 (hex) of its bytes. Only published outputs are digested,
	// never a private input. The report file itself is not listed: it
	// cannot contain its own digest (a publishing ledger records it).
	OutputSHA256 map[string]string `json:"output_sha256,omitempty"`
}

// Stamp records the publication time (in UTC) and a copy of the run's
// parameters.
func (r *Report) Stamp(created time.Time, params map[string]string) {
	r.Created = created.UTC().Format(time.RFC3339)
	if len(params) > 0 {
		r.Parameters = maps.Clone(params)
	}
}

// RecordOutput records the SHA-256 of an output file's bytes under the
// file's base name.
func (r *Report) RecordOutput(path string, data []byte) {
	r.RecordOutputSHA256(path, sha256.Sum256(data))
}

// RecordOutputSHA256 records an output's digest computed as it was
// written (an output streamed to its file is never held whole).
func (r *Report) RecordOutputSHA256(path string, sum [sha256.Size]byte) {
	if r.OutputSHA256 == nil {
		r.OutputSHA256 = map[string]string{}
	}
	r.OutputSHA256[filepath.Base(path)] = hex.EncodeToString(sum[:])
}
