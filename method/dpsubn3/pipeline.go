package dpsubn3

import (
	"cmp"
	"context"
	"time"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method"
	bn "github.com/dppub/dppub/method/privbayes"
	"github.com/dppub/dppub/randx"
)

// Options configure a DP-SUBN3 publication by owners holding
// horizontally split records, in the order of their turns.
type Options struct {
	Settings Settings
	Owners   []*data.Table
	Source   *randx.Source
	Label    string // as privbayes.BayesNetOptions.Label
}

// Publish publishes a synthetic table from the owners' tables with our
// reconstruction of DP-SUBN (Cheng et al., TKDE 2020; see method/dpsubn3/subn3):
// the method's session run in one process.
func Publish(ctx context.Context, o Options) (*bn.Published, error) {
	if len(o.Owners) > 0 {
		o.Label = cmp.Or(o.Label, o.Owners[0].Schema.Label)
		if err := bn.CheckLabel(o.Owners[0].Schema, o.Label); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	run, err := method.RunLocal(ctx, Spec, &o.Settings, method.OwnersLocal(o.Owners, o.Source))
	if err != nil {
		return nil, err
	}
	d := run.Outcome.Detail.(*Result)
	res := &bn.Published{Synthetic: run.Outcome.Table, Report: run.Outcome.Report, Model: d.Model,
		Discretizer: d.Discretizer, Clamped: run.Facts.Clamped, Traffic: run.Traffic, Elapsed: time.Since(start)}
	res.Warn(o.Label)
	return res, nil
}
