package subn3

import (
	"math"
	"slices"
	"testing"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method/methodtest"
	privbayes "github.com/dppub/dppub/method/privbayes/bayesnet"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// accountant is a fresh accountant of an ε-DP budget.
func accountant(t *testing.T, eps float64) *privacy.Accountant {
	t.Helper()
	return methodtest.Accountant(t, "party", dp.Pure(eps))
}

func nltcsParts(t *testing.T, parts int) []*privbayes.Data {
	t.Helper()
	tab := methodtest.Table(t, "nltcs")
	z, err := privbayes.NewDiscretizer(tab.Schema, privbayes.DiscretizeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []*privbayes.Data
	for p := range parts {
		var rows [][]float64
		for i := p; i < tab.Len(); i += parts {
			rows = append(rows, tab.Rows[i])
		}
		part := *tab
		part.Rows = rows
		d, _, err := z.Discretize(&part)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
	return out
}

// One party has no prior: its turn is centralised PrivBayes, draw for
// draw.
func TestOnePartyIsPrivBayes(t *testing.T) {
	d := nltcsParts(t, 1)[0]
	o := privbayes.Options{Epsilon: 0.4}
	got, err := Update(nil, d, Options{PrivBayes: o}, accountant(t, 0.4), randx.NewSeeded(9))
	if err != nil {
		t.Fatal(err)
	}
	want, err := privbayes.Run(d, o, accountant(t, 0.4), randx.NewSeeded(9))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Net) != len(want.Net) {
		t.Fatalf("networks differ: %v vs %v", got.Net, want.Net)
	}
	for i := range got.Net {
		if got.Net[i].Child != want.Net[i].Child || !slices.Equal(got.Net[i].Parents, want.Net[i].Parents) ||
			!slices.Equal(got.Cond[i], want.Cond[i]) {
			t.Fatalf("family %d differs: %v vs %v", i, got.Net[i], want.Net[i])
		}
	}
}

// A later party spends exactly its ε, scores with the sensitivity of the
// merged W + n_i rows, keeps the prior's root, and returns a valid model.
func TestLaterPartyUsesPrior(t *testing.T) {
	parts := nltcsParts(t, 2)
	first, err := Update(nil, parts[0], Options{PrivBayes: privbayes.Options{Epsilon: 0.8}}, accountant(t, 0.8), randx.NewSeeded(1))
	if err != nil {
		t.Fatal(err)
	}
	acct := accountant(t, 0.8)
	prior := &Prior{Model: first, N: int(parts[0].N)}
	m, err := Update(prior, parts[1], Options{PrivBayes: privbayes.Options{Epsilon: 0.8}, Frontier: 6}, acct, randx.NewSeeded(2))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	if m.Net[0].Child != first.Net[0].Child {
		t.Errorf("root %d, prior's root %d", m.Net[0].Child, first.Net[0].Child)
	}
	if got := acct.Spent().Epsilon; math.Abs(got-0.8) > 1e-12 {
		t.Errorf("spent %v, want 0.8", got)
	}
	n := parts[0].N + parts[1].N
	if got, want := acct.Charges()[0].Spec.Sensitivity, privbayes.RSensitivity(n); math.Abs(got-want) > 1e-15 {
		t.Errorf("structure sensitivity %v, want 3/(W+n_i) = %v", got, want)
	}
	for _, f := range m.Net {
		if len(f.Parents) > 6 {
			t.Errorf("family %v has more parents than the frontier allows", f)
		}
	}
	bad := &Prior{Model: &privbayes.Model{Cards: []int{2}, Net: privbayes.Network{{Child: 0}}, Cond: [][]float64{{0.5, 0.5}}}, N: 10}
	if _, err := Update(bad, parts[1], Options{PrivBayes: privbayes.Options{Epsilon: 0.8}}, accountant(t, 0.8), randx.NewSeeded(3)); err == nil {
		t.Error("a prior over another domain was accepted")
	}
}

// The frontier ranks a copied attribute first.
func TestSearchFrontierRanksDependentFirst(t *testing.T) {
	src := randx.NewSeeded(4)
	rows := make([][]int, 3000)
	for i := range rows {
		a := src.IntN(3)
		rows[i] = []int{src.IntN(2), a, src.IntN(2), a}
	}
	d, err := privbayes.NewData([]int{2, 3, 2, 3}, rows)
	if err != nil {
		t.Fatal(err)
	}
	f := SearchFrontier(d, privbayes.R, 2)
	if f[1][0] != 3 || f[3][0] != 1 || len(f[0]) != 2 {
		t.Errorf("frontier %v: attributes 1 and 3 should rank each other first", f)
	}
}
