package ppcadpmh

import "github.com/dppub/dppub/data"

// TableSchema is the schema of the synthetic table (method.TableSchema):
// the header of a streamed output even when no row came; empty when the
// run has no encoder.
func (r *Result) TableSchema() data.Schema {
	if r == nil || r.Encoder == nil {
		return data.Schema{}
	}
	return r.Encoder.Schema()
}
