package eval

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/randx"
	"github.com/spf13/pflag"
)

// A Baseline is a method another paper's figures compare against, as a
// publisher of a synthetic table: each baseline's figures package
// defines it, and eval/all finds it by Name.
type Baseline struct {
	Name string
	// SingleOwner: the method publishes one owner's table, so a sweep
	// neither splits the training rows nor varies the owners.
	SingleOwner bool
	// Synthesize publishes a synthetic table from the owners' rows.
	Synthesize func(ctx context.Context, p BaselinePoint) (*data.Table, error)
}

// BaselinePoint is one publication of a baseline.
type BaselinePoint struct {
	Task    Task
	Owners  []*data.Table
	Epsilon float64
	Source  *randx.Source
	// Frontier is DP-SUBN3's search frontier width (0: all); the other
	// baselines ignore it.
	Frontier int
}

// A Comparison is a paper's figure that compares its method against a
// baseline, and the grid both run on.
type Comparison struct {
	Paper    string // the method whose paper the figure is in
	Figure   int
	Baseline string // the baseline's method name
	Tasks    []Task
	Epsilons []float64
	Parties  []int // the baseline's owners (ignored by a single-owner baseline)
	// Metric is what the paper plots: "accuracy", or "misclassification"
	// (rows then carry both).
	Metric string
}

// Experiment names the comparison's rows, so that they join the curves of
// the method they are compared with.
func (c Comparison) Experiment() string { return fmt.Sprintf("%s-fig%d", c.Paper, c.Figure) }

// FindComparison returns the comparison of paper's figure among cs.
func FindComparison(cs []Comparison, paper string, figure int) (Comparison, error) {
	var have []string
	for _, c := range cs {
		if c.Paper == paper && c.Figure == figure {
			return c, nil
		}
		if n := len(have); n > 0 && strings.HasPrefix(have[n-1], c.Paper+" ") {
			have[n-1] += fmt.Sprintf(", %d", c.Figure)
		} else {
			have = append(have, fmt.Sprintf("%s %d", c.Paper, c.Figure))
		}
	}
	return Comparison{}, fmt.Errorf("eval: no baseline comparison in %s Fig. %d (have %s)", paper, figure, strings.Join(have, "; "))
}

// BaselineOptions configure a sweep of one baseline over a comparison's
// tasks, budgets and numbers of owners.
type BaselineOptions struct {
	Comparison
	Reps     int // default 5
	Source   *randx.Source
	Progress func(done, total int)
	Frontier int // DP-SUBN3's search frontier width (0: all)
}

// BaselineRows runs the sweep the way the PPCA-DP-MH experiments do: per
// repetition an 80/20 split of the tasks' dataset, the baseline publishes
// a synthetic table from the 80% (split among the owners unless it is a
// single-owner baseline), a linear SVM is trained on it and tested on the
// real 20%. It returns one accuracy row per (task, ε, owners), and a
// misclassification row (1 − accuracy) when the comparison plots it.
// Within a repetition all tasks on one dataset share one split and one
// synthetic table.
func BaselineRows(ctx context.Context, b Baseline, o BaselineOptions) ([]Row, error) {
	if err := Repetitions(&o.Reps, 5, &o.Source); err != nil {
		return nil, err
	}
	parties := o.Parties
	if b.SingleOwner || len(parties) == 0 {
		parties = []int{1}
	}
	groups := tasksByDataset(o.Tasks)
	c := Counter{Total: len(groups) * len(o.Epsilons) * len(parties), Progress: o.Progress}
	var rows []Row
	for _, g := range groups {
		for _, eps := range o.Epsilons {
			for _, m := range parties {
				accs := make([][]float64, len(g))
				for range o.Reps {
					a, err := BaselineRep(ctx, b, g, BaselinePoint{Epsilon: eps, Source: o.Source.Child(), Frontier: o.Frontier}, m)
					if err != nil {
						return nil, err
					}
					for i := range g {
						accs[i] = append(accs[i], a[i])
					}
				}
				for i, t := range g {
					rows = append(rows, o.rows(b, t, eps, m, accs[i])...)
				}
				c.Step()
			}
		}
	}
	return rows, nil
}

func (o BaselineOptions) rows(b Baseline, t Task, eps float64, parties int, accs []float64) []Row {
	r := Row{Experiment: o.Experiment(), Dataset: t.Dataset, Task: t.Name, Method: b.Name, Calibration: "sound",
		Epsilon: eps, Parties: parties, Reps: len(accs), Metric: "accuracy"}
	r.Mean, r.Std = MeanStd(accs)
	out := []Row{r}
	if o.Metric == "misclassification" {
		mis := r
		mis.Metric, mis.Mean = "misclassification", 1-r.Mean
		out = append(out, mis)
	}
	return out
}

// tasksByDataset groups tasks by dataset, keeping their order.
func tasksByDataset(tasks []Task) [][]Task {
	var names []string
	by := map[string][]Task{}
	for _, t := range tasks {
		if !slices.Contains(names, t.Dataset) {
			names = append(names, t.Dataset)
		}
		by[t.Dataset] = append(by[t.Dataset], t)
	}
	out := make([][]Task, len(names))
	for i, n := range names {
		out[i] = by[n]
	}
	return out
}

// BaselineRep runs one repetition: it splits the tasks' (common) dataset
// with p.Source, splits the training rows among parties owners (unless b
// is single-owner), publishes one synthetic table and returns each task's
// SVM accuracy on the real test rows.
func BaselineRep(ctx context.Context, b Baseline, tasks []Task, p BaselinePoint, parties int) ([]float64, error) {
	train, test, err := Split80(tasks[0], p.Source)
	if err != nil {
		return nil, err
	}
	p.Task, p.Owners = tasks[0], []*data.Table{train}
	if !b.SingleOwner {
		if p.Owners, err = data.SplitHorizontal(train, parties, nil, p.Source); err != nil {
			return nil, err
		}
	}
	synth, err := b.Synthesize(ctx, p)
	if err != nil {
		return nil, err
	}
	accs := make([]float64, len(tasks))
	for i, t := range tasks {
		if t.Dataset != tasks[0].Dataset {
			return nil, fmt.Errorf("eval: tasks %s and %s are on different datasets", tasks[0].Name, t.Name)
		}
		if accs[i], err = SVMAccuracy(t, synth, test, p.Source); err != nil {
			return nil, err
		}
	}
	return accs, nil
}

// BaselinesExperiment is `dppub eval baselines`: the baseline of any of
// the comparisons, alone, on its figure's grid.
func BaselinesExperiment(comparisons []Comparison) Experiment {
	return Experiment{
		Name:  "baselines",
		Short: "The papers' baselines (PrivBayes, DP-SUBN3) on the figures that compare against them",
		Long: `Run the baseline of a comparison figure on the same data, the same 80/20
split and the same SVM as the method it is compared with, and write its
curve in the long-form CSV (join it with the method's own CSV to plot both):

  --paper ppca-dp-mh --figure 3   DP-SUBN3, accuracy vs ε (m = 3)
  --paper ppca-dp-mh --figure 4   DP-SUBN3, accuracy vs owners (ε = 0.2)
  --paper lda-dp --figure 1       PrivBayes, misclassification vs ε (one owner)
  --paper lda-dp --figure 2       DP-SUBN3, misclassification vs ε (m = 3)
  --paper lda-dp --figure 3       DP-SUBN3, misclassification vs owners (ε = 0.2)

The papers do not print their ε grid; {0.05, 0.1, 0.2, 0.4, 0.8, 1.6} is
used throughout. DP-SUBN3 is our reconstruction from the paper's abstract.

Example:
  dppub eval baselines --paper ppca-dp-mh --figure 3 --reps 3 --out subn3-fig3.csv`,
		Bind: func(fs *pflag.FlagSet) Run {
			var f FigureFlags
			var paper string
			var frontier int
			f.Register(fs, "3 or 4 (ppca-dp-mh), 1, 2 or 3 (lda-dp)", 5)
			fs.StringVar(&paper, "paper", "ppca-dp-mh", "ppca-dp-mh | lda-dp")
			fs.IntVar(&frontier, "frontier", 0, "DP-SUBN3's search frontier width (0: all)")
			return func(ctx context.Context, env Env) error {
				c, err := FindComparison(comparisons, paper, f.Figure)
				if err != nil {
					return UsageError{err}
				}
				if err := f.CheckReps(); err != nil {
					return err
				}
				b, err := env.Baseline(c.Baseline)
				if err != nil {
					return err
				}
				o := BaselineOptions{Comparison: c, Reps: f.Reps, Frontier: frontier, Source: env.Source(),
					Progress: env.Progress(fmt.Sprintf("%s %s fig %d", c.Baseline, paper, f.Figure))}
				rows, err := BaselineRows(ctx, b, o)
				if err != nil {
					return err
				}
				x := "epsilon"
				if len(c.Epsilons) == 1 {
					x = "parties"
				}
				return WriteFigure(env, &f, rows, PlotOptions{Title: fmt.Sprintf("%s Fig. %d: %s", paper, f.Figure, c.Baseline),
					X: x, Metric: c.Metric, LogX: x == "epsilon"})
			}
		},
	}
}
