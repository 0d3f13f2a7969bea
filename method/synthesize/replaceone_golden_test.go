package synthesize

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"runtime"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/randx"
)

// replaceOneDigests are the SHA-256 digests of the synthetic CSV of a
// seeded run on the first 3000 rows of Adult at ρ = 0.1, computed with the
// code before --neighbours existed (commit 075fe56): the default relation
// must leave every replace-one output byte-identical, named or left
// unset. The digests are amd64's (another architecture may fuse
// floating-point operations differently).
var replaceOneDigests = map[marginal.Method]string{
	marginal.MethodPaper:    "78f5f52b067f1b0d23352b92306f1a2a2adb8016ba5d0aa17ccc3dc4cb4c99f3",
	marginal.MethodAdaptive: "62edb59f7269260cb7c8569544b8e06d313d0c2f8e5b6f0d3c6328419751391d",
}

func TestReplaceOneOutputsUnchanged(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skipf("digests computed on amd64, not %s", runtime.GOARCH)
	}
	tab, err := datasets.Load("adult")
	if err != nil {
		t.Skipf("adult not available: %v", err)
	}
	rows := make([]int, 3000)
	for i := range rows {
		rows[i] = i
	}
	tab = tab.Subset(rows)
	for _, c := range []struct {
		m  marginal.Method
		nb dp.Neighbours
	}{
		{marginal.MethodPaper, ""}, {marginal.MethodPaper, dp.NeighboursReplaceOne},
		{marginal.MethodAdaptive, ""}, {marginal.MethodAdaptive, dp.NeighboursReplaceOne},
	} {
		m := c.m
		t.Run(fmt.Sprintf("%s/%q", m, c.nb), func(t *testing.T) {
			res, err := Publish(context.Background(), Options{Table: tab, Rho: 0.1, Method: m, Rounds: 5, AdaptiveRounds: 20, Neighbours: c.nb, Source: randx.NewSeeded(7)})
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := data.WriteCSV(&b, res.Synthetic); err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprintf("%x", sha256.Sum256(b.Bytes()))
			if got != replaceOneDigests[m] {
				t.Errorf("%s: synthetic CSV digest %s, want %s (the code before --neighbours)", m, got, replaceOneDigests[m])
			}
		})
	}
}
