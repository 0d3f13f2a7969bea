// Package figures evaluates PDP-MVDS's marginal-synthesis engine
// (engine/marginal) as `dppub eval pdp-mvds`: utility against ρ for one
// owner (Fig. 1) and with personalised budgets among parties of columns
// (Fig. 2), run in one process by the central pipeline of synthesize,
// its declared base, whose vertical split PDP-MVDS shares.
package figures

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/eval"
	pdpmvdsspec "github.com/dppub/dppub/method/pdpmvds"
	"github.com/dppub/dppub/method/synthesize"
	"github.com/dppub/dppub/randx"
)

// Metrics of the marginal-synthesis experiments.
const (
	MetricTVD        = "tvd"         // mean TVD over all 1-way and 2-way marginals
	MetricTVD1       = "tvd-1way"    // mean TVD over 1-way marginals
	MetricTVD2       = "tvd-2way"    // mean TVD over 2-way marginals
	MetricRange      = "range-error" // mean |answer error| of random range queries (fractions)
	MetricAccuracy   = "accuracy"    // SVM trained on synthetic, tested on real
	MetricSeconds    = "seconds"     // wall time of the whole synthesis
	MetricGUMSeconds = "gum-seconds" // wall time of GUM alone
)

// Options configure the PDP-MVDS (marginal synthesis) experiments.
// The epsilon column of their rows holds the total zCDP budget ρ.
//
//   - Figure 1: utility against ρ for one owner on Adult and Big5: marginal
//     TVD, range-query error, run time, and (Adult) SVM accuracy for
//     salary trained on synthetic data and tested on the real held-out 20%.
//   - Figure 2: personalised budgets: the attributes split between two
//     parties (contiguous halves); both at ρ, the second at ρ/10, both at
//     ρ/10. TVD is also reported per block (2-way marginals within party 1,
//     within party 2, and across).
type Options struct {
	Figure   int       // 1 or 2
	Reps     int       // default 3
	Rhos     []float64 // default 0.005, 0.01, 0.05, 0.1, 0.5, 1
	Datasets []string  // default adult and big5 (big5 skipped when absent)
	// Queries is the number of random range queries (default 200), each
	// over QueryAttrs attributes (default 3).
	Queries, QueryAttrs int
	Source              *randx.Source
	// Progress is called after every synthesis.
	Progress func(done, total int)
	// Skipped collects why a dataset was left out (e.g. Big5 absent).
	Skipped *[]string
}

func (o *Options) defaults() error {
	if o.Figure != 1 && o.Figure != 2 {
		return fmt.Errorf("pdp-mvds figures: pdp-mvds has figures 1 and 2, not %d", o.Figure)
	}
	if err := eval.Repetitions(&o.Reps, 3, &o.Source); err != nil {
		return err
	}
	if o.Rhos == nil {
		o.Rhos = []float64{0.005, 0.01, 0.05, 0.1, 0.5, 1}
	}
	if o.Datasets == nil {
		o.Datasets = []string{"adult", "big5"}
	}
	if o.Queries == 0 {
		o.Queries = 200
	}
	if o.QueryAttrs == 0 {
		o.QueryAttrs = 3
	}
	if o.Queries < 1 || o.QueryAttrs < 1 {
		return fmt.Errorf("pdp-mvds figures: %d range queries over %d attributes", o.Queries, o.QueryAttrs)
	}
	for _, r := range o.Rhos {
		if !(r > 0) || math.IsInf(r, 0) {
			return fmt.Errorf("pdp-mvds figures: rho %v must be positive and finite", r)
		}
	}
	return nil
}

// synthProfile is one way of giving the parties their budgets.
type synthProfile struct {
	name    string
	factors []float64 // ρ_k = factor · ρ
}

func synthProfiles(figure int) []synthProfile {
	if figure == 1 {
		return []synthProfile{{"one owner", []float64{1}}}
	}
	return []synthProfile{
		{"both at rho", []float64{1, 1}},
		{"party 2 at rho/10", []float64{1, 0.1}},
		{"both at rho/10", []float64{0.1, 0.1}},
	}
}

// Run runs one figure and returns its rows.
func Run(ctx context.Context, o Options) ([]eval.Row, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	tables := map[string]*data.Table{}
	var names []string
	for _, name := range o.Datasets {
		t, err := datasets.Load(name)
		if err != nil {
			if o.Skipped != nil {
				*o.Skipped = append(*o.Skipped, fmt.Sprintf("%s: %v", name, err))
			}
			continue
		}
		tables[name] = t
		names = append(names, name)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("pdp-mvds figures: none of the datasets %v could be loaded", o.Datasets)
	}
	profiles := synthProfiles(o.Figure)
	total := len(names) * len(o.Rhos) * len(profiles) * o.Reps
	c := eval.Counter{Total: total, Progress: o.Progress}
	acc := eval.NewAccumulator()
	for _, name := range names {
		for range o.Reps {
			src := o.Source.Child()
			sp, err := newSynthSplit(name, tables[name], src)
			if err != nil {
				return nil, err
			}
			if err := sp.noPrivacy(acc, src); err != nil {
				return nil, err
			}
			for _, rho := range o.Rhos {
				for _, p := range profiles {
					if err := sp.point(ctx, rho, p, o, acc, src.Child()); err != nil {
						return nil, err
					}
					c.Step()
				}
			}
		}
	}
	rows := acc.Rows()
	for i := range rows {
		rows[i].Experiment = fmt.Sprintf("pdp-mvds-fig%d", o.Figure)
	}
	return rows, nil
}

// synthSplit is one repetition's data: Adult is split 80/20 so that the
// synthetic data can be tested on real held-out rows; Big5 is used whole.
type synthSplit struct {
	name        string
	train, test *data.Table
	task        *eval.Task
}

func newSynthSplit(name string, t *data.Table, src *randx.Source) (*synthSplit, error) {
	sp := &synthSplit{name: name, train: t}
	if name == eval.AdultSalary.Dataset {
		task := eval.AdultSalary
		sp.task = &task
		var err error
		if sp.train, sp.test, err = data.TrainTestSplit(t, 0.8, src); err != nil {
			return nil, err
		}
	}
	return sp, nil
}

func (sp *synthSplit) noPrivacy(acc *eval.Accumulator, src *randx.Source) error {
	if sp.task == nil {
		return nil
	}
	a, err := eval.SVMAccuracy(*sp.task, sp.train, sp.test, src)
	if err != nil {
		return err
	}
	acc.Add(eval.Row{Dataset: sp.name, Task: sp.task.Name, Method: "no-privacy", Metric: MetricAccuracy}, a)
	return nil
}

func (sp *synthSplit) point(ctx context.Context, rho float64, p synthProfile, o Options, acc *eval.Accumulator, src *randx.Source) error {
	rhos := make([]float64, len(p.factors))
	for k, f := range p.factors {
		rhos[k] = f * rho
	}
	parties, err := synthesize.EvenParties(sp.train.Schema, rhos)
	if err != nil {
		return err
	}
	start := time.Now()
	res, err := synthesize.Publish(ctx, synthesize.Options{Table: sp.train, Parties: parties, Source: src.Child()})
	if err != nil {
		return fmt.Errorf("pdp-mvds figures: %s at rho %v (%s): %w", sp.name, rho, p.name, err)
	}
	elapsed := time.Since(start)
	key := eval.Row{Dataset: sp.name, Task: "marginals", Method: pdpmvdsspec.Name, Calibration: "sound", Noise: p.name,
		Epsilon: rho, Parties: len(parties)}
	add := func(metric string, v float64) {
		k := key
		k.Metric = metric
		acc.Add(k, v)
	}
	owners := map[string][]string{}
	for _, p := range parties {
		owners[p.Name] = p.Attributes
	}
	if len(parties) == 0 {
		owners = nil
	}
	tv, err := eval.SynthTVD(sp.train, res.Synthetic, res.Domain, owners)
	if err != nil {
		return err
	}
	add(MetricTVD, tv.All)
	add(MetricTVD1, tv.OneWay)
	add(MetricTVD2, tv.TwoWay)
	if len(parties) > 1 {
		for block, v := range tv.Blocks {
			add(MetricTVD2+" "+block, v)
		}
	}
	rq, err := eval.RangeQueryError(sp.train, res.Synthetic, res.Domain, o.Queries, o.QueryAttrs, src.Child())
	if err != nil {
		return err
	}
	add(MetricRange, rq)
	add(MetricSeconds, elapsed.Seconds())
	add(MetricGUMSeconds, res.Engine.Timings.GUM.Seconds())
	if sp.task != nil {
		a, err := eval.SVMAccuracy(*sp.task, res.Synthetic, sp.test, src.Child())
		if err != nil {
			return err
		}
		key.Task = sp.task.Name
		key.Metric = MetricAccuracy
		acc.Add(key, a)
	}
	return nil
}
