//go:build ignore

// compare.go measures synthesize-rows against the single-curator engine
// (synthesize.Publish) on the same data at the same (ε, δ): mean 1-way and
// 2-way TVD against the pooled data (categories and 16 equal-width bins),
// wall time, protocol messages and bytes. Run from the repository root:
//
//	go run docs/results/rows/compare.go [-reps 2] [-datasets adult,nltcs]
//
// It writes docs/results/rows/results.csv (long form) and summary.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"github.com/dppub/dppub/method/synthesize"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/method"
	_ "github.com/dppub/dppub/method/registry"
	"github.com/dppub/dppub/method/rowsynth"
	"github.com/dppub/dppub/randx"
	"github.com/dppub/dppub/utility"
)

type row struct {
	dataset, setting string
	eps              float64
	rep              int
	metric           string
	value            float64
}

func main() {
	reps := flag.Int("reps", 2, "repetitions (seeds) per setting")
	names := flag.String("datasets", "adult,nltcs", "built-in datasets")
	dir := flag.String("out", "docs/results/rows", "output directory")
	epsList := flag.String("epsilons", "0.3,1,4", "privacy budgets ε (δ = 1e-5)")
	ownersList := flag.String("owners", "3,10", "numbers of owners")
	modes := flag.String("modes", "exact,insider-safe", "noise modes")
	flag.Parse()
	epsilons := parseFloats(*epsList)
	var rows []row
	for _, ds := range strings.Split(*names, ",") {
		tab, err := datasets.Load(ds)
		if err != nil {
			log.Fatal(err)
		}
		triples := utility.SampleTriples(len(tab.Schema.Attributes), 200, randx.NewSeeded(20261125).Shuffle)
		for _, eps := range epsilons {
			for rep := 1; rep <= *reps; rep++ {
				add := func(setting string, syn *data.Table, took time.Duration, msgs, bytes int) {
					_, one, err := utility.MarginalTVD(tab, syn, 16)
					if err != nil {
						log.Fatal(err)
					}
					two, err := utility.PairTVD(tab, syn, 16)
					if err != nil {
						log.Fatal(err)
					}
					three, err := utility.SetsTVD(tab, syn, triples, 16)
					if err != nil {
						log.Fatal(err)
					}
					for _, m := range []struct {
						k string
						v float64
					}{{"tvd1", one}, {"tvd2", two}, {"tvd3", three}, {"seconds", took.Seconds()}, {"messages", float64(msgs)}, {"bytes", float64(bytes)}} {
						rows = append(rows, row{ds, setting, eps, rep, m.k, m.v})
					}
					log.Printf("%s ε=%g rep %d %-24s 1-way %.4f 2-way %.4f 3-way %.4f %v", ds, eps, rep, setting, one, two, three, took.Round(time.Millisecond))
				}
				start := time.Now()
				res, err := synthesize.Publish(context.Background(), synthesize.Options{Table: tab, Epsilon: eps, Delta: 1e-5, Source: randx.NewSeeded(uint64(rep))})
				if err != nil {
					log.Fatal(err)
				}
				add("one curator", res.Synthetic, time.Since(start), 0, 0)
				for _, c := range settings(*ownersList, *modes) {
					src := randx.NewSeeded(uint64(100 + rep))
					parts, err := data.SplitHorizontal(tab, c.owners, nil, src)
					if err != nil {
						log.Fatal(err)
					}
					lo := method.OwnersLocal(parts, src)
					start := time.Now()
					run, err := method.RunLocal(context.Background(), rowsynth.Spec, &rowsynth.Settings{Epsilon: eps, Delta: 1e-5, Noise: c.mode}, lo)
					if err != nil {
						log.Fatal(err)
					}
					bytes := 0
					for _, b := range run.Traffic.Bytes {
						bytes += b
					}
					add(fmt.Sprintf("%d owners, %s", c.owners, c.mode), run.Outcome.Table, time.Since(start), run.Traffic.Messages, bytes)
				}
			}
		}
	}
	if err := write(*dir, rows); err != nil {
		log.Fatal(err)
	}
}

type setting struct {
	owners int
	mode   rowsynth.NoiseMode
}

// settings crosses the owner counts with the noise modes.
func settings(owners, modes string) []setting {
	var out []setting
	for _, k := range parseFloats(owners) {
		for _, m := range strings.Split(modes, ",") {
			out = append(out, setting{int(k), rowsynth.NoiseMode(m)})
		}
	}
	return out
}

func parseFloats(list string) []float64 {
	var out []float64
	for _, f := range strings.Split(list, ",") {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			log.Fatalf("%q is not a number", f)
		}
		out = append(out, v)
	}
	return out
}

func write(dir string, rows []row) error {
	var csv strings.Builder
	csv.WriteString("dataset,epsilon,delta,setting,rep,metric,value\n")
	type key struct {
		ds, setting string
		eps         float64
	}
	mean := map[key]map[string]float64{}
	count := map[key]map[string]int{}
	var keys []key
	for _, r := range rows {
		fmt.Fprintf(&csv, "%s,%g,1e-05,%s,%d,%s,%.6g\n", r.dataset, r.eps, r.setting, r.rep, r.metric, r.value)
		k := key{r.dataset, r.setting, r.eps}
		if mean[k] == nil {
			mean[k], count[k] = map[string]float64{}, map[string]int{}
			keys = append(keys, k)
		}
		mean[k][r.metric] += r.value
		count[k][r.metric]++
	}
	sort.SliceStable(keys, func(a, b int) bool {
		if keys[a].ds != keys[b].ds {
			return keys[a].ds < keys[b].ds
		}
		return keys[a].eps < keys[b].eps
	})
	m := func(k key, metric string) float64 { return mean[k][metric] / float64(count[k][metric]) }
	var md strings.Builder
	md.WriteString("| dataset | ε | setting | 1-way TVD | 2-way TVD | 3-way TVD | 2-way / one curator | 3-way / one curator | time (s) | messages | MB |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, k := range keys {
		central := key{k.ds, "one curator", k.eps}
		fmt.Fprintf(&md, "| %s | %g | %s | %.4f | %.4f | %.4f | %.2f | %.2f | %.2f | %.0f | %.2f |\n", k.ds, k.eps, k.setting,
			m(k, "tvd1"), m(k, "tvd2"), m(k, "tvd3"), m(k, "tvd2")/m(central, "tvd2"), m(k, "tvd3")/m(central, "tvd3"),
			m(k, "seconds"), m(k, "messages"), m(k, "bytes")/1e6)
	}
	if err := os.WriteFile(filepath.Join(dir, "results.csv"), []byte(csv.String()), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "summary.md"), []byte(md.String()), 0o644)
}
