package marginal

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// On a wide table the default rounds (DefaultRounds: about 2·d, the
// one-way marginals, MST's tree of pairs and a batch) measure a lower
// mean 2-way TVD than AIM's 16·d, which the default was before the wide
// tables' noise cap (wideRoundNoise): the whole of Musk (167 attributes,
// 6 598 rows, its public bins) at ε = 4, where 16·d rounds are 2 672 and
// 2·d 334; seed 1 measured 0.1801 against 0.1890. On the benchmark's
// training split, three seeds each (wide-vs-mst.md, tags h-ad and
// h-16d), 0.1850 ± 0.0006 against 0.2044 ± 0.0019 (runs' spread 0.001
// and 0.003): the test asks only for lower, which a true improvement of
// that size fails with probability below 10⁻⁷ (normal approximation,
// 5.6 standard deviations of a single pair's difference). Slow (about
// 40 CPU-s).
func TestWideRoundsBeatAIMRounds(t *testing.T) {
	if testing.Short() {
		t.Skip("two adaptive runs on Musk")
	}
	dom, ds := load(t, "musk2")
	rho := rhoAt(t, 4)
	d := dom.Len()
	tvd := map[string]float64{}
	for _, c := range []struct {
		name   string
		rounds int
	}{
		{"default", 0},
		{"AIM's 16·d", 16 * d},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := adaptiveWith(t, dom, ds, rho, AdaptiveOptions{Rounds: c.rounds}, 1)
			if c.rounds == 0 {
				n := len(ds.Cols[0])
				if want := DefaultRounds(d, n, rho, 0.1); want >= 16*d {
					t.Fatalf("DefaultRounds gives %d rounds for %d attributes: the test compares nothing", want, d)
				}
			}
			tvd[c.name] = meanTVD2(t, ds, res.Data)
			t.Logf("%s: mean 2-way TVD %.4f in %d rounds", c.name, tvd[c.name], len(res.Rounds))
		})
	}
	if got, aim := tvd["default"], tvd["AIM's 16·d"]; !(got < aim) {
		t.Errorf("default rounds' 2-way TVD %.4f, AIM's 16·d %.4f: want the default lower", got, aim)
	}
}

// recordingSelector passes selections to a LocalMeasurer and keeps the
// queries it was offered.
type recordingSelector struct {
	*measurement.LocalMeasurer
	queries []measurement.SelectQuery
}

func (r *recordingSelector) Select(ctx context.Context, q measurement.SelectQuery, c measurement.Choice) (int, error) {
	r.queries = append(r.queries, q)
	return r.LocalMeasurer.Select(ctx, q, c)
}

// The spanning tree's selections score each pair with TreePenalty of the
// penalty its measurement is expected to leave where the pairs are mostly
// noise, and without a penalty where they are mostly signal
// (TreePenaltyNoise), under either penalty: on WDBC (31 attributes, so
// the rounds start with the tree; 455 records, pairs of about 245 cells)
// at ε = 1 the median pair's noise per cell is about 27 times its average
// count, at ρ = 10⁴ (σ ≈ 0.04) about 0.02; the first selection offers
// every pair, and each carries the share × Penalty.of(its one-way
// estimate, the round's σ).
func TestTreeScoresWithTreePenalty(t *testing.T) {
	dom, ds := load(t, "wdbc")
	d := dom.Len()
	for _, tc := range []struct {
		name  string
		rho   float64
		share float64
	}{
		{"mostly noise", rhoAt(t, 1), TreePenalty},
		{"mostly signal", 1e4, 0},
	} {
		for _, p := range []Penalty{PenaltyClipped, PenaltyAIM} {
			t.Run(tc.name+"/"+string(p), func(t *testing.T) {
				q, first := firstTreeQuery(t, dom, ds, p, tc.rho)
				if len(q.Candidates) != d*(d-1)/2 || len(first.Attrs) != 2 {
					t.Fatalf("first selection offered %d candidates and picked %v: not the tree's (%d pairs)", len(q.Candidates), first.Attrs, d*(d-1)/2)
				}
				noise, err := measurement.CountNoise(measurement.Gaussian, "", first.Rho)
				if err != nil {
					t.Fatal(err)
				}
				for i, est := range q.Estimates {
					full := p.of(est, noise.Scale)
					if !(full > 0) {
						t.Fatalf("pair %v: full penalty %v, want positive", q.Candidates[i], full)
					}
					if got := q.Penalties[i]; math.Abs(got-tc.share*full) > 1e-9*full {
						t.Fatalf("pair %v offered penalty %v, want %v × %v", q.Candidates[i], got, tc.share, full)
					}
				}
			})
		}
	}
}

// firstTreeQuery runs the adaptive method on ds at rho with penalty p and
// returns the first selection's query and round.
func firstTreeQuery(t *testing.T, dom *domain.Domain, ds *domain.Dataset, p Penalty, rho float64) (measurement.SelectQuery, Round) {
	t.Helper()
	a := zcdpAccountant(t, "owner", rho)
	lm, err := measurement.NewLocalMeasurer(measurement.LocalOptions{Data: ds, Accountants: []*privacy.Accountant{a}, Source: randx.NewSeeded(2)})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recordingSelector{LocalMeasurer: lm}
	res, err := Synthesize(context.Background(), rec, Options{Domain: dom, Records: len(ds.Cols[0]), Method: MethodAdaptive,
		Adaptive: AdaptiveOptions{Penalty: p}, Parties: owner("owner", rho, dom.Len()), Source: randx.NewSeeded(3)})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.queries) == 0 || len(res.Rounds) == 0 {
		t.Fatal("no selection made")
	}
	return rec.queries[0], res.Rounds[0]
}

// pooledSelector is a UtilityReleaser over one owner's records, as the
// owners of rows' protocol is: Utilities releases every candidate's exact
// utility plus Gaussian noise of a score vector's L2 sensitivity 2√C at
// the ρ it charges.
type pooledSelector struct {
	*measurement.LocalMeasurer
	ds      *domain.Dataset
	acct    *privacy.Accountant
	src     *randx.Source
	pooled  []measurement.SelectQuery
	rhos    []float64
	rounds  int
	selects int
}

func (p *pooledSelector) Pools(c, rounds int, rho float64) bool {
	p.rounds = rounds
	return true
}

func (p *pooledSelector) Select(ctx context.Context, q measurement.SelectQuery, c measurement.Choice) (int, error) {
	p.selects++
	return p.LocalMeasurer.Select(ctx, q, c)
}

func (p *pooledSelector) Utilities(_ context.Context, q measurement.SelectQuery, purpose string, rho float64) ([]float64, error) {
	sigma := 2 * math.Sqrt(float64(len(q.Candidates))) / math.Sqrt(2*rho)
	if err := p.acct.Spend(privacy.Charge{Purpose: purpose, Spec: dp.Spec{Mechanism: "gaussian", Norm: "L2", Sensitivity: 2 * math.Sqrt(float64(len(q.Candidates))), Scale: sigma, Guarantee: dp.Concentrated(rho)}, Calibration: "sound"}); err != nil {
		return nil, err
	}
	p.pooled, p.rhos = append(p.pooled, q), append(p.rhos, rho)
	u := make([]float64, len(q.Candidates))
	for i, s := range q.Candidates {
		m, err := domain.Count(p.ds, s)
		if err != nil {
			return nil, err
		}
		e := 0.0
		for x, v := range m.Counts {
			e += math.Abs(v - q.Estimates[i][x])
		}
		u[i] = q.Weights[i] * (e + sigma*p.src.NormFloat64() - q.Penalties[i])
	}
	return u, nil
}

// With a measurer that pools (owners of rows on a table of at most 32
// attributes), the spanning tree comes from one release of every pair's
// utility: on WDBC (31 attributes) at ε = 1, Utilities is asked once,
// for every pair at the tree's d − 1 rounds, at the sum of the selection
// costs the tree's rounds state, no selection is made before the tree
// is done, the tree's d − 1 pairs join every attribute, and the budget
// is spent exactly.
func TestPooledTree(t *testing.T) {
	dom, ds := load(t, "wdbc")
	rho := rhoAt(t, 1)
	d := dom.Len()
	a := zcdpAccountant(t, "owner", rho)
	lm, err := measurement.NewLocalMeasurer(measurement.LocalOptions{Data: ds, Accountants: []*privacy.Accountant{a}, Source: randx.NewSeeded(2)})
	if err != nil {
		t.Fatal(err)
	}
	p := &pooledSelector{LocalMeasurer: lm, ds: ds, acct: a, src: randx.NewSeeded(4)}
	res, err := Synthesize(context.Background(), p, Options{Domain: dom, Records: len(ds.Cols[0]), Method: MethodAdaptive,
		Parties: owner("owner", rho, d), Source: randx.NewSeeded(3)})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.pooled) != 1 || len(p.pooled[0].Candidates) != d*(d-1)/2 || p.rounds != d-1 {
		t.Fatalf("%d pooled releases (first of %v candidates) for %d rounds, want one of %d pairs for %d", len(p.pooled), len(p.pooled[0].Candidates), p.rounds, d*(d-1)/2, d-1)
	}
	if len(res.Rounds) < d-1 {
		t.Fatalf("%d rounds, want the tree's %d first", len(res.Rounds), d-1)
	}
	comp := make([]int, d)
	for j := range comp {
		comp[j] = j
	}
	treeSel := 0.0
	for _, r := range res.Rounds[:d-1] {
		if len(r.Attrs) != 2 || comp[r.Attrs[0]] == comp[r.Attrs[1]] {
			t.Fatalf("tree round %v does not join two components", r.Attrs)
		}
		join(comp, r.Attrs[0], r.Attrs[1])
		treeSel += r.SelectRho
	}
	for j := range comp {
		if comp[j] != comp[0] {
			t.Fatalf("attribute %d is not joined by the tree", j)
		}
	}
	if math.Abs(treeSel-p.rhos[0]) > 1e-12*rho {
		t.Errorf("the tree's rounds state selection costs of %v, the release was charged %v", treeSel, p.rhos[0])
	}
	if got := d - 1 + p.selects; len(res.Rounds) != got {
		t.Errorf("%d rounds after %d tree picks and %d selections", len(res.Rounds), d-1, p.selects)
	}
	if spent := a.Spent().Rho; math.Abs(spent-rho) > 1e-9*rho {
		t.Errorf("spent ρ = %v of %v", spent, rho)
	}
}

// maxPairScore bounds the L1 distance between any pair's counts and the
// product of their one-way marginals, and the bound is nearly attained
// where an attribute's mode holds almost every record: random tables of
// 2–9 × 2–9 cells, a third with a dominant row, and a pair that copies a
// rare binary attribute (distance 4·n·s·(1 − s) against the bound 4·n·s).
func TestMaxPairScoreBoundsTheDistanceFromIndependence(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 7))
	for trial := range 2000 {
		kx, ky := 2+r.IntN(8), 2+r.IntN(8)
		joint := make([]float64, kx*ky)
		for i := range joint {
			joint[i] = math.Floor(100 * r.ExpFloat64())
		}
		if trial%3 == 0 { // a dominant mode of X
			for j := range ky {
				joint[j] *= 50
			}
		}
		x, y := make([]float64, kx), make([]float64, ky)
		n := 0.0
		for i := range kx {
			for j := range ky {
				x[i] += joint[i*ky+j]
				y[j] += joint[i*ky+j]
				n += joint[i*ky+j]
			}
		}
		if n == 0 {
			continue
		}
		dist := 0.0
		for i, e := range outer(x, y, n) {
			dist += math.Abs(joint[i] - e)
		}
		if bound := maxPairScore(modeShare(x), modeShare(y), n); dist > bound*(1+1e-12) {
			t.Fatalf("trial %d: %d×%d table %v is %v from independence, above the bound %v", trial, kx, ky, joint, dist, bound)
		}
	}
	for _, s := range []float64{0.01, 0.1, 0.5} {
		t.Run(fmt.Sprintf("copy of a binary attribute of share %v", s), func(t *testing.T) {
			const n = 1000.0
			joint := []float64{n * (1 - s), 0, 0, n * s}
			m := []float64{n * (1 - s), n * s}
			dist := 0.0
			for i, e := range outer(m, m, n) {
				dist += math.Abs(joint[i] - e)
			}
			bound := maxPairScore(modeShare(m), modeShare(m), n)
			if want := n * min(2, 4*s); math.Abs(bound-want) > 1e-9 {
				t.Errorf("bound %v, want %v", bound, want)
			}
			if dist > bound || dist < (1-s)*bound-1e-9 {
				t.Errorf("distance %v, want between (1 − s)·bound = %v and the bound %v", dist, (1-s)*bound, bound)
			}
		})
	}
	if got := maxPairScore(modeShare([]float64{500, 0, 0}), modeShare([]float64{100, 400}), 500); got != 0 {
		t.Errorf("a constant attribute's pair can reach %v, want 0", got)
	}
}
