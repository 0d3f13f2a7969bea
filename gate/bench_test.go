package gate

import (
	"context"
	"github.com/dppub/dppub/method/synthesize"
	"sync"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/randx"
)

// ownerOfThree is one owner's check in a run of three owners over the
// whole of Adult with the default --gate-holdout-share 0.2: the owner's
// kept rows (the members), its held-out rows, and a synthetic table of
// every owner's kept rows (synthesize at ρ = 1), as `dppub publish
// synthesize-rows --dataset adult --owners 3 --gate` checks it.
var ownerOfThree = sync.OnceValues(func() ([3]*data.Table, error) {
	tab, err := datasets.Load("adult")
	if err != nil {
		return [3]*data.Table{}, err
	}
	perm := randx.NewSeeded(5).Perm(tab.Len())
	owner := len(perm) / 3
	held := owner / 5
	kept := append(append([]int{}, perm[held:owner]...), perm[owner+held:]...)
	res, err := synthesize.Publish(context.Background(), synthesize.Options{Table: tab.Subset(kept), Rho: 1, Source: randx.NewSeeded(6)})
	if err != nil {
		return [3]*data.Table{}, err
	}
	return [3]*data.Table{tab.Subset(perm[held:owner]), tab.Subset(perm[:held]), res.Synthetic}, nil
})

// BenchmarkCheckAdultOwner times one owner's check at full Adult (about
// 13,000 members, 3,250 held out, 39,000 synthetic rows; 1,000 queries a
// side).
func BenchmarkCheckAdultOwner(b *testing.B) {
	ts, err := ownerOfThree()
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Check(Options{Real: ts[0], Holdout: ts[1], Synthetic: ts[2], Source: randx.NewSeeded(uint64(i))}); err != nil {
			b.Fatal(err)
		}
	}
}
