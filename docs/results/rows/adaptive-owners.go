//go:build ignore

// adaptive-owners.go measures synthesize-rows with the paper method and
// with the adaptive method (3 owners, default noise mode) against one
// curator running synthesize --method adaptive, on the same data at the
// same ε (δ default: 1/n², at most 1e-5): mean 2-way TVD over every pair
// (categories and 16 equal-width bins, utility.PairTVD), wall time. Run
// from the repository root:
//
//	go run docs/results/rows/adaptive-owners.go [-reps 3] [-datasets adult,nltcs,shuttle]
//
// It prints one line per run and a Markdown table of mean ± standard
// error per dataset and setting.
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"log"
	"math"
	"strings"
	"time"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/eval"
	"github.com/dppub/dppub/method"
	_ "github.com/dppub/dppub/method/registry"
	"github.com/dppub/dppub/method/rowsynth"
	"github.com/dppub/dppub/method/rowsynth/roles"
	"github.com/dppub/dppub/method/synthesize"
	"github.com/dppub/dppub/randx"
	"github.com/dppub/dppub/utility"
)

// flags are the command line's settings.
type flags struct {
	reps, owners          int
	eps                   float64
	names, ks, only, mode string
}

// parseFlags reads the command line.
func parseFlags() flags {
	reps := flag.Int("reps", 3, "repetitions (seeds) per setting")
	names := flag.String("datasets", "adult,nltcs,shuttle", "built-in or shared datasets")
	eps := flag.Float64("epsilon", 1, "each owner's ε (δ default)")
	owners := flag.Int("owners", 3, "owners of rows")
	ks := flag.String("candidates", "0", "comma-separated select_candidates of the adaptive owners (0: the default, roles.DefaultSelectCandidates)")
	only := flag.String("settings", "", "comma-separated settings to run (default all)")
	mode := flag.String("noise", "", "the owners' noise mode (default insider-safe)")
	flag.Parse()
	return flags{reps: *reps, owners: *owners, eps: *eps, names: *names, ks: *ks, only: *only, mode: *mode}
}

// want reports whether setting s is to run (-settings).
func (f flags) want(s string) bool {
	return f.only == "" || strings.Contains(","+f.only+",", ","+s+",")
}

// cell is one row of the table: a dataset and a setting.
type cell struct{ ds, setting string }

// tally holds every cell's measurements, the cells in the order first run.
type tally struct {
	results, three, times map[cell][]float64
	order                 []cell
}

func main() {
	f := parseFlags()
	t := &tally{results: map[cell][]float64{}, three: map[cell][]float64{}, times: map[cell][]float64{}}
	for _, ds := range strings.Split(f.names, ",") {
		tab, err := datasets.Load(ds)
		if err != nil {
			log.Fatal(err)
		}
		triples := utility.SampleTriples(len(tab.Schema.Attributes), 200, randx.NewSeeded(20261125).Shuffle)
		for rep := 1; rep <= f.reps; rep++ {
			r := trial{f: f, t: t, ds: ds, rep: rep, tab: tab, triples: triples}
			if f.want("curator") {
				r.runCurator()
			}
			r.runOwners()
		}
	}
	t.print(f.reps)
}

// trial is one repetition (seed) of every setting on one dataset.
type trial struct {
	f       flags
	t       *tally
	ds      string
	rep     int
	tab     *data.Table // the real rows
	triples [][]int     // the attribute triples of the 3-way TVD
}

// add scores a setting's synthetic table syn, made in took, against the
// real rows, tallies and logs it.
func (r trial) add(setting string, syn *data.Table, took time.Duration) {
	f, t, ds, rep, tab, triples := r.f, r.t, r.ds, r.rep, r.tab, r.triples
	two, err := utility.PairTVD(tab, syn, 16)
	if err != nil {
		log.Fatal(err)
	}
	tri, err := utility.SetsTVD(tab, syn, triples, 16)
	if err != nil {
		log.Fatal(err)
	}
	c := cell{ds, setting}
	if t.results[c] == nil {
		t.order = append(t.order, c)
	}
	t.results[c] = append(t.results[c], two)
	t.three[c] = append(t.three[c], tri)
	t.times[c] = append(t.times[c], took.Seconds())
	log.Printf("%s ε=%g rep %d %-28s 2-way %.4f 3-way %.4f %v", ds, f.eps, rep, setting, two, tri, took.Round(time.Millisecond))
}

// runCurator runs one curator's synthesize --method adaptive.
func (r trial) runCurator() {
	f, tab, rep := r.f, r.tab, r.rep
	start := time.Now()
	res, err := synthesize.Publish(context.Background(), synthesize.Options{Table: tab, Epsilon: f.eps, Method: marginal.MethodAdaptive, Source: randx.NewSeeded(uint64(rep))})
	if err != nil {
		log.Fatal(err)
	}
	r.add("one curator, adaptive", res.Synthetic, time.Since(start))
}

// conf is one setting of the owners' engine.
type conf struct {
	name string
	es   method.EngineSettings
	k    int
}

// ownerConfs are the owners' settings: the paper method, and the adaptive
// method at each -candidates.
func ownerConfs(f flags) []conf {
	confs := []conf{{name: "owners, paper", es: method.EngineSettings{Method: marginal.MethodPaper}}}
	for _, k := range strings.Split(f.ks, ",") {
		var n int
		fmt.Sscan(k, &n)
		confs = append(confs, conf{name: fmt.Sprintf("owners, adaptive (C ≤ %d)", cmp.Or(n, roles.DefaultSelectCandidates)), es: method.EngineSettings{Method: marginal.MethodAdaptive}, k: n})
	}
	return confs
}

// runOwners runs synthesize-rows over the real rows split among the
// owners, once per wanted setting.
func (r trial) runOwners() {
	f, tab, rep := r.f, r.tab, r.rep
	for _, c := range ownerConfs(f) {
		if !f.want(strings.Fields(c.name)[1]) && !f.want(c.name) {
			continue
		}
		src := randx.NewSeeded(uint64(100 + rep))
		parts, err := data.SplitHorizontal(tab, f.owners, nil, src)
		if err != nil {
			log.Fatal(err)
		}
		lo := method.OwnersLocal(parts, src)
		start := time.Now()
		st := &rowsynth.Settings{Epsilon: f.eps, EngineSettings: c.es, SelectCandidates: c.k, Noise: rowsynth.NoiseMode(f.mode)}
		run, err := method.RunLocal(context.Background(), rowsynth.Spec, st, lo)
		if err != nil {
			log.Fatal(err)
		}
		name := fmt.Sprintf("%d %s", f.owners, c.name)
		if f.mode != "" {
			name += ", " + f.mode
		}
		r.add(name, run.Outcome.Table, time.Since(start))
	}
}

// print writes the Markdown table of mean ± standard error per cell.
func (t *tally) print(reps int) {
	fmt.Printf("| data | setting | 2-way TVD (mean ± s.e., %d seeds) | 3-way TVD (200 triples) | wall s (mean) |\n|---|---|---|---|---|\n", reps)
	for _, c := range t.order {
		m, se := meanSE(t.results[c])
		m3, se3 := meanSE(t.three[c])
		tm, _ := meanSE(t.times[c])
		fmt.Printf("| %s | %s | %.4f ± %.4f | %.4f ± %.4f | %.1f |\n", c.ds, c.setting, m, se, m3, se3, tm)
	}
}

// meanSE is the mean of v and its standard error.
func meanSE(v []float64) (float64, float64) {
	m, sd := eval.MeanStd(v)
	return m, sd / math.Sqrt(float64(len(v)))
}
