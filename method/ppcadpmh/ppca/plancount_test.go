package ppca_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/method/ppcadpmh"
	"github.com/dppub/dppub/method/ppcadpmh/ppca"
	"github.com/dppub/dppub/method/ppcadpmh/roles"
	"github.com/dppub/dppub/randx"
)

// TestRunCalibratesOnePlan checks that a one-process PPCA-DP-MH run
// calibrates its noise plan once, whatever the number of owners m: the
// session agrees its parameters once and carries the plan to every
// owner, the curator and the report. Before, each of them rebuilt it
// (3m+5 plans: 14 for m = 3 with local noise). Not parallel: the counter
// is the process's.
func TestRunCalibratesOnePlan(t *testing.T) {
	adult, err := datasets.Load("adult")
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]int, 2000)
	for i := range rows {
		rows[i] = i
	}
	adult = adult.Subset(rows)
	for _, noise := range []roles.NoiseMode{roles.Local, roles.SecureAggregate} {
		for _, m := range []int{1, 3, 5} {
			t.Run(fmt.Sprintf("%s/m=%d", noise, m), func(t *testing.T) {
				owners, err := data.SplitHorizontal(adult, m, nil, randx.NewSeeded(1))
				if err != nil {
					t.Fatal(err)
				}
				before := ppca.PlansBuilt()
				_, err = ppcadpmh.Publish(context.Background(), ppcadpmh.Options{Owners: owners, Source: randx.NewSeeded(2),
					Settings: ppcadpmh.Settings{Epsilon: 1, Noise: noise}})
				if err != nil {
					t.Fatal(err)
				}
				if got := ppca.PlansBuilt() - before; got != 1 {
					t.Errorf("%d owners: the run calibrated %d noise plans, want 1", m, got)
				}
			})
		}
	}
}
