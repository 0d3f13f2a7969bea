package eval

import (
	"context"
	"fmt"
	pdpmvdsspec "github.com/dppub/dppub/method/pdpmvds"
	"github.com/dppub/dppub/method/synthesize"
	"math"
	"slices"
	"time"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/engine/marginal"
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

// SynthOptions configure the PDP-MVDS (marginal synthesis) experiments.
// The epsilon column of their rows holds the total zCDP budget ρ.
//
//   - Figure 1: utility against ρ for one owner on Adult and Big5: marginal
//     TVD, range-query error, run time, and (Adult) SVM accuracy for
//     salary trained on synthetic data and tested on the real held-out 20%.
//   - Figure 2: personalised budgets: the attributes split between two
//     parties (contiguous halves); both at ρ, the second at ρ/10, both at
//     ρ/10. TVD is also reported per block (2-way marginals within party 1,
//     within party 2, and across).
type SynthOptions struct {
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

func (o *SynthOptions) defaults() error {
	if o.Reps == 0 {
		o.Reps = 3
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
	if o.Source == nil {
		o.Source = randx.NewSecure()
	}
	switch {
	case o.Figure != 1 && o.Figure != 2:
		return fmt.Errorf("eval: pdp-mvds has figures 1 and 2, not %d", o.Figure)
	case o.Reps < 1:
		return fmt.Errorf("eval: reps = %d, need at least 1", o.Reps)
	case o.Queries < 1 || o.QueryAttrs < 1:
		return fmt.Errorf("eval: %d range queries over %d attributes", o.Queries, o.QueryAttrs)
	}
	for _, r := range o.Rhos {
		if !(r > 0) || math.IsInf(r, 0) {
			return fmt.Errorf("eval: rho %v must be positive and finite", r)
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

// SynthFigure runs one figure and returns its rows.
func SynthFigure(ctx context.Context, o SynthOptions) ([]Row, error) {
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
		return nil, fmt.Errorf("eval: none of the datasets %v could be loaded", o.Datasets)
	}
	profiles := synthProfiles(o.Figure)
	total := len(names) * len(o.Rhos) * len(profiles) * o.Reps
	done := 0
	acc := newSynthAccumulator()
	experiment := fmt.Sprintf("pdp-mvds-fig%d", o.Figure)
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
					done++
					if o.Progress != nil {
						o.Progress(done, total)
					}
				}
			}
		}
	}
	return acc.rows(experiment), nil
}

// synthSplit is one repetition's data: Adult is split 80/20 so that the
// synthetic data can be tested on real held-out rows; Big5 is used whole.
type synthSplit struct {
	name        string
	train, test *data.Table
	task        *Task
}

func newSynthSplit(name string, t *data.Table, src *randx.Source) (*synthSplit, error) {
	sp := &synthSplit{name: name, train: t}
	if name == AdultSalary.Dataset {
		task := AdultSalary
		sp.task = &task
		var err error
		if sp.train, sp.test, err = data.TrainTestSplit(t, 0.8, src); err != nil {
			return nil, err
		}
	}
	return sp, nil
}

func (sp *synthSplit) noPrivacy(acc *synthAccumulator, src *randx.Source) error {
	if sp.task == nil {
		return nil
	}
	a, err := SVMAccuracy(*sp.task, sp.train, sp.test, src)
	if err != nil {
		return err
	}
	acc.add(Row{Dataset: sp.name, Task: sp.task.Name, Method: "no-privacy", Metric: MetricAccuracy}, a)
	return nil
}

func (sp *synthSplit) point(ctx context.Context, rho float64, p synthProfile, o SynthOptions, acc *synthAccumulator, src *randx.Source) error {
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
		return fmt.Errorf("eval: %s at rho %v (%s): %w", sp.name, rho, p.name, err)
	}
	elapsed := time.Since(start)
	key := Row{Dataset: sp.name, Task: "marginals", Method: pdpmvdsspec.Name, Calibration: "sound", Noise: p.name,
		Epsilon: rho, Parties: len(parties)}
	add := func(metric string, v float64) {
		k := key
		k.Metric = metric
		acc.add(k, v)
	}
	tv, err := SynthTVD(sp.train, res.Synthetic, res.Domain, parties)
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
	rq, err := RangeQueryError(sp.train, res.Synthetic, res.Domain, o.Queries, o.QueryAttrs, src.Child())
	if err != nil {
		return err
	}
	add(MetricRange, rq)
	add(MetricSeconds, elapsed.Seconds())
	add(MetricGUMSeconds, res.Engine.Timings.GUM.Seconds())
	if sp.task != nil {
		a, err := SVMAccuracy(*sp.task, res.Synthetic, sp.test, src.Child())
		if err != nil {
			return err
		}
		key.Task = sp.task.Name
		key.Metric = MetricAccuracy
		acc.add(key, a)
	}
	return nil
}

// TVDStats are mean total variation distances between a real and a
// synthetic table's marginals on a discretised domain.
type TVDStats struct {
	All, OneWay, TwoWay float64
	// Blocks holds the mean 2-way TVD within each party ("party-1") and
	// across parties ("across"), when parties are given.
	Blocks map[string]float64
}

// SynthTVD computes the mean TVD over every 1-way and 2-way marginal of
// dom (numeric attributes binned as dom bins them).
func SynthTVD(real, synth *data.Table, dom *marginal.Domain, parties []synthesize.Party) (TVDStats, error) {
	r, s, err := encodeBoth(real, synth, dom)
	if err != nil {
		return TVDStats{}, err
	}
	owner := make([]string, dom.Len())
	for _, p := range parties {
		for _, name := range p.Attributes {
			j, err := dom.Index(name)
			if err != nil {
				return TVDStats{}, err
			}
			owner[j] = p.Name
		}
	}
	d := dom.Len()
	var st TVDStats
	blockSum, blockN := map[string]float64{}, map[string]int{}
	for a := range d {
		v, err := marginalTVD(r, s, []int{a})
		if err != nil {
			return st, err
		}
		st.OneWay += v
		for b := a + 1; b < d; b++ {
			v, err := marginalTVD(r, s, []int{a, b})
			if err != nil {
				return st, err
			}
			st.TwoWay += v
			block := "across"
			if owner[a] == owner[b] {
				block = owner[a]
			}
			blockSum[block] += v
			blockN[block]++
		}
	}
	pairs := d * (d - 1) / 2
	st.All = (st.OneWay + st.TwoWay) / float64(d+pairs)
	st.OneWay /= float64(d)
	if pairs > 0 {
		st.TwoWay /= float64(pairs)
	}
	if len(parties) > 0 {
		st.Blocks = map[string]float64{}
		for b, v := range blockSum {
			st.Blocks[b] = v / float64(blockN[b])
		}
	}
	return st, nil
}

func encodeBoth(real, synth *data.Table, dom *marginal.Domain) (*marginal.Dataset, *marginal.Dataset, error) {
	r, _, err := dom.Encode(real)
	if err != nil {
		return nil, nil, fmt.Errorf("eval: real table: %w", err)
	}
	s, _, err := dom.Encode(synth)
	if err != nil {
		return nil, nil, fmt.Errorf("eval: synthetic table: %w", err)
	}
	if r.Len() == 0 || s.Len() == 0 {
		return nil, nil, fmt.Errorf("eval: empty table (real %d rows, synthetic %d)", r.Len(), s.Len())
	}
	return r, s, nil
}

func marginalTVD(r, s *marginal.Dataset, attrs []int) (float64, error) {
	mr, err := marginal.Count(r, attrs)
	if err != nil {
		return 0, err
	}
	ms, err := marginal.Count(s, attrs)
	if err != nil {
		return 0, err
	}
	nr, ns := float64(r.Len()), float64(s.Len())
	t := 0.0
	for c := range mr.Counts {
		t += math.Abs(mr.Counts[c]/nr - ms.Counts[c]/ns)
	}
	return t / 2, nil
}

// RangeQueryError draws queries random range queries, each over
// attrsPerQuery distinct random attributes with a random contiguous range
// of each one's discretised values (category order for categorical
// ones), and returns the mean absolute difference between the fractions
// of real and synthetic records that satisfy them (PrivSyn's range-query
// metric).
func RangeQueryError(real, synth *data.Table, dom *marginal.Domain, queries, attrsPerQuery int, src *randx.Source) (float64, error) {
	r, s, err := encodeBoth(real, synth, dom)
	if err != nil {
		return 0, err
	}
	k := min(attrsPerQuery, dom.Len())
	total := 0.0
	for range queries {
		attrs := src.Perm(dom.Len())[:k]
		slices.Sort(attrs)
		lo, hi := make([]uint16, k), make([]uint16, k)
		for i, a := range attrs {
			x, y := src.IntN(dom.Size(a)), src.IntN(dom.Size(a))
			lo[i], hi[i] = uint16(min(x, y)), uint16(max(x, y))
		}
		total += math.Abs(rangeFraction(r, attrs, lo, hi) - rangeFraction(s, attrs, lo, hi))
	}
	return total / float64(queries), nil
}

func rangeFraction(ds *marginal.Dataset, attrs []int, lo, hi []uint16) float64 {
	n := ds.Len()
	count := 0
rows:
	for i := range n {
		for k, a := range attrs {
			if v := ds.Cols[a][i]; v < lo[k] || v > hi[k] {
				continue rows
			}
		}
		count++
	}
	return float64(count) / float64(n)
}

// synthAccumulator gathers repeated measurements per row key.
type synthAccumulator struct {
	keys []Row
	vals map[Row][]float64
}

func newSynthAccumulator() *synthAccumulator { return &synthAccumulator{vals: map[Row][]float64{}} }

func (a *synthAccumulator) add(key Row, v float64) {
	if _, ok := a.vals[key]; !ok {
		a.keys = append(a.keys, key)
	}
	a.vals[key] = append(a.vals[key], v)
}

func (a *synthAccumulator) rows(experiment string) []Row {
	out := make([]Row, 0, len(a.keys))
	for _, k := range a.keys {
		r := k
		r.Experiment = experiment
		r.Reps = len(a.vals[k])
		r.Mean, r.Std = meanStd(a.vals[k])
		out = append(out, r)
	}
	return out
}
