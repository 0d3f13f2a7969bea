package ppcadpmh

import (
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method"
)

// An owner over the network scans its file for the statistics its role
// needs; a command that streams the rows asks the result for their
// schema.
var (
	_ method.StatisticsScanner = (*session)(nil)
	_ method.TableSchema       = (*Result)(nil)
)

// TableSchema is the schema of the synthetic table (method.TableSchema):
// the header of a streamed output even when no row came; empty when the
// run has no encoder.
func (r *Result) TableSchema() data.Schema {
	if r == nil || r.Encoder == nil {
		return data.Schema{}
	}
	return r.Encoder.Schema()
}
