package marginal

import (
	"testing"

	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/internal/domaintest"
	"github.com/dppub/dppub/engine/marginal/internal/enginetest"
	"github.com/dppub/dppub/privacy"
)

// owner is one party, name, holding all d attributes at budget ρ = rho.
func owner(name string, rho float64, d int) []Party {
	return []Party{{Name: name, Rho: rho, Attrs: enginetest.AllAttrs(d)}}
}

func zcdpAccountant(t testing.TB, party string, rho float64) *privacy.Accountant {
	t.Helper()
	return domaintest.Accountant(t, party, rho)
}

// rhoAt is the ρ of (ε, δ) = (eps, 1e-5), the benchmark's budgets.
func rhoAt(t testing.TB, eps float64) float64 {
	t.Helper()
	rho, err := RhoFor(eps, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	return rho
}

// adult returns the embedded Adult table discretised with default bins.
func adult(t testing.TB) (*domain.Domain, *domain.Dataset) {
	t.Helper()
	return load(t, "adult")
}

func load(t testing.TB, name string) (*domain.Domain, *domain.Dataset) {
	t.Helper()
	return domaintest.Load(t, name)
}

// meanTVD2 is the mean TVD over all 2-way marginals.
func meanTVD2(t testing.TB, real, syn *domain.Dataset) float64 {
	t.Helper()
	d := len(real.Sizes)
	s, k := 0.0, 0
	for a := range d {
		for b := a + 1; b < d; b++ {
			r, err := domain.Count(real, []int{a, b})
			if err != nil {
				t.Fatal(err)
			}
			y, _ := domain.Count(syn, []int{a, b})
			s += enginetest.TVD(r.Counts, y.Counts)
			k++
		}
	}
	return s / float64(k)
}
