// Package all is the registry of experiments: it lists every method's
// figures (method/<name>/figures) by name, and the baselines their
// comparisons run. Frameworks (the CLI's `dppub eval`) know experiments
// only through it; adding a method's figures is one line here.
package all

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dppub/dppub/eval"
	dppcasvm "github.com/dppub/dppub/method/dppcasvm/figures"
	dpsubn3 "github.com/dppub/dppub/method/dpsubn3/figures"
	mpcrdp "github.com/dppub/dppub/method/mpcrdp/figures"
	mullda "github.com/dppub/dppub/method/mullda/figures"
	pdpmvds "github.com/dppub/dppub/method/pdpmvds/figures"
	ppcadpmh "github.com/dppub/dppub/method/ppcadpmh/figures"
	privbayes "github.com/dppub/dppub/method/privbayes/figures"
)

// Experiments are the experiments `dppub eval` runs, in name order.
func Experiments() []eval.Experiment {
	out := []eval.Experiment{
		eval.BaselinesExperiment(Comparisons()),
		dppcasvm.Experiment(),
		mpcrdp.Experiment(),
		mullda.Experiment(),
		pdpmvds.Experiment(),
		ppcadpmh.Experiment(),
	}
	slices.SortFunc(out, func(a, b eval.Experiment) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Comparisons are the papers' figures that compare against a baseline.
func Comparisons() []eval.Comparison {
	return slices.Concat(ppcadpmh.Comparisons, mullda.Comparisons)
}

// Baselines are the methods other papers' figures compare against.
func Baselines() []eval.Baseline {
	return []eval.Baseline{dpsubn3.Baseline(), ppcadpmh.Baseline(), privbayes.Baseline()}
}

// Baseline returns the baseline named name.
func Baseline(name string) (eval.Baseline, error) {
	var names []string
	for _, b := range Baselines() {
		if b.Name == name {
			return b, nil
		}
		names = append(names, b.Name)
	}
	return eval.Baseline{}, fmt.Errorf("eval: no baseline %q (have %s)", name, strings.Join(names, ", "))
}
