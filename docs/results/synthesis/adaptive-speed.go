//go:build ignore

// Command adaptive-speed times synthesize's two engines in one process per
// run and scores their output: for each dataset, budget, method and seed it
// runs synthesize.Publish as `dppub synthesize --dataset D --seed S` does
// and prints one CSV row: the process's CPU seconds for the run (user +
// system, both cores), the engine's own timings, and the mean 2-way TVD
// over every pair and the 3-way TVD over 120 fixed triples against the
// whole real table, numeric columns in 16 equal-width bins over their
// bounds (utility.SetsTVD). Usage (from the module root):
//
//	go run docs/results/synthesis/adaptive-speed.go -datasets adult \
//	    -budgets rho:0.5,rho:0.1,rho:0.02 -methods paper,adaptive -seeds 1,2,3
//
// A binary built at another commit (go build -o BIN this file) gives the
// "before" rows of the same comparison.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/method/synthesize"
	"github.com/dppub/dppub/randx"
	"github.com/dppub/dppub/utility"
)

func main() {
	names := flag.String("datasets", "adult", "comma-separated built-in datasets")
	budgets := flag.String("budgets", "rho:0.5", "comma-separated rho:V or epsilon:V (δ = 1e-5)")
	methods := flag.String("methods", "paper,adaptive", "comma-separated methods")
	seeds := flag.String("seeds", "1,2,3", "comma-separated seeds")
	tag := flag.String("tag", "", "a label for the rows (e.g. the commit)")
	rounds := flag.Int("adaptive-rounds", 0, "the adaptive method's T (0: its default)")
	maxCells := flag.Float64("max-model-cells", 0, "the adaptive method's model cap (0: its default)")
	prof := flag.String("cpuprofile", "", "write a CPU profile of every run to this file")
	flag.Parse()
	if *prof != "" {
		f, err := os.Create(*prof)
		if err != nil {
			fail(err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fail(err)
		}
		defer pprof.StopCPUProfile()
	}
	fmt.Println("tag,dataset,budget,method,seed,rho,cpu_s,wall_s,select_s,fit_s,sample_s,rounds,tvd2,tvd3")
	for _, name := range strings.Split(*names, ",") {
		real, err := datasets.Load(name)
		if err != nil {
			fail(err)
		}
		// The ID column (WDBC's) is not an attribute and is not synthesised.
		real.Schema.ID, real.IDs = "", nil
		triples := utility.SampleTriples(len(real.Schema.Attributes), 120, rand.New(rand.NewPCG(7, 7)).Shuffle)
		for _, b := range strings.Split(*budgets, ",") {
			for _, m := range strings.Split(*methods, ",") {
				for _, s := range strings.Split(*seeds, ",") {
					row, err := runOne(real, b, marginal.Method(m), s, triples, *rounds, *maxCells)
					if err != nil {
						pprof.StopCPUProfile()
						fail(fmt.Errorf("%s %s %s %s: %w", name, b, m, s, err))
					}
					fmt.Printf("%s,%s,%s,%s,%s,%s\n", *tag, name, b, m, s, row)
				}
			}
		}
	}
}

func runOne(real *data.Table, budget string, m marginal.Method, seed string, triples [][]int, rounds int, maxCells float64) (string, error) {
	kind, val, _ := strings.Cut(budget, ":")
	v, err := strconv.ParseFloat(val, 64)
	if err != nil {
		return "", err
	}
	sd, err := strconv.ParseUint(seed, 10, 64)
	if err != nil {
		return "", err
	}
	o := synthesize.Options{Table: real, Method: m, Source: randx.NewSeeded(sd), AdaptiveRounds: rounds, MaxModelCells: maxCells}
	if kind == "epsilon" {
		o.Epsilon, o.Delta = v, 1e-5
	} else {
		o.Rho = v
	}
	cpu0, wall0 := cpu(), time.Now()
	res, err := synthesize.Publish(context.Background(), o)
	if err != nil {
		return "", err
	}
	cpuS, wallS := cpu()-cpu0, time.Since(wall0).Seconds()
	two, err := utility.PairTVD(real, res.Synthetic, 16)
	if err != nil {
		return "", err
	}
	three, err := utility.SetsTVD(real, res.Synthetic, triples, 16)
	if err != nil {
		return "", err
	}
	tm := res.Engine.Timings
	return fmt.Sprintf("%.6g,%.3f,%.3f,%.3f,%.3f,%.3f,%d,%.5f,%.5f", res.Rho, cpuS, wallS, tm.Select.Seconds(),
		tm.PostProcess.Seconds(), tm.GUM.Seconds(), len(res.Engine.Rounds), two, three), nil
}

// cpu is the process's user and system CPU time, in seconds.
func cpu() float64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		fail(err)
	}
	return float64(u.Utime.Nano()+u.Stime.Nano()) / 1e9
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "adaptive-speed:", err)
	os.Exit(1)
}
