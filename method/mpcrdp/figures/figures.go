// Package figures reproduces MP-CRDP's §6 (Figs. 3 to 6 and Table 1) as
// `dppub eval mp-crdp`.
package figures

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/eval"
	"github.com/dppub/dppub/learn"
	mpcrdpspec "github.com/dppub/dppub/method/mpcrdp"
	"github.com/dppub/dppub/method/mpcrdp/correlation"
	mpcrdp "github.com/dppub/dppub/method/mpcrdp/crdp"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// Options configure the MP-CRDP experiments (paper §6): Figs. 3 and
// 4 (LR and SVM accuracy vs ε), Fig. 5 (count-query MAE vs ε), Fig. 6
// (correlation and K vs the number of features) and Table 1 (non-private
// WDBC accuracy per party and merged).
type Options struct {
	// Figures to compute together (3, 4, 5 share their feature
	// selections); Table 1 when Table is 1.
	Figures []int
	Table   int
	Reps    int // default 5
	// Epsilons overrides the ε grid; Datasets restricts to adult / wdbc;
	// AdultRows is the Adult sample (default 10000).
	Epsilons  []float64
	Datasets  []string
	AdultRows int
	// Queries is the number of random count queries (default 10000).
	Queries  int
	Source   *randx.Source
	Progress func(done, total int)
}

// MPCRDPEpsilons is the default ε grid (the paper does not list its own).
var MPCRDPEpsilons = []float64{0.1, 0.5, 1, 2, 5, 10, 20, 50}

// MP-CRDP settings of the paper's §6.2 (method names in the CSV).
const (
	MPCRDPNonPrivateFS = "non-private-FS"
	MPCRDPNonPrivate   = "non-private"
	MPCRDPPrivateGS    = "private-GS"
	MPCRDPPrivateCS    = "private-CS"
	MPCRDPPrivateCSp   = "private-CSp"
	// MPCRDPPrivateStandard is not in the paper: sound calibration,
	// record-level DP, the only line that is standard ε-DP end to end.
	MPCRDPPrivateStandard = "private-standard"
)

// MPCRDPTable1Paper are the paper's Table 1 accuracies (SVM, LR).
var MPCRDPTable1Paper = map[string][2]float64{
	"merged": {0.9789, 0.9854}, "party-1": {0.9649, 0.9736},
	"party-2": {0.9404, 0.9543}, "party-3": {0.9263, 0.9291},
}

// defaults fills the zero options; a figure or table the paper does not
// have, or fewer than one repetition, is a UsageError.
func (o *Options) defaults() error {
	if err := eval.Repetitions(&o.Reps, 5, &o.Source); err != nil {
		return err
	}
	if o.Epsilons == nil {
		o.Epsilons = MPCRDPEpsilons
	}
	if o.Datasets == nil {
		o.Datasets = []string{"adult", "wdbc"}
	}
	if o.AdultRows == 0 {
		o.AdultRows = mpcrdpspec.DefaultAdultRows
	}
	if o.Queries == 0 {
		o.Queries = mpcrdp.DefaultQueries
	}
	for _, f := range o.Figures {
		if f < 3 || f > 6 {
			return eval.Usagef("mp-crdp figures: no figure %d (the paper's are 3, 4, 5 and 6)", f)
		}
	}
	if o.Table != 0 && o.Table != 1 {
		return eval.Usagef("mp-crdp figures: no table %d (the paper's is 1)", o.Table)
	}
	return nil
}

// Run computes the requested figures (and Table 1).
func Run(ctx context.Context, o Options) ([]eval.Row, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	r := &mpcrdpRunner{o: o, acc: eval.NewAccumulator(), Counter: eval.Counter{Progress: o.Progress}}
	want := func(f int) bool { return slices.Contains(o.Figures, f) }
	trade := want(3) || want(4) || want(5)
	if trade {
		r.Total += len(o.Datasets) * 2 * o.Reps * (1 + len(o.Epsilons))
	}
	if want(6) {
		r.Total += len(o.Datasets) * o.Reps
	}
	if o.Table == 1 {
		r.Total += o.Reps
	}
	for _, ds := range o.Datasets {
		if trade {
			if err := r.tradeOff(ctx, ds); err != nil {
				return nil, err
			}
		}
		if want(6) {
			if err := r.figure6(ds); err != nil {
				return nil, err
			}
		}
	}
	if o.Table == 1 {
		if err := r.table1(); err != nil {
			return nil, err
		}
	}
	return r.rows(), nil
}

type mpcrdpRunner struct {
	o   Options
	acc *eval.Accumulator
	eval.Counter
}

func (r *mpcrdpRunner) add(key eval.Row, v float64) { r.acc.Add(key, v) }

func (r *mpcrdpRunner) rows() []eval.Row { return r.acc.Rows() }

// mpcrdpSplit is one repetition's data: a train/test split and the
// parties' vertical split of the training rows.
type mpcrdpSplit struct {
	d           *mpcrdpspec.Dataset
	train, test *data.Table
	parties     []mpcrdp.PartyFeatures
	analyses    []mpcrdp.PartyAnalysis
}

func (r *mpcrdpRunner) split(ds string, src *randx.Source) (*mpcrdpSplit, error) {
	d, err := mpcrdpspec.LoadDataset(ds, r.o.AdultRows, src)
	if err != nil {
		return nil, err
	}
	train, test, err := data.TrainTestSplit(d.Table, 0.8, src)
	if err != nil {
		return nil, err
	}
	sp := &mpcrdpSplit{d: d, train: train, test: test}
	tables, err := mpcrdpspec.SplitFeatures(train, d.Features, d.Label, 3)
	if err != nil {
		return nil, err
	}
	for k, t := range tables {
		pf := mpcrdp.PartyFeatures{Name: mpcrdpspec.PartyName(k + 1)}
		for _, f := range t.Schema.Names() {
			if f != d.Label {
				pf.Features = append(pf.Features, f)
			}
		}
		a, _, err := mpcrdp.LocalAnalysis(pf.Name, t, pf.Features, mpcrdp.DefaultInitialThreshold, 0)
		if err != nil {
			return nil, err
		}
		sp.parties, sp.analyses = append(sp.parties, pf), append(sp.analyses, a)
	}
	return sp, nil
}

// pipeline runs MP-FS and MP-OP on the training rows (no release: the
// experiment releases under every notion from the same selection).
func (sp *mpcrdpSplit) pipeline(cal mpcrdp.Calibration, u mpcrdp.Utility, eps float64, queries int, src *randx.Source) (*mpcrdp.Pipeline, error) {
	p, err := mpcrdp.NewPipeline(mpcrdp.PipelineOptions{Table: sp.train, Label: sp.d.Label, Parties: sp.parties,
		Analyses: sp.analyses, Source: src, Config: mpcrdp.Config{Epsilon: eps, Calibration: cal, Utility: u,
			B: sp.d.B, Release: mpcrdp.NoRelease, NumQueries: queries}})
	if err != nil {
		return nil, err
	}
	return p, p.RunAll(func(mpcrdp.Step) error { return nil })
}

// accuracy scores a released model on the test rows.
func (sp *mpcrdpSplit) accuracy(out *mpcrdp.Output) (float64, error) {
	X, _, err := out.Encoder.Encode(sp.test)
	if err != nil {
		return 0, err
	}
	y, err := mpcrdpLabels(sp.test, sp.d.Label)
	if err != nil {
		return 0, err
	}
	n, _ := X.Dims()
	pred := make([]int, n)
	for i := range n {
		x := X.RawRowView(i)
		for j := range x {
			x[j] /= out.Scale
		}
		if out.Model.Score(x) > 0 {
			pred[i] = 1
		}
	}
	return learn.Accuracy(pred, y), nil
}

func mpcrdpLabels(t *data.Table, label string) ([]int, error) {
	col, err := t.Column(label)
	if err != nil {
		return nil, err
	}
	y := make([]int, len(col))
	for i, v := range col {
		y[i] = int(v)
	}
	return y, nil
}

var mpcrdpNotionMethod = map[mpcrdp.Notion]string{
	mpcrdp.Group: MPCRDPPrivateGS, mpcrdp.Correlated: MPCRDPPrivateCS, mpcrdp.MPCRDP: MPCRDPPrivateCSp,
}

// tradeOff runs Figs. 3–5 for one dataset: per repetition and utility the
// non-private lines, then per ε one paper-calibrated selection released
// under group, correlated and mp-crdp sensitivity, and one sound selection
// released under standard DP.
func (r *mpcrdpRunner) tradeOff(ctx context.Context, ds string) error {
	want := func(f int) bool { return slices.Contains(r.o.Figures, f) }
	for rep := 0; rep < r.o.Reps; rep++ {
		src := r.o.Source.Child()
		sp, err := r.split(ds, src)
		if err != nil {
			return err
		}
		for _, u := range []mpcrdp.Utility{mpcrdp.U1, mpcrdp.U2} {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := r.nonPrivate(sp, ds, u, src); err != nil {
				return err
			}
			r.Step()
			for _, eps := range r.o.Epsilons {
				key := eval.Row{Dataset: ds, Task: string(u), Epsilon: eps}
				paper, err := sp.pipeline(mpcrdp.Paper, u, eps, r.o.Queries, src.Child())
				if err != nil {
					return err
				}
				relEps := mpcrdp.Config{Epsilon: eps, Calibration: mpcrdp.Paper}.Split(3).Release
				for _, n := range []mpcrdp.Notion{mpcrdp.Group, mpcrdp.Correlated, mpcrdp.MPCRDP} {
					if err := r.releases(sp, paper, key, mpcrdpNotionMethod[n], "paper", n, relEps, src); err != nil {
						return err
					}
				}
				sound, err := sp.pipeline(mpcrdp.Sound, u, eps, r.o.Queries, src.Child())
				if err != nil {
					return err
				}
				relEps = mpcrdp.Config{Epsilon: eps, Calibration: mpcrdp.Sound}.Split(3).Release
				if err := r.releases(sp, sound, key, MPCRDPPrivateStandard, "sound", mpcrdp.Standard, relEps, src); err != nil {
					return err
				}
				if want(5) {
					out, err := paper.ReleaseAs(mpcrdp.Queries, mpcrdp.Standard, relEps, src)
					if err != nil {
						return err
					}
					r.add(eval.Row{Experiment: "mp-crdp-fig5", Dataset: ds, Task: string(u), Method: MPCRDPPrivateStandard,
						Calibration: "paper", Epsilon: eps, Metric: "mae"}, out.MAE)
				}
				r.Step()
			}
		}
	}
	return nil
}

// releases adds one setting's accuracies (Figs. 3, 4) and MAE (Fig. 5).
func (r *mpcrdpRunner) releases(sp *mpcrdpSplit, p *mpcrdp.Pipeline, key eval.Row, method, cal string, n mpcrdp.Notion, eps float64, src *randx.Source) error {
	want := func(f int) bool { return slices.Contains(r.o.Figures, f) }
	key.Method, key.Calibration = method, cal
	for fig, kind := range map[int]mpcrdp.Release{3: mpcrdp.LogReg, 4: mpcrdp.SVM} {
		if !want(fig) {
			continue
		}
		out, err := p.ReleaseAs(kind, n, eps, src)
		if err != nil {
			return fmt.Errorf("mp-crdp figures: %s %s %s ε=%g: %w", key.Dataset, method, kind, eps, err)
		}
		acc, err := sp.accuracy(out)
		if err != nil {
			return err
		}
		k := key
		k.Experiment, k.Metric = fmt.Sprintf("mp-crdp-fig%d", fig), "accuracy"
		r.add(k, acc)
	}
	if want(5) && method != MPCRDPPrivateStandard {
		out, err := p.ReleaseAs(mpcrdp.Queries, n, eps, src)
		if err != nil {
			return err
		}
		k := key
		k.Experiment, k.Metric = "mp-crdp-fig5", "mae"
		r.add(k, out.MAE)
		k.Metric = "mae_sound_composed" // the same factor with the whole set's composition
		r.add(k, out.MAE*float64(len(out.Queries)))
	}
	return nil
}

// nonPrivate adds the non-private lines: every feature, and the features
// of a noiseless MP-FS/MP-OP.
func (r *mpcrdpRunner) nonPrivate(sp *mpcrdpSplit, ds string, u mpcrdp.Utility, src *randx.Source) error {
	want := func(f int) bool { return slices.Contains(r.o.Figures, f) }
	fs, err := sp.pipeline(mpcrdp.None, u, 1, r.o.Queries, src.Child())
	if err != nil {
		return err
	}
	for fig, kind := range map[int]mpcrdp.Release{3: mpcrdp.LogReg, 4: mpcrdp.SVM} {
		if !want(fig) {
			continue
		}
		exp := fmt.Sprintf("mp-crdp-fig%d", fig)
		out, err := fs.ReleaseAs(kind, mpcrdp.Standard, 0, src)
		if err != nil {
			return err
		}
		acc, err := sp.accuracy(out)
		if err != nil {
			return err
		}
		r.add(eval.Row{Experiment: exp, Dataset: ds, Task: string(u), Method: MPCRDPNonPrivateFS, Metric: "accuracy"}, acc)
		all, err := mpcrdpExactAccuracy(sp.train, sp.test, sp.d.Features, sp.d.Label, kind, false, src)
		if err != nil {
			return err
		}
		r.add(eval.Row{Experiment: exp, Dataset: ds, Task: string(u), Method: MPCRDPNonPrivate, Metric: "accuracy"}, all)
	}
	return nil
}

// mpcrdpExactAccuracy trains a non-private LR or SVM on the features of
// train (box-encoded into [0,1] and, for the SVM, scaled onto the unit
// ball; or z-scored with the training rows' statistics) and returns its
// test accuracy (the training accuracy when test is nil).
func mpcrdpExactAccuracy(train, test *data.Table, features []string, label string, kind mpcrdp.Release, standardize bool, src *randx.Source) (float64, error) {
	enc, X, err := mpcrdp.EncodeFeatures(train, features)
	if err != nil {
		return 0, err
	}
	y, err := mpcrdpLabels(train, label)
	if err != nil {
		return 0, err
	}
	if test == nil {
		test = train
	}
	Xte, _, err := enc.Encode(test)
	if err != nil {
		return 0, err
	}
	yte, err := mpcrdpLabels(test, label)
	if err != nil {
		return 0, err
	}
	mpcrdpScale(X, Xte, standardize, kind == mpcrdp.SVM)
	var clf *learn.Classifier
	if kind == mpcrdp.SVM {
		clf, err = learn.TrainSVM(X, y, 2, learn.DefaultSVMOptions(), src)
	} else {
		clf, err = learn.TrainLogReg(X, y, 2, learn.DefaultLogRegOptions())
	}
	if err != nil {
		return 0, err
	}
	return learn.Accuracy(clf.PredictAll(Xte), yte), nil
}

// mpcrdpScale z-scores both matrices with X's column statistics, or for
// the box encoding divides the SVM's rows by √d so that ‖x‖ ≤ 1 as the
// private SVM's are.
func mpcrdpScale(X, Xte *mat.Dense, standardize, svm bool) {
	n, d := X.Dims()
	if !standardize {
		if svm {
			X.Scale(1/math.Sqrt(float64(d)), X)
			Xte.Scale(1/math.Sqrt(float64(d)), Xte)
		}
		return
	}
	for j := range d {
		col := mat.Col(nil, j, X)
		m, s := eval.MeanStd(col)
		s *= math.Sqrt(float64(n-1) / float64(n))
		if !(s > 1e-12) {
			s = 1
		}
		for _, M := range []*mat.Dense{X, Xte} {
			r, _ := M.Dims()
			for i := range r {
				M.Set(i, j, (M.At(i, j)-m)/s)
			}
		}
	}
}

// figure6 measures ΔGS, ΔCS (w0 = 0.9) and ΔCS_p (w0 = MCD of the three
// parties) and their K on the first N features, N = 1..l (file order).
func (r *mpcrdpRunner) figure6(ds string) error {
	for rep := 0; rep < r.o.Reps; rep++ {
		src := r.o.Source.Child()
		d, err := mpcrdpspec.LoadDataset(ds, r.o.AdultRows, src)
		if err != nil {
			return err
		}
		codes, err := correlation.Discretize(d.Table, d.Features, correlation.DiscretizeOptions{})
		if err != nil {
			return err
		}
		mcd, err := mpcrdpMCD(codes, d.Features, 3)
		if err != nil {
			return err
		}
		r.add(eval.Row{Experiment: "mp-crdp-fig6", Dataset: ds, Method: "MCD", K: len(d.Features), Metric: "mcd"}, mcd)
		for n := 1; n <= len(d.Features); n++ {
			sub, err := codes.Select(d.Features[:n]...)
			if err != nil {
				return err
			}
			at0, err := correlation.Analyze(sub, correlation.Options{Threshold: mpcrdp.DefaultInitialThreshold})
			if err != nil {
				return err
			}
			atP, err := correlation.Analyze(sub, correlation.Options{Threshold: mcd})
			if err != nil {
				return err
			}
			key := eval.Row{Experiment: "mp-crdp-fig6", Dataset: ds, K: n}
			for _, v := range []struct {
				method, metric string
				value          float64
			}{
				{"ΔGS", "correlation", float64(at0.GroupSensitivity)},
				{"ΔCS", "correlation", at0.Sensitivity},
				{"ΔCS_p", "correlation", atP.Sensitivity},
				{"ΔGS", "k_correlated", float64(at0.GroupSensitivity)},
				{"ΔCS", "k_correlated", float64(at0.K)},
				{"ΔCS_p", "k_correlated", float64(atP.K)},
				{"w0=0.9", "records_with_partner", float64(at0.Correlated)},
				{"w0=MCD", "records_with_partner", float64(atP.Correlated)},
				{"w0=0.9", "mean_degree", at0.MeanDegree},
			} {
				k := key
				k.Method, k.Metric = v.method, v.metric
				r.add(k, v.value)
			}
		}
		r.Step()
	}
	return nil
}

// mpcrdpMCD is Eq. 10 over consecutive groups of features (the parties).
func mpcrdpMCD(codes *correlation.Codes, features []string, parties int) (float64, error) {
	var rs []*correlation.Result
	for k := range parties {
		sub, err := codes.Select(features[k*len(features)/parties : (k+1)*len(features)/parties]...)
		if err != nil {
			return 0, err
		}
		res, err := correlation.Analyze(sub, correlation.Options{Threshold: mpcrdp.DefaultInitialThreshold})
		if err != nil {
			return 0, err
		}
		rs = append(rs, res)
	}
	return correlation.MCD(rs)
}

// table1 is the paper's Table 1: non-private SVM and LR on WDBC, merged and
// per party (10 features each), test accuracy on a random 20% and training
// accuracy, with z-scored features and with the box encoding.
func (r *mpcrdpRunner) table1() error {
	d, err := mpcrdpspec.LoadDataset("wdbc", 0, r.o.Source)
	if err != nil {
		return err
	}
	groups := map[string][]string{"merged": d.Features}
	for k := range 3 {
		groups[fmt.Sprintf("party-%d", k+1)] = d.Features[10*k : 10*k+10]
	}
	names := []string{"merged", "party-1", "party-2", "party-3"}
	for _, g := range names {
		p := MPCRDPTable1Paper[g]
		r.add(eval.Row{Experiment: "mp-crdp-table1", Dataset: "wdbc", Task: g, Method: "svm", Calibration: "paper", Metric: "accuracy"}, p[0])
		r.add(eval.Row{Experiment: "mp-crdp-table1", Dataset: "wdbc", Task: g, Method: "lr", Calibration: "paper", Metric: "accuracy"}, p[1])
	}
	for rep := 0; rep < r.o.Reps; rep++ {
		src := r.o.Source.Child()
		train, test, err := data.TrainTestSplit(d.Table, 0.8, src)
		if err != nil {
			return err
		}
		for _, g := range names {
			for _, kind := range []mpcrdp.Release{mpcrdp.SVM, mpcrdp.LogReg} {
				for _, std := range []bool{true, false} {
					scaling := "box"
					if std {
						scaling = "standardize"
					}
					method := map[mpcrdp.Release]string{mpcrdp.SVM: "svm", mpcrdp.LogReg: "lr"}[kind]
					key := eval.Row{Experiment: "mp-crdp-table1", Dataset: "wdbc", Task: g, Method: method, Calibration: "measured", Noise: scaling}
					acc, err := mpcrdpExactAccuracy(train, test, groups[g], d.Label, kind, std, src)
					if err != nil {
						return err
					}
					key.Metric = "test_accuracy"
					r.add(key, acc)
					tr, err := mpcrdpExactAccuracy(train, nil, groups[g], d.Label, kind, std, src)
					if err != nil {
						return err
					}
					key.Metric = "train_accuracy"
					r.add(key, tr)
				}
			}
		}
		r.Step()
	}
	return nil
}

// Plots lists the panels of a figure.
func Plots(figure int) []eval.PlotOptions {
	switch figure {
	case 3:
		return []eval.PlotOptions{{Title: "MP-CRDP Fig. 3 (LR)", X: "epsilon", Metric: "accuracy", LogX: true}}
	case 4:
		return []eval.PlotOptions{{Title: "MP-CRDP Fig. 4 (SVM)", X: "epsilon", Metric: "accuracy", LogX: true}}
	case 5:
		return []eval.PlotOptions{{Title: "MP-CRDP Fig. 5 (query MAE)", X: "epsilon", Metric: "mae", LogX: true}}
	case 6:
		t := "MP-CRDP Fig. 6 (x: number of features N)"
		return []eval.PlotOptions{{Title: t, X: "k", Metric: "correlation"}, {Title: t, X: "k", Metric: "k_correlated"},
			{Title: t, X: "k", Metric: "records_with_partner"}}
	}
	return nil
}

// PlotRows selects a figure's rows for plotting; the non-private rows,
// which have no ε, are repeated at every ε of the figure so that they draw
// as flat lines.
func PlotRows(rows []eval.Row, figure int) []eval.Row {
	exp := fmt.Sprintf("mp-crdp-fig%d", figure)
	var out, flat []eval.Row
	eps := map[float64]bool{}
	for _, r := range rows {
		if r.Experiment != exp {
			continue
		}
		if r.Method == MPCRDPNonPrivate || r.Method == MPCRDPNonPrivateFS {
			flat = append(flat, r)
			continue
		}
		out = append(out, r)
		if r.Epsilon > 0 {
			eps[r.Epsilon] = true
		}
	}
	for _, r := range flat {
		for e := range eps {
			c := r
			c.Epsilon = e
			out = append(out, c)
		}
	}
	return out
}
