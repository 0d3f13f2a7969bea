package marginal

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/internal/enginetest"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// quality is the utility measure on the discretised domain:
// average TVD over all 1-way, all 2-way and 200 random 3-way marginals of
// the synthetic data against the real.
type quality struct {
	one, two, three float64
}

func measureQuality(t testing.TB, real, syn *domain.Dataset, seed uint64) quality {
	t.Helper()
	d := len(real.Sizes)
	avg := func(sets [][]int) float64 {
		s := 0.0
		for _, a := range sets {
			r, err := domain.Count(real, a)
			if err != nil {
				t.Fatal(err)
			}
			y, _ := domain.Count(syn, a)
			s += enginetest.TVD(r.Counts, y.Counts)
		}
		return s / float64(len(sets))
	}
	var ones, twos, threes [][]int
	for a := range d {
		ones = append(ones, []int{a})
		for b := a + 1; b < d; b++ {
			twos = append(twos, []int{a, b})
		}
	}
	src := randx.NewSeeded(seed)
	for range 200 {
		p := src.Perm(d)[:3]
		threes = append(threes, p)
	}
	return quality{avg(ones), avg(twos), avg(threes)}
}

// engineRun synthesises ds at ρ with options o (one owner) and returns
// the result.
func engineRun(t testing.TB, dom *domain.Domain, ds *domain.Dataset, rho float64, o Options, seed uint64) *Result {
	t.Helper()
	a := zcdpAccountant(t, "owner", rho)
	m, err := measurement.NewLocalMeasurer(measurement.LocalOptions{Data: ds, Accountants: []*privacy.Accountant{a}, Source: randx.NewSeeded(seed)})
	if err != nil {
		t.Fatal(err)
	}
	o.Domain, o.Records, o.Source = dom, ds.Len(), randx.NewSeeded(seed+1)
	o.Parties = owner("owner", rho, dom.Len())
	res, err := Synthesize(context.Background(), m, o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func datasetLabel(name string) string {
	for _, i := range datasets.List() {
		if i.Name == name {
			return i.Label
		}
	}
	return ""
}

// TestEngineQualityReport prints the quality of engine configurations
// per dataset and ε (δ = 1e-5). It measures; it asserts nothing, so it
// runs only when DPPUB_ENGINE_REPORT names the configurations, e.g.
// DPPUB_ENGINE_REPORT=paper,adaptive DPPUB_DATASETS=adult DPPUB_EPS=1.
func TestEngineQualityReport(t *testing.T) {
	cfgs := os.Getenv("DPPUB_ENGINE_REPORT")
	if cfgs == "" {
		t.Skip("set DPPUB_ENGINE_REPORT=paper,paper-pgm,adaptive,... to print the engine quality table")
	}
	names := strings.Split(os.Getenv("DPPUB_DATASETS"), ",")
	if names[0] == "" {
		names = []string{"adult"}
	}
	epss := []float64{1}
	if s := os.Getenv("DPPUB_EPS"); s != "" {
		epss = nil
		for _, f := range strings.Split(s, ",") {
			v, _ := strconv.ParseFloat(f, 64)
			epss = append(epss, v)
		}
	}
	reps := 1
	if s := os.Getenv("DPPUB_REPS"); s != "" {
		reps, _ = strconv.Atoi(s)
	}
	for _, name := range names {
		dom, ds := load(t, name)
		for _, eps := range epss {
			rho := rhoAt(t, eps)
			for _, cfg := range strings.Split(cfgs, ",") {
				o := reportConfig(cfg, datasetLabel(name))
				for r := range reps {
					start := time.Now()
					res := engineRun(t, dom, ds, rho, o, uint64(100+r))
					q := measureQuality(t, ds, res.Data, 9)
					fmt.Fprintf(os.Stderr, "%s\teps=%g\trho=%.4f\t%s\trep=%d\t1way=%.4f\t2way=%.4f\t3way=%.4f\trounds=%d\tmeasured=%d\t%.1fs\n",
						name, eps, rho, cfg, r, q.one, q.two, q.three, len(res.Rounds), len(res.Measured), time.Since(start).Seconds())
				}
			}
		}
	}
}

// reportConfig names the configurations the report compares.
func reportConfig(cfg, label string) Options {
	switch {
	case cfg == "paper":
		return Options{OneWayNoise: measurement.Gaussian}
	case cfg == "paper-pgm":
		return Options{OneWayNoise: measurement.Gaussian, Inference: InferencePGM}
	case strings.HasPrefix(cfg, "adaptive"):
		o := Options{Method: MethodAdaptive}
		// adaptive:T=...:cells=...:iters=...
		for _, kv := range strings.Split(cfg, ":")[1:] {
			k, v, _ := strings.Cut(kv, "=")
			f, _ := strconv.ParseFloat(v, 64)
			switch k {
			case "T":
				o.Adaptive.Rounds = int(f)
			case "cells":
				o.Adaptive.MaxCells = f
			case "iters":
				o.Adaptive.Iters = int(f)
			case "final":
				o.Adaptive.FinalIters = int(f)
			case "label":
				o.Adaptive.Label = label
			}
		}
		return o
	}
	panic("unknown configuration " + cfg)
}
