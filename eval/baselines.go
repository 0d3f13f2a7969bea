package eval

import (
	"context"
	"fmt"
	"github.com/dppub/dppub/method/dpsubn3"
	dpsubn3spec "github.com/dppub/dppub/method/dpsubn3"
	mulldaspec "github.com/dppub/dppub/method/mullda"
	ppcaspec "github.com/dppub/dppub/method/ppcadpmh"
	bnspec "github.com/dppub/dppub/method/privbayes"
	"slices"
	"strings"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/randx"
)

// The baselines the papers compare against.
const (
	MethodPrivBayes = bnspec.Name      // Zhang et al., SIGMOD 2014 / TODS 2017
	MethodDPSUBN3   = dpsubn3spec.Name // Cheng et al., TKDE 2020 (our reconstruction)
)

// BaselineOptions configure a sweep of one baseline over tasks, budgets
// and numbers of owners.
type BaselineOptions struct {
	Method string
	// Experiment names the rows (e.g. "ppca-dp-mh-fig3"), so they join the
	// curves of the method they are compared with.
	Experiment string
	Tasks      []Task
	Epsilons   []float64
	Parties    []int // DP-SUBN3's owners (PrivBayes: ignored, always 1)
	Reps       int   // default 5
	Source     *randx.Source
	Progress   func(done, total int)
	// Params are the baseline's parameters (their Epsilon and Source are
	// set per point); zero values take the defaults.
	Params   bnspec.BayesNetOptions
	Frontier int // DP-SUBN3's search frontier width (0: all)
}

// BaselineFigure returns the sweep of a paper's figure that compares
// against a baseline: "ppca-dp-mh" Figs. 3 (ε, m = 3) and 4 (m at
// ε = 0.2) against DP-SUBN3, "lda-dp" Fig. 1 (ε, one owner) against
// PrivBayes and Figs. 2 (ε, m = 3) and 3 (m at ε = 0.2) against DP-SUBN3.
// The papers do not print their ε grid; we use the PPCA-DP-MH one,
// {0.05, 0.1, 0.2, 0.4, 0.8, 1.6}, for every ε sweep.
func BaselineFigure(paper string, figure int) (BaselineOptions, error) {
	eps := []float64{0.05, 0.1, 0.2, 0.4, 0.8, 1.6}
	owners := []int{2, 4, 6, 8, 10}
	o := BaselineOptions{Experiment: fmt.Sprintf("%s-fig%d", paper, figure), Method: MethodDPSUBN3}
	switch {
	case paper == ppcaspec.Name && figure == 3:
		o.Tasks, o.Epsilons, o.Parties = []Task{NLTCSMoney, NLTCSOutside, AdultEducation, AdultSalary}, eps, []int{3}
	case paper == ppcaspec.Name && figure == 4:
		o.Tasks, o.Epsilons, o.Parties = []Task{AdultEducation, AdultSalary}, []float64{0.2}, owners
	case paper == mulldaspec.NameSingle && figure == 1:
		o.Method = MethodPrivBayes
		o.Tasks = []Task{NLTCSMoney, NLTCSOutside, NLTCSBathing, NLTCSTraveling, AdultSalary, AdultEducation}
		o.Epsilons, o.Parties = eps, []int{1}
	case paper == mulldaspec.NameSingle && figure == 2:
		o.Tasks, o.Epsilons, o.Parties = []Task{NLTCSMoney, NLTCSOutside, AdultSalary, AdultEducation}, eps, []int{3}
	case paper == mulldaspec.NameSingle && figure == 3:
		o.Tasks, o.Epsilons, o.Parties = []Task{AdultSalary, AdultEducation}, []float64{0.2}, owners
	default:
		return o, fmt.Errorf("eval: no baseline comparison in %s Fig. %d (have ppca-dp-mh 3, 4; lda-dp 1, 2, 3)", paper, figure)
	}
	return o, nil
}

// BaselineAccuracy runs one repetition the way the PPCA-DP-MH experiments
// do: an 80/20 split of the task's dataset, the baseline publishes a
// synthetic table from the 80% (split among parties owners for DP-SUBN3),
// a linear SVM is trained on it and tested on the real 20%.
func BaselineAccuracy(ctx context.Context, method string, task Task, eps float64, parties int, src *randx.Source) (float64, error) {
	accs, err := baselineRep(ctx, BaselineOptions{Method: method}, []Task{task}, eps, parties, src)
	if err != nil {
		return 0, err
	}
	return accs[0], nil
}

// BaselineRows runs the sweep and returns one accuracy row per (task, ε,
// owners); experiments named "lda-dp-*" also get a misclassification row
// (1 − accuracy), the metric of that paper. Within a repetition all tasks
// on one dataset share one split and one synthetic table.
func BaselineRows(ctx context.Context, o BaselineOptions) ([]Row, error) {
	if o.Reps == 0 {
		o.Reps = 5
	}
	if o.Reps < 1 {
		return nil, fmt.Errorf("eval: reps = %d, need at least 1", o.Reps)
	}
	if o.Method != MethodPrivBayes && o.Method != MethodDPSUBN3 {
		return nil, fmt.Errorf("eval: unknown baseline %q (want %s or %s)", o.Method, MethodPrivBayes, MethodDPSUBN3)
	}
	if o.Source == nil {
		o.Source = randx.NewSecure()
	}
	parties := o.Parties
	if o.Method == MethodPrivBayes || len(parties) == 0 {
		parties = []int{1}
	}
	groups := tasksByDataset(o.Tasks)
	total, done := len(groups)*len(o.Epsilons)*len(parties), 0
	var rows []Row
	for _, g := range groups {
		for _, eps := range o.Epsilons {
			for _, m := range parties {
				accs := make([][]float64, len(g))
				for range o.Reps {
					a, err := baselineRep(ctx, o, g, eps, m, o.Source.Child())
					if err != nil {
						return nil, err
					}
					for i := range g {
						accs[i] = append(accs[i], a[i])
					}
				}
				for i, t := range g {
					rows = append(rows, o.rows(t, eps, m, accs[i])...)
				}
				done++
				if o.Progress != nil {
					o.Progress(done, total)
				}
			}
		}
	}
	return rows, nil
}

func (o BaselineOptions) rows(t Task, eps float64, parties int, accs []float64) []Row {
	r := Row{Experiment: o.Experiment, Dataset: t.Dataset, Task: t.Name, Method: o.Method, Calibration: "sound",
		Epsilon: eps, Parties: parties, Reps: len(accs), Metric: "accuracy"}
	r.Mean, r.Std = meanStd(accs)
	out := []Row{r}
	if strings.HasPrefix(o.Experiment, mulldaspec.NameSingle) {
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

// baselineRep splits the tasks' (common) dataset, publishes one synthetic
// table and returns each task's SVM accuracy on the real test rows.
func baselineRep(ctx context.Context, o BaselineOptions, tasks []Task, eps float64, parties int, src *randx.Source) ([]float64, error) {
	train, test, err := split80(tasks[0], src)
	if err != nil {
		return nil, err
	}
	p := o.Params
	p.Epsilon, p.Source = eps, src
	var synth *data.Table
	switch o.Method {
	case MethodPrivBayes:
		res, err := bnspec.Publish(ctx, bnspec.Options{BayesNetOptions: p, Table: train})
		if err != nil {
			return nil, fmt.Errorf("eval: privbayes ε=%v: %w", eps, err)
		}
		synth = res.Synthetic
	case MethodDPSUBN3:
		owners, err := data.SplitHorizontal(train, parties, nil, src)
		if err != nil {
			return nil, err
		}
		res, err := dpsubn3.Publish(ctx, dpsubn3.Options{Owners: owners, Source: p.Source, Settings: dpsubn3.Settings{Settings: p.Settings, Frontier: o.Frontier}})
		if err != nil {
			return nil, fmt.Errorf("eval: dp-subn3 ε=%v m=%d: %w", eps, parties, err)
		}
		synth = res.Synthetic
	default:
		return nil, fmt.Errorf("eval: unknown baseline %q", o.Method)
	}
	accs := make([]float64, len(tasks))
	for i, t := range tasks {
		if t.Dataset != tasks[0].Dataset {
			return nil, fmt.Errorf("eval: tasks %s and %s are on different datasets", tasks[0].Name, t.Name)
		}
		if accs[i], err = SVMAccuracy(t, synth, test, src); err != nil {
			return nil, err
		}
	}
	return accs, nil
}
