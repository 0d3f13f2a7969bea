// Package domaintest holds what the tests and benchmarks of the marginal
// engine's packages above the domain share: a built-in dataset encoded on
// its default domain, random records with one dependent pair, and a
// ρ-zCDP accountant.
package domaintest

import (
	"slices"
	"testing"

	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/internal/enginetest"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// Load returns the built-in dataset name discretised with default bins,
// or skips the test when it is not available.
func Load(t testing.TB, name string) (*domain.Domain, *domain.Dataset) {
	t.Helper()
	tab, err := datasets.Load(name)
	if err != nil {
		t.Skipf("dataset %s not available: %v", name, err)
	}
	d, err := domain.New(tab.Schema, domain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ds, _, err := d.Encode(tab)
	if err != nil {
		t.Fatal(err)
	}
	return d, ds
}

// Accountant is party's accountant with a ρ-zCDP budget of rho.
func Accountant(t testing.TB, party string, rho float64) *privacy.Accountant {
	t.Helper()
	a, err := privacy.NewAccountant(privacy.AccountantOptions{Party: party, Budget: dp.Concentrated(rho)})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// RandomDataset draws n records over sizes (enginetest.RandomColumns):
// attribute 1 copies attribute 0 (mod its size) with probability corr,
// so pairs (0, 1) are dependent.
func RandomDataset(sizes []int, n int, corr float64, src *randx.Source) *domain.Dataset {
	return &domain.Dataset{Sizes: slices.Clone(sizes), Cols: enginetest.RandomColumns(sizes, n, corr, src)}
}
