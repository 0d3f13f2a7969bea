package ppcadpmh

import (
	"context"
	"time"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/method/ppcadpmh/ppca"
	"github.com/dppub/dppub/ownerstats"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// Options configure a PPCA-DP-MH publication in one process.
type Options struct {
	Settings Settings
	// Owners are the owners' tables, all with the same schema.
	Owners []*data.Table
	// Statistics, instead of Owners, are the owners' statistics computed
	// elsewhere (the Beam pipeline, ownerstats.FromTable) under Schema.
	Statistics []*ownerstats.Statistics
	Schema     data.Schema
	Source     *randx.Source
	// Sink, if set, takes the synthetic rows a decoded chunk at a time, in
	// order, as the curator receives them, and Synthetic is nil: the rows
	// (as many as the owners hold) are never held whole.
	Sink func(t *data.Table) error
}

// Published is the published output and what it cost.
type Published struct {
	Synthetic *data.Table
	Report    *privacy.Report
	Model     *ppca.Model
	Encoder   *data.Encoder
	Clamped   int // values clamped to declared bounds (not private: local use only)
	Traffic   *protocol.Stats
	Elapsed   time.Duration
}

// Publish publishes a synthetic table from the owners' tables: the
// method's session run in one process.
func Publish(ctx context.Context, o Options) (*Published, error) {
	start := time.Now()
	lo := method.OwnersLocal(o.Owners, o.Source)
	if len(o.Statistics) > 0 {
		lo = method.StatisticsLocal(o.Statistics, o.Schema, o.Source)
	}
	if o.Sink != nil {
		lo.Attach = map[string]any{RoleCurator: RowSink(o.Sink)}
	}
	run, err := method.RunLocal(ctx, Spec, &o.Settings, lo)
	if err != nil {
		return nil, err
	}
	d := run.Outcome.Detail.(*Result)
	return &Published{Synthetic: run.Outcome.Table, Report: run.Outcome.Report, Model: d.Model, Encoder: d.Encoder,
		Clamped: run.Facts.Clamped, Traffic: run.Traffic, Elapsed: time.Since(start)}, nil
}
