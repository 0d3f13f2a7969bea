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

func main() {
	reps := flag.Int("reps", 3, "repetitions (seeds) per setting")
	names := flag.String("datasets", "adult,nltcs,shuttle", "built-in or shared datasets")
	eps := flag.Float64("epsilon", 1, "each owner's ε (δ default)")
	owners := flag.Int("owners", 3, "owners of rows")
	ks := flag.String("candidates", "0", "comma-separated select_candidates of the adaptive owners (0: the default, roles.DefaultSelectCandidates)")
	only := flag.String("settings", "", "comma-separated settings to run (default all)")
	mode := flag.String("noise", "", "the owners' noise mode (default insider-safe)")
	flag.Parse()
	type cell struct{ ds, setting string }
	results := map[cell][]float64{}
	three := map[cell][]float64{}
	times := map[cell][]float64{}
	var order []cell
	want := func(s string) bool { return *only == "" || strings.Contains(","+*only+",", ","+s+",") }
	for _, ds := range strings.Split(*names, ",") {
		tab, err := datasets.Load(ds)
		if err != nil {
			log.Fatal(err)
		}
		triples := utility.SampleTriples(len(tab.Schema.Attributes), 200, randx.NewSeeded(20261125).Shuffle)
		for rep := 1; rep <= *reps; rep++ {
			add := func(setting string, syn *data.Table, took time.Duration) {
				two, err := utility.PairTVD(tab, syn, 16)
				if err != nil {
					log.Fatal(err)
				}
				tri, err := utility.SetsTVD(tab, syn, triples, 16)
				if err != nil {
					log.Fatal(err)
				}
				c := cell{ds, setting}
				if results[c] == nil {
					order = append(order, c)
				}
				results[c] = append(results[c], two)
				three[c] = append(three[c], tri)
				times[c] = append(times[c], took.Seconds())
				log.Printf("%s ε=%g rep %d %-28s 2-way %.4f 3-way %.4f %v", ds, *eps, rep, setting, two, tri, took.Round(time.Millisecond))
			}
			if want("curator") {
				start := time.Now()
				res, err := synthesize.Publish(context.Background(), synthesize.Options{Table: tab, Epsilon: *eps, Method: marginal.MethodAdaptive, Source: randx.NewSeeded(uint64(rep))})
				if err != nil {
					log.Fatal(err)
				}
				add("one curator, adaptive", res.Synthetic, time.Since(start))
			}
			type conf struct {
				name string
				es   method.EngineSettings
				k    int
			}
			confs := []conf{{name: "owners, paper", es: method.EngineSettings{Method: marginal.MethodPaper}}}
			for _, k := range strings.Split(*ks, ",") {
				var n int
				fmt.Sscan(k, &n)
				confs = append(confs, conf{name: fmt.Sprintf("owners, adaptive (C ≤ %d)", cmp.Or(n, roles.DefaultSelectCandidates)), es: method.EngineSettings{Method: marginal.MethodAdaptive}, k: n})
			}
			for _, c := range confs {
				if !want(strings.Fields(c.name)[1]) && !want(c.name) {
					continue
				}
				src := randx.NewSeeded(uint64(100 + rep))
				parts, err := data.SplitHorizontal(tab, *owners, nil, src)
				if err != nil {
					log.Fatal(err)
				}
				lo := method.OwnersLocal(parts, src)
				start := time.Now()
				st := &rowsynth.Settings{Epsilon: *eps, EngineSettings: c.es, SelectCandidates: c.k, Noise: rowsynth.NoiseMode(*mode)}
				run, err := method.RunLocal(context.Background(), rowsynth.Spec, st, lo)
				if err != nil {
					log.Fatal(err)
				}
				name := fmt.Sprintf("%d %s", *owners, c.name)
				if *mode != "" {
					name += ", " + *mode
				}
				add(name, run.Outcome.Table, time.Since(start))
			}
		}
	}
	fmt.Printf("| data | setting | 2-way TVD (mean ± s.e., %d seeds) | 3-way TVD (200 triples) | wall s (mean) |\n|---|---|---|---|---|\n", *reps)
	for _, c := range order {
		m, se := meanSE(results[c])
		m3, se3 := meanSE(three[c])
		t, _ := meanSE(times[c])
		fmt.Printf("| %s | %s | %.4f ± %.4f | %.4f ± %.4f | %.1f |\n", c.ds, c.setting, m, se, m3, se3, t)
	}
}

// meanSE is the mean of v and its standard error.
func meanSE(v []float64) (float64, float64) {
	m, sd := eval.MeanStd(v)
	return m, sd / math.Sqrt(float64(len(v)))
}
