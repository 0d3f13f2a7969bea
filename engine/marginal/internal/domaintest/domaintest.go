// Package domaintest holds what the tests and benchmarks of the marginal
// engine's packages above the domain share: a built-in dataset encoded on
// its default domain, and a ρ-zCDP accountant.
package domaintest

import (
	"testing"

	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/privacy"
)

// Load returns the built-in dataset name discretised with default bins,
// or skips the test when it is not available.
func Load(t testing.TB, name string) (*domain.Domain, *domain.Dataset) {
	t.Helper()
	tab, err := datasets.Load(name)
	if err != nil {
		t.Skipf("dataset %s not available: %v", name, err)
	}
	d, err := domain.NewDomain(tab.Schema, domain.DomainOptions{})
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
