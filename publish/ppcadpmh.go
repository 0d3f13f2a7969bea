package publish

import (
	"context"
	"fmt"
	"github.com/dppub/dppub/ownerstats"
	"time"

	"github.com/dppub/dppub/algo/ppca"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/method/ppcadpmh"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// PPCAOptions configure a PPCA-DP-MH publication in one process.
type PPCAOptions struct {
	Settings ppcadpmh.Settings
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

// PPCAResult is the published output and what it cost.
type PPCAResult struct {
	Synthetic *data.Table
	Report    *privacy.Report
	Model     *ppca.Model
	Encoder   *data.Encoder
	Clamped   int // values clamped to declared bounds (not private: local use only)
	Traffic   *protocol.Stats
	Elapsed   time.Duration
}

// PPCADPMH publishes a synthetic table from the owners' tables: the
// method's session run in one process.
func PPCADPMH(ctx context.Context, o PPCAOptions) (*PPCAResult, error) {
	start := time.Now()
	lo := rowsRun(o.Owners, o.Source)
	if len(o.Statistics) > 0 {
		lo = statisticsRun(o.Statistics, o.Schema, o.Source)
	}
	if o.Sink != nil {
		lo.Attach = map[string]any{ppcadpmh.RoleCurator: ppcadpmh.RowSink(o.Sink)}
	}
	run, err := method.RunLocal(ctx, ppcadpmh.Spec, &o.Settings, lo)
	if err != nil {
		return nil, err
	}
	d := run.Outcome.Detail.(*ppcadpmh.Result)
	return &PPCAResult{Synthetic: run.Outcome.Table, Report: run.Outcome.Report, Model: d.Model, Encoder: d.Encoder,
		Clamped: run.Facts.Clamped, Traffic: run.Traffic, Elapsed: time.Since(start)}, nil
}

// OwnerName is the name of owner i (1-based) in a one-process run.
func OwnerName(i int) string { return fmt.Sprintf("owner-%d", i) }

// statisticsRun lays out a one-process run of owners of rows who bring
// statistics computed elsewhere under the public schema.
func statisticsRun(stats []*ownerstats.Statistics, schema data.Schema, src *randx.Source) method.LocalOptions {
	o := method.LocalOptions{Members: map[string][]string{}, Stats: map[string]*ownerstats.Statistics{},
		Schemas: []data.Schema{schema}, Source: src}
	for i, st := range stats {
		name := OwnerName(i + 1)
		o.Members[method.RoleOwner] = append(o.Members[method.RoleOwner], name)
		o.Stats[name] = st
	}
	return o
}

// rowsRun lays out a one-process run of owners of rows: owner-1..m hold
// the tables in order; every other role is offered under its own name.
func rowsRun(owners []*data.Table, src *randx.Source, extraRoles ...string) method.LocalOptions {
	o := method.LocalOptions{Members: map[string][]string{}, Data: map[string]*data.Table{}, Source: src}
	for i, t := range owners {
		name := OwnerName(i + 1)
		o.Members[method.RoleOwner] = append(o.Members[method.RoleOwner], name)
		o.Data[name] = t
	}
	for _, r := range extraRoles {
		o.Members[r] = []string{r}
	}
	return o
}
