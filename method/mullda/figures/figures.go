// Package figures reproduces LDA-DP's and Mul-LDA-DP's §5 (Figs. 1, 2 and
// 3) as `dppub eval lda-dp`.
package figures

import (
	"context"
	"fmt"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/eval"
	"github.com/dppub/dppub/learn"
	mulldaspec "github.com/dppub/dppub/method/mullda"
	"github.com/dppub/dppub/method/mullda/lda"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// Options configure the LDA-DP / Mul-LDA-DP experiments (paper §5):
// SVM misclassification rate on the real held-out 20% of a classifier
// trained on the published labelled projections, against PPCA-DP-MH and
// "No Privacy" (an SVM on the real training data, all features).
type Options struct {
	Figure int // 1, 2 or 3
	Reps   int // default 50, as in the paper
	// BaselineReps is the number of repetitions of PPCA-DP-MH (default
	// Reps; on Adult it costs about ten LDA runs), run as Baseline.
	BaselineReps int
	// Baseline is PPCA-DP-MH as a baseline (the registry's, eval/all);
	// without its Synthesize the baseline is left out.
	Baseline eval.Baseline
	Delta    float64 // default 0.001, as in the paper
	Source   *randx.Source
	// Progress, if set, is called after every repetition of every task.
	Progress func(done, total int)
	// Overrides of the paper's grids (nil: the paper's).
	Epsilons []float64
	Parties  []int
	Tasks    []eval.Task
}

// Published outputs evaluated per run. A run's direction W does not depend
// on the output mode, so each run is scored on both: the synthetic
// projections the publisher draws (DP) and the owners' real projections
// X_m W (the paper's output, NOT DP), which is exactly what
// mullda.RealProjections publishes for the same W.
const (
	outSynthetic = "synthetic"
	outReal      = "real"
)

type ldaVariant struct {
	calibration lda.Calibration
	noise       lda.NoiseMode
	outputs     []string
}

type ldaGridSpec struct {
	tasks    []eval.Task
	epsilons []float64
	parties  []int
	variants []ldaVariant
	method   string
}

// Run runs one figure's experiment and returns its rows (metric
// "misclassification").
func Run(ctx context.Context, o Options) ([]eval.Row, error) {
	if o.Reps == 0 {
		o.Reps = 50
	}
	if o.BaselineReps == 0 {
		o.BaselineReps = o.Reps
	}
	if o.Delta == 0 {
		o.Delta = 0.001
	}
	if o.Reps < 1 || o.BaselineReps < 0 || o.BaselineReps > o.Reps {
		return nil, fmt.Errorf("lda-dp figures: reps = %d and baseline reps = %d: need 1 ≤ baseline ≤ reps", o.Reps, o.BaselineReps)
	}
	if o.Source == nil {
		o.Source = randx.NewSecure()
	}
	g, err := ldaGrid(o)
	if err != nil {
		return nil, err
	}
	acc := eval.NewAccumulator()
	total, done := len(g.tasks)*o.Reps, 0
	for _, t := range g.tasks {
		for rep := 0; rep < o.Reps; rep++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if err := ldaRep(ctx, t, rep, g, o, acc.Add); err != nil {
				return nil, err
			}
			done++
			if o.Progress != nil {
				o.Progress(done, total)
			}
		}
	}
	return acc.Rows(), nil
}

func ldaGrid(o Options) (ldaGridSpec, error) {
	pick := func(def []eval.Task) []eval.Task {
		if o.Tasks != nil {
			return o.Tasks
		}
		return def
	}
	eps := o.Epsilons
	if eps == nil {
		eps = eval.PaperEpsilons
	}
	both := []string{outSynthetic, outReal}
	sweep := []ldaVariant{{lda.Sound, lda.Correlated, both}, {lda.Paper, lda.Correlated, both}}
	switch o.Figure {
	case 1:
		return ldaGridSpec{tasks: pick([]eval.Task{eval.NLTCSMoney, eval.NLTCSOutside, eval.NLTCSBathing, eval.NLTCSTraveling, eval.AdultSalary, eval.AdultEducation}),
			epsilons: eps, parties: []int{1}, variants: sweep, method: mulldaspec.NameSingle}, nil
	case 2:
		return ldaGridSpec{tasks: pick([]eval.Task{eval.NLTCSMoney, eval.NLTCSOutside, eval.AdultSalary, eval.AdultEducation}),
			epsilons: eps, parties: []int{eval.First(o.Parties, 3)}, variants: sweep, method: mulldaspec.NameMulti}, nil
	case 3:
		parties := o.Parties
		if parties == nil {
			parties = []int{2, 3, 4, 5, 6, 7, 8, 9, 10}
		}
		return ldaGridSpec{tasks: pick([]eval.Task{eval.AdultSalary, eval.AdultEducation}), epsilons: []float64{eval.First(o.Epsilons, 0.2)},
			parties: parties, method: mulldaspec.NameMulti, variants: []ldaVariant{
				{lda.Sound, lda.Correlated, both}, {lda.Sound, lda.Independent, []string{outSynthetic}},
				{lda.Paper, lda.Correlated, []string{outReal}}}}, nil
	}
	return ldaGridSpec{}, fmt.Errorf("lda-dp figures: lda-dp has figures 1, 2 and 3, not %d", o.Figure)
}

// ldaSplit is one repetition's data: an 80/20 split and its labels.
type ldaSplit struct {
	task        eval.Task
	train, test *data.Table
	ytr, yte    []int
	classes     int
	src         *randx.Source
}

// ldaRep runs one repetition of every point of one task on one 80/20 split.
func ldaRep(ctx context.Context, t eval.Task, rep int, g ldaGridSpec, o Options, add func(eval.Row, float64)) error {
	acc := ldaPoints{experiment: fmt.Sprintf("lda-dp-fig%d", o.Figure), sink: add}
	sp := ldaSplit{task: t, src: o.Source.Child()}
	var err error
	if sp.train, sp.test, err = eval.Split80(t, sp.src); err != nil {
		return err
	}
	if sp.ytr, sp.classes, err = t.Labels(sp.train); err != nil {
		return err
	}
	if sp.yte, _, err = t.Labels(sp.test); err != nil {
		return err
	}
	a, err := eval.SVMAccuracy(t, sp.train, sp.test, sp.src)
	if err != nil {
		return err
	}
	acc.add(eval.Row{Dataset: t.Dataset, Task: t.Name, Method: "no-privacy"}, 1-a)
	for _, m := range g.parties {
		owners := []*data.Table{sp.train}
		if m > 1 {
			if owners, err = data.SplitHorizontal(sp.train, m, nil, sp.src); err != nil {
				return err
			}
		}
		for _, eps := range g.epsilons {
			for _, v := range g.variants {
				if err := sp.ldaPoint(ctx, owners, eps, v, g, o, acc); err != nil {
					return err
				}
			}
			if rep < o.BaselineReps && o.Baseline.Synthesize != nil {
				if err := sp.ppcaBaseline(ctx, owners, eps, o.Baseline, acc); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// ldaPoint runs one publication and scores each of the variant's outputs.
func (sp ldaSplit) ldaPoint(ctx context.Context, owners []*data.Table, eps float64, v ldaVariant, g ldaGridSpec, o Options, acc ldaPoints) error {
	t := sp.task
	res, err := mulldaspec.PublishMulti(ctx, mulldaspec.Options{Owners: owners, Source: sp.src, Settings: mulldaspec.Settings{Label: t.Label, Positive: t.Positive, Exclude: t.Drop, Epsilon: eps, Delta: o.Delta, Calibration: v.calibration, Noise: v.noise}})
	if err != nil {
		return fmt.Errorf("lda-dp figures: %s ε=%v m=%d %s: %w", t.Name, eps, len(owners), v.calibration, err)
	}
	zte, err := res.Project(sp.test)
	if err != nil {
		return err
	}
	noise := string(v.noise)
	if len(owners) == 1 {
		noise = ""
	}
	for _, out := range v.outputs {
		z, y, method := res.Projections, res.Labels, g.method
		if out == outReal {
			// The owners' rows are the training split, in any order: X·W
			// of the union is the set the publisher would stack.
			if z, err = res.Project(sp.train); err != nil {
				return err
			}
			y, method = sp.ytr, g.method+"[real Xw]"
		}
		e, err := ldaSVMError(z, y, sp.classes, zte, sp.yte, sp.src)
		if err != nil {
			return err
		}
		acc.add(eval.Row{Dataset: t.Dataset, Task: t.Name, Method: method, Calibration: string(v.calibration), Noise: noise,
			Epsilon: eps, Delta: o.Delta, Parties: len(owners)}, e)
	}
	return nil
}

func (sp ldaSplit) ppcaBaseline(ctx context.Context, owners []*data.Table, eps float64, b eval.Baseline, acc ldaPoints) error {
	t := sp.task
	synth, err := b.Synthesize(ctx, eval.BaselinePoint{Task: t, Owners: owners, Epsilon: eps, Source: sp.src})
	if err != nil {
		return err
	}
	a, err := eval.SVMAccuracy(t, synth, sp.test, sp.src)
	if err != nil {
		return err
	}
	acc.add(eval.Row{Dataset: t.Dataset, Task: t.Name, Method: b.Name, Calibration: "sound", Noise: "local",
		Epsilon: eps, Parties: len(owners)}, 1-a)
	return nil
}

// ldaSVMError trains a linear SVM on labelled projections and returns its
// misclassification rate on the test projections.
func ldaSVMError(z *mat.Dense, y []int, classes int, zte *mat.Dense, yte []int, src *randx.Source) (float64, error) {
	pred, err := eval.SVMPredict(z, y, classes, zte, src)
	if err != nil {
		return 0, fmt.Errorf("lda-dp figures: %w", err)
	}
	return learn.MisclassificationRate(pred, yte), nil
}

// ldaPoints adds one repetition's misclassification of a point of the
// figure.
type ldaPoints struct {
	experiment string
	sink       func(eval.Row, float64)
}

func (p ldaPoints) add(key eval.Row, v float64) {
	key.Experiment, key.Metric = p.experiment, "misclassification"
	p.sink(key, v)
}
