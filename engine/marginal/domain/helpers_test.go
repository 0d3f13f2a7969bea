package domain

import (
	"slices"

	"github.com/dppub/dppub/engine/marginal/internal/enginetest"
	"github.com/dppub/dppub/randx"
)

// randomDataset draws n records over sizes; attribute 1 copies attribute 0
// (mod its size) with probability corr, so pairs (0, 1) are dependent.
func randomDataset(sizes []int, n int, corr float64, src *randx.Source) *Dataset {
	return &Dataset{Sizes: slices.Clone(sizes), Cols: enginetest.RandomColumns(sizes, n, corr, src)}
}
