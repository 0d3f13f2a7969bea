// Package figures reproduces PPCA-DP-MH's §5 (Figs. 2, 3 and 4) as
// `dppub eval ppca-dp-mh`, and lends PPCA-DP-MH to other papers' figures
// as a baseline.
package figures

import (
	"context"
	"fmt"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/eval"
	ppcaspec "github.com/dppub/dppub/method/ppcadpmh"
	"github.com/dppub/dppub/method/ppcadpmh/ppca"
	ppcadpmh "github.com/dppub/dppub/method/ppcadpmh/roles"
	"github.com/dppub/dppub/randx"
)

// Options configure the PPCA-DP-MH experiments (paper §5).
type Options struct {
	Figure int // 2, 3 or 4
	Reps   int // default 5, as in the paper
	Source *randx.Source
	// Progress, if set, is called after every measured point.
	Progress func(done, total int)
	// Overrides of the paper's grids (nil: the paper's).
	Epsilons []float64
	Ks       []int
	Parties  []int
	Tasks    []eval.Task
}

type ppcaPoint struct {
	task        eval.Task
	mechanism   ppca.Mechanism
	calibration ppca.Calibration
	noise       ppcadpmh.NoiseMode
	eps         float64
	k           int
	parties     int
}

// contributionRate is the paper's c per dataset (§5).
func contributionRate(dataset string) float64 {
	if dataset == "adult" {
		return 0.9
	}
	return 0.85
}

// Run runs one figure's experiment and returns its rows.
func Run(ctx context.Context, o Options) ([]eval.Row, error) {
	if err := eval.Repetitions(&o.Reps, 5, &o.Source); err != nil {
		return nil, err
	}
	points, tasks, err := ppcaGrid(o)
	if err != nil {
		return nil, err
	}
	total := len(points) + len(tasks)
	done := 0
	step := func() {
		done++
		if o.Progress != nil {
			o.Progress(done, total)
		}
	}
	var rows []eval.Row
	for _, t := range tasks {
		r, err := noPrivacyRow(t, o, fmt.Sprintf("ppca-dp-mh-fig%d", o.Figure))
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
		step()
	}
	for _, pt := range points {
		r, err := ppcaPointRows(ctx, pt, o)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r...)
		step()
	}
	return rows, nil
}

func ppcaGrid(o Options) ([]ppcaPoint, []eval.Task, error) {
	cals := []ppca.Calibration{ppca.Paper, ppca.Sound}
	var pts []ppcaPoint
	pick := func(def []eval.Task) []eval.Task {
		if o.Tasks != nil {
			return o.Tasks
		}
		return def
	}
	switch o.Figure {
	case 2:
		tasks := pick([]eval.Task{eval.NLTCSOutside, eval.AdultSalary})
		for _, t := range tasks {
			ks := o.Ks
			if ks == nil {
				ks = []int{1, 2, 4, 6, 8, 10, 12, 14, 16}
				if t.Dataset == "adult" {
					ks = []int{5, 10, 15, 20, 25, 30, 35}
				}
			}
			for _, c := range cals {
				for _, k := range ks {
					pts = append(pts, ppcaPoint{task: t, calibration: c, noise: ppcadpmh.Local, eps: eval.First(o.Epsilons, 0.1), k: k, parties: eval.First(o.Parties, 3)})
				}
			}
		}
		return pts, tasks, nil
	case 3:
		tasks := pick([]eval.Task{eval.NLTCSMoney, eval.NLTCSOutside, eval.AdultEducation, eval.AdultSalary})
		eps := o.Epsilons
		if eps == nil {
			eps = eval.PaperEpsilons
		}
		for _, t := range tasks {
			for _, c := range cals {
				for _, e := range eps {
					pts = append(pts, ppcaPoint{task: t, calibration: c, noise: ppcadpmh.Local, eps: e, parties: eval.First(o.Parties, 3)})
				}
			}
			for _, e := range eps {
				pts = append(pts, ppcaPoint{task: t, mechanism: ppca.Gaussian, calibration: ppca.Sound, noise: ppcadpmh.Local, eps: e, parties: eval.First(o.Parties, 3)})
			}
		}
		return pts, tasks, nil
	case 4:
		tasks := pick([]eval.Task{eval.AdultEducation, eval.AdultSalary})
		parties := o.Parties
		if parties == nil {
			parties = []int{2, 4, 6, 8, 10}
		}
		for _, t := range tasks {
			for _, m := range parties {
				pts = append(pts,
					ppcaPoint{task: t, calibration: ppca.Paper, noise: ppcadpmh.Local, eps: eval.First(o.Epsilons, 0.2), parties: m},
					ppcaPoint{task: t, calibration: ppca.Sound, noise: ppcadpmh.Local, eps: eval.First(o.Epsilons, 0.2), parties: m},
					ppcaPoint{task: t, calibration: ppca.Sound, noise: ppcadpmh.SecureAggregate, eps: eval.First(o.Epsilons, 0.2), parties: m},
					ppcaPoint{task: t, mechanism: ppca.Gaussian, calibration: ppca.Sound, noise: ppcadpmh.Local, eps: eval.First(o.Epsilons, 0.2), parties: m},
					ppcaPoint{task: t, mechanism: ppca.Gaussian, calibration: ppca.Sound, noise: ppcadpmh.SecureAggregate, eps: eval.First(o.Epsilons, 0.2), parties: m})
			}
		}
		return pts, tasks, nil
	}
	return nil, nil, fmt.Errorf("ppca-dp-mh figures: ppca-dp-mh has figures 2, 3 and 4, not %d", o.Figure)
}

func noPrivacyRow(t eval.Task, o Options, experiment string) (eval.Row, error) {
	accs, err := eval.NoPrivacy(t, o.Reps, o.Source, eval.Split80)
	if err != nil {
		return eval.Row{}, err
	}
	m, s := eval.MeanStd(accs)
	return eval.Row{Experiment: experiment, Dataset: t.Dataset, Task: t.Name, Method: "no-privacy",
		Reps: o.Reps, Metric: "accuracy", Mean: m, Std: s}, nil
}

func ppcaPointRows(ctx context.Context, pt ppcaPoint, o Options) ([]eval.Row, error) {
	var accs []float64
	var cum [][]float64
	delta := 0.0
	for rep := 0; rep < o.Reps; rep++ {
		src := o.Source.Child()
		train, test, err := eval.Split80(pt.task, src)
		if err != nil {
			return nil, err
		}
		owners, err := data.SplitHorizontal(train, pt.parties, nil, src)
		if err != nil {
			return nil, err
		}
		delta = gaussianDelta(pt, owners)
		res, err := ppcaspec.Publish(ctx, ppcaspec.Options{Owners: owners, Source: src, Settings: ppcaspec.Settings{Epsilon: pt.eps, Delta: delta, Calibration: pt.calibration, Mechanism: pt.mech(), Noise: pt.noise, Contribution: contributionRate(pt.task.Dataset), K: pt.k}})
		if err != nil {
			return nil, fmt.Errorf("ppca-dp-mh figures: %s ε=%v k=%d m=%d %s: %w", pt.task.Name, pt.eps, pt.k, pt.parties, pt.calibration, err)
		}
		acc, err := eval.SVMAccuracy(pt.task, res.Synthetic, test, src)
		if err != nil {
			return nil, err
		}
		accs = append(accs, acc)
		cum = append(cum, cumulative(res.Model.Eigenvalues))
	}
	base := eval.Row{Experiment: fmt.Sprintf("ppca-dp-mh-fig%d", o.Figure), Dataset: pt.task.Dataset, Task: pt.task.Name,
		Method: pt.method(), Calibration: string(pt.calibration), Noise: string(pt.noise),
		Epsilon: pt.eps, Delta: delta, Parties: pt.parties, K: pt.k, Reps: o.Reps}
	acc := base
	acc.Metric = "accuracy"
	acc.Mean, acc.Std = eval.MeanStd(accs)
	rows := []eval.Row{acc}
	if o.Figure == 2 && pt.k > 0 {
		c := base
		c.Metric = "cumulative_contribution"
		var at []float64
		for _, v := range cum {
			at = append(at, v[min(pt.k, len(v))-1])
		}
		c.Mean, c.Std = eval.MeanStd(at)
		rows = append(rows, c)
	}
	return rows, nil
}

// cumulative returns the cumulative contribution rates Σ_{i≤k}λ_i/Σλ_i.
func cumulative(vals []float64) []float64 {
	total := 0.0
	for _, v := range vals {
		total += v
	}
	out := make([]float64, len(vals))
	acc := 0.0
	for i, v := range vals {
		acc += v
		out[i] = acc / total
	}
	return out
}

func (pt ppcaPoint) mech() ppca.Mechanism {
	if pt.mechanism == "" {
		return ppca.Laplace
	}
	return pt.mechanism
}

func (pt ppcaPoint) method() string {
	if pt.mech() == ppca.Gaussian {
		return "ppca-dp-mh-gaussian"
	}
	return ppcaspec.Name
}

// gaussianDelta is δ = 1/n_min² over the owners for the Gaussian mechanism
// (the convention of the DPPCA paper's experiments), 0 for Laplace.
func gaussianDelta(pt ppcaPoint, owners []*data.Table) float64 {
	if pt.mech() != ppca.Gaussian {
		return 0
	}
	n := owners[0].Len()
	for _, t := range owners {
		n = min(n, t.Len())
	}
	return dp.DefaultDelta(n)
}
