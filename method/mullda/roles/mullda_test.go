package roles

import (
	"math"
	"strings"
	"testing"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/ledger"
	"github.com/dppub/dppub/method/mullda/lda"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// Three owners, correlated noise, a ledger: with a large ε the direction is
// the non-private Fisher direction, every party stays within budget, and the
// ledger verifies with one entry per expected event.
func TestEndToEndWithLedger(t *testing.T) {
	X, y := twoClassData(3000, 5, 1)
	pr := testParams(3, 5, 500, lda.Sound, lda.Correlated)
	log, handles, ring, pub := memLedgers(t, append(ownerNames(3), "publisher"))
	s := newSession(t, pr, X, y, handles, 2)
	if err := s.run(); err != nil {
		t.Fatal(err)
	}
	res, err := s.publisher.Result()
	if err != nil {
		t.Fatal(err)
	}
	exact, _ := lda.ComputeStats(X, y, 2)
	e, _ := lda.NewEstimate(exact)
	w, _ := e.Fisher(lda.SolveOptions{})
	if cos := mat.Dot(mat.NewVecDense(5, w), res.Directions.ColView(0)); cos < 0.999 {
		t.Fatalf("cos(DP direction, exact Fisher) = %v at ε = 500", cos)
	}
	if r, c := res.Projections.Dims(); math.Abs(float64(r)-3000) > 5 || c != 1 || len(res.Labels) != r {
		t.Fatalf("published %d×%d projections with %d labels, want ≈3000×1", r, c, len(res.Labels))
	}
	for _, o := range s.owners {
		if sp := o.o.Accountant.Spent(); math.Abs(sp.Epsilon-500) > 1e-9 || math.Abs(sp.Delta-1e-3) > 1e-15 {
			t.Fatalf("%s spent %v", o.ID(), sp)
		}
	}
	cp, err := log.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	v, _ := pub.Member().NoteVerifier()
	rep, err := ledger.Verify(log, ring, cp, v)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]uint64{ledger.KindBudgetSpent: 3, ledger.KindStatisticsSubmitted: 6,
		KindMeansComputed: 1, ledger.KindDirectionComputed: 1, ledger.KindArtifactPublished: 1}
	for k, n := range want {
		if rep.ByKind[k] != n {
			t.Fatalf("ledger has %d %s entries, want %d (all: %v)", rep.ByKind[k], k, n, rep.ByKind)
		}
	}
	last, _ := log.Entry(log.Len() - 1)
	if !strings.Contains(string(last.Payload), res.ArtifactSHA256) || res.ArtifactSHA256 != ArtifactDigest(res.Projections, res.Labels) {
		t.Fatal("the artifact entry does not carry the digest of the published projections")
	}
}

// The correlated-noise scheme, measured on the messages themselves (owners
// holding all-zero rows, so a message is pure noise):
//   - each owner's class-sum message alone is N(0, σ²);
//   - the aggregate Σ messages + ḡ_0 is N(0, σ²), the centralised level;
//   - given everything else the publisher sees, one owner's noise has
//     variance ViewFactor(M)²·σ² (residual of the best linear predictor).
//
// K = 20000 pooled draws per check (2500 runs × 8 class-sum entries; the
// entries of one run are independent across coordinates). Variance checks
// are two-sided at z = 5 on s²/σ² (sd √(2/K) = 1%); the tail check compares
// the fraction beyond 1.96σ with 5% at z = 5 (sd 0.15%). Each check falsely
// rejects with probability < 6e-7; the 12 checks together < 1e-5.
func TestCorrelatedNoiseLevels(t *testing.T) {
	const runs, p = 2500, 4
	src := randx.NewSeeded(42)
	for _, m := range []int{2, 5, 10} {
		pr := testParams(m, p, 1, lda.Sound, lda.Correlated)
		plan, _ := lda.NewPlan(pr.Plan)
		sigma := plan.SumSigma
		var single, aggregate, residual []float64
		for r := 0; r < runs; r++ {
			msgs, share0 := zeroDataRound(t, pr, src.Uint64())
			for j := range share0 {
				agg := share0[j]
				for _, msg := range msgs {
					agg += msg[j]
				}
				single = append(single, msgs[0][j])
				aggregate = append(aggregate, agg)
				residual = append(residual, viewResidual(m, msgs, share0[j], j, sigma))
			}
		}
		r := lda.ViewFactor(m)
		checkNormal(t, m, "one owner's message", single, sigma)
		checkNormal(t, m, "aggregate", aggregate, sigma)
		checkNormal(t, m, "owner 1 given the publisher's view", residual, r*sigma)
		t.Logf("M=%d: σ=%.4g; sd of a message %.4g, of the aggregate %.4g, of the view residual %.4g (r·σ = %.4g)",
			m, sigma, stat.StdDev(single, nil), stat.StdDev(aggregate, nil), stat.StdDev(residual, nil), r*sigma)
	}
}

// zeroDataRound runs rounds 1–2 with owners holding one zero row of each
// class and returns each owner's class-sum message and the publisher's share.
func zeroDataRound(t *testing.T, pr Params, seed uint64) ([][]float64, []float64) {
	t.Helper()
	src := randx.NewSeeded(seed)
	X := mat.NewDense(2, pr.Plan.P, nil)
	owners := map[string]*Owner{}
	for _, id := range pr.Owners {
		acct, _ := privacy.NewAccountant(privacy.AccountantOptions{Party: id, Budget: dp.Approx(pr.Plan.Epsilon, pr.Plan.Delta)})
		o, err := NewOwner(OwnerOptions{ID: id, Params: pr, Data: X, Labels: []int{0, 1}, Accountant: acct, Source: src.Child()})
		if err != nil {
			t.Fatal(err)
		}
		owners[id] = o
	}
	d, err := NewNoiseDealer(DealerOptions{Params: pr, Source: src.Child()})
	if err != nil {
		t.Fatal(err)
	}
	shares, err := d.Start()
	if err != nil {
		t.Fatal(err)
	}
	var share0 []float64
	byOwner := map[string][]float64{}
	for _, e := range shares {
		if e.To == pr.Publisher {
			var s Shares
			if err := s.UnmarshalBinary(e.Payload); err != nil {
				t.Fatal(err)
			}
			plan, _ := lda.NewPlan(pr.Plan)
			sb, err := plan.SumsNoise()
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range s.Sums {
				share0 = append(share0, float64(v)*sb.Plan.Grid)
			}
			continue
		}
		out, err := owners[e.To].Handle(e)
		if err != nil || len(out) != 1 {
			t.Fatalf("owner %s: %v (%d messages)", e.To, err, len(out))
		}
		var m Sums
		if err := m.UnmarshalBinary(out[0].Payload); err != nil {
			t.Fatal(err)
		}
		byOwner[e.To] = m.Sums
	}
	msgs := make([][]float64, 0, len(pr.Owners))
	for _, id := range pr.Owners {
		msgs = append(msgs, byOwner[id])
	}
	return msgs, share0
}

// viewResidual returns S − Ŝ for entry j, where S = Σ messages + ḡ_0 is the
// sum of all own noise and Ŝ its best linear predictor from what the
// publisher sees besides owner 1's message: U = ḡ_0 and T = Σ_{m≥2} n_m.
// S − Ŝ equals n_1 − E[n_1 | rest] since n_1 = S − U − T.
func viewResidual(m int, msgs [][]float64, share0 float64, j int, sigma float64) float64 {
	fm, k := float64(m), float64(m-1)
	s2 := sigma * sigma
	tau2, v := s2/fm, (fm-1)/fm*s2
	c := -v / fm
	varU, varT, covUT, covST := v, k*(tau2+v)+k*(k-1)*c, k*c, k*tau2
	det := varU*varT - covUT*covUT
	a, b := -covUT*covST/det, varU*covST/det // [a b] = [0 covST]·Σ⁻¹
	T := 0.0
	for _, msg := range msgs[1:] {
		T += msg[j]
	}
	S := share0 + msgs[0][j] + T
	return S - a*share0 - b*T
}

func checkNormal(t *testing.T, m int, what string, x []float64, sigma float64) {
	t.Helper()
	k := float64(len(x))
	mean, v := 0.0, 0.0
	for _, e := range x {
		mean += e
	}
	mean /= k
	tail := 0.0
	for _, e := range x {
		v += (e - mean) * (e - mean)
		if math.Abs(e) > 1.96*sigma {
			tail++
		}
	}
	v /= k - 1
	if ratio := v / (sigma * sigma); math.Abs(ratio-1) > 5*math.Sqrt(2/k) {
		t.Errorf("M=%d %s: variance %.4g = %.4f·σ², want σ² = %.4g", m, what, v, ratio, sigma*sigma)
	}
	if f := tail / k; math.Abs(f-0.05) > 5*math.Sqrt(0.05*0.95/k) {
		t.Errorf("M=%d %s: %.4f of the draws beyond 1.96σ, want 0.05 for a Gaussian", m, what, f)
	}
}
