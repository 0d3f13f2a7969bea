// The grey-box audit's test: a χ² test of homogeneity between D and D' on
// merged categories, a score test with the release-level covariance, and
// the total variation it detects.

package audit

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// homogeneity tests whether the feature categories of the observations
// that are not atoms (cats laid out as in GreyBox) have the same
// distribution on D and D', at coordinate j or pooled over all
// coordinates (j = -1).
func homogeneity(cats []uint8, labels []string, runs, dim, j, minCount int) FeatureTest {
	k := len(labels)
	t := FeatureTest{Coordinate: j}
	from, to := 0, dim
	if j >= 0 {
		from, to = j, j+1
	}
	count := [2][]int{make([]int, k), make([]int, k)}
	var seen [2]int
	for s := range 2 {
		for r := range runs {
			base := (s*runs + r) * dim
			for _, c := range cats[base+from : base+to] {
				if c != atom {
					count[s][c]++
					seen[s]++
				}
			}
		}
	}
	total := make([]int, k)
	for c := range k {
		total[c] = count[0][c] + count[1][c]
		var p [2]float64
		for s := range p {
			if seen[s] > 0 {
				p[s] = float64(count[s][c]) / float64(seen[s])
			}
		}
		t.TV += math.Abs(p[0]-p[1]) / 2
		if total[c] > 0 {
			t.Table = append(t.Table, FeatureFreq{Category: labels[c], D: p[0], DPrime: p[1]})
		}
	}
	sort.SliceStable(t.Table, func(a, b int) bool {
		return t.Table[a].D+t.Table[a].DPrime > t.Table[b].D+t.Table[b].DPrime
	})
	group, groups := mergeSparse(total, minCount)
	t.Groups = groups
	t.PValue = 1
	if groups < 2 || seen[0] == 0 || seen[1] == 0 {
		return t
	}
	t.Statistic, t.DF = scoreTest(cats, count, group, groups, runs, dim, from, to)
	if t.DF > 0 {
		t.PValue = distuv.ChiSquared{K: float64(t.DF)}.Survival(t.Statistic)
	}
	return t
}

// mergeSparse maps the categories to groups: every category with at least
// minCount observations is a group; the others form one more group, itself
// merged into the largest if it is still sparse. Only the pooled counts
// decide, never the side labels.
func mergeSparse(total []int, minCount int) (group []int, groups int) {
	group = make([]int, len(total))
	largest, rest, restCount := -1, -1, 0
	for c, n := range total {
		if n >= minCount {
			group[c] = groups
			if largest < 0 || n > total[largest] {
				largest = c
			}
			groups++
		}
	}
	for c, n := range total {
		if n >= minCount || n == 0 {
			continue
		}
		if rest < 0 {
			rest = groups
			groups++
		}
		group[c] = rest
		restCount += n
	}
	if rest >= 0 && restCount < minCount && largest >= 0 {
		for c, n := range total {
			if n > 0 && n < minCount {
				group[c] = group[largest]
			}
		}
		groups--
	}
	return group, groups
}

// scoreTest compares the two sides' distributions of the groups among the
// observations that are not atoms, each release one observation: with y_r
// the release's group counts, m_r its number of observations and p̂ the
// pooled group shares, z_r = y_r − p̂·m_r has mean zero on both sides
// under H0 (equal conditional distributions, whatever the share of
// atoms), and T = dᵀ Σ⁺ d / (2/n), d the difference of the sides' mean z
// and Σ the covariance of z over all releases, is asymptotically χ² with
// rank(Σ) degrees of freedom. With one coordinate and no atoms it is
// Pearson's χ² times (N−1)/N; with several, coordinates of a release may
// be dependent.
func scoreTest(cats []uint8, count [2][]int, group []int, groups, runs, dim, from, to int) (float64, int) {
	y := groupCounts(count, group, groups)
	mSum := [2]float64{}
	share := make([]float64, groups)
	for s := range y {
		for _, v := range y[s] {
			mSum[s] += v
		}
	}
	for g := range share {
		share[g] = (y[0][g] + y[1][g]) / (mSum[0] + mSum[1])
	}
	n := float64(runs)
	d := make([]float64, groups)
	for g := range d {
		d[g] = (y[0][g]-share[g]*mSum[0])/n - (y[1][g]-share[g]*mSum[1])/n
	}
	var sm scoreMoments
	if to-from == 1 {
		sm = oneCoordinateMoments(y, mSum)
	} else {
		sm = releaseMoments(cats, group, groups, runs, dim, from, to)
	}
	cov := mat.NewSymDense(groups, nil)
	for a := range groups {
		for b := a; b < groups; b++ {
			v := sm.yy.At(a, b) - share[a]*sm.my[b] - sm.my[a]*share[b] + sm.mm*share[a]*share[b]
			cov.SetSym(a, b, v/(2*n-1))
		}
	}
	stat, df, ok := pseudoInverseForm(cov, d)
	if !ok {
		return 0, 0
	}
	return stat / (2 / n), df
}

// groupCounts returns each side's count of observations per group.
func groupCounts(count [2][]int, group []int, groups int) [2][]float64 {
	var y [2][]float64
	for s := range y {
		y[s] = make([]float64, groups)
		for c, n := range count[s] {
			if n > 0 {
				y[s][group[c]] += float64(n)
			}
		}
	}
	return y
}

// scoreMoments are the sums over all releases r, both sides, that the
// covariance of z_r = y_r − p̂·m_r is made of:
// Σ_r z zᵀ = Σ y yᵀ − p̂ (Σ m y)ᵀ − (Σ m y) p̂ᵀ + (Σ m²) p̂ p̂ᵀ.
type scoreMoments struct {
	yy *mat.SymDense // Σ y yᵀ
	my []float64     // Σ m y
	mm float64       // Σ m²
}

// oneCoordinateMoments are the moments when a release has one
// coordinate: y is one-hot or zero, so Σ y yᵀ = diag(Σ y), Σ m y = Σ y
// and Σ m² = Σ m, all read off the group counts y.
func oneCoordinateMoments(y [2][]float64, mSum [2]float64) scoreMoments {
	groups := len(y[0])
	sm := scoreMoments{yy: mat.NewSymDense(groups, nil), my: make([]float64, groups)}
	for g := range groups {
		sm.yy.SetSym(g, g, y[0][g]+y[1][g])
		sm.my[g] = y[0][g] + y[1][g]
	}
	sm.mm = mSum[0] + mSum[1]
	return sm
}

// releaseMoments sums the moments release by release over coordinates
// [from, to) of each release's dim categories in cats.
func releaseMoments(cats []uint8, group []int, groups, runs, dim, from, to int) scoreMoments {
	sm := scoreMoments{yy: mat.NewSymDense(groups, nil), my: make([]float64, groups)}
	yr := make([]float64, groups)
	for s := range 2 {
		for r := range runs {
			clear(yr)
			m := 0.0
			base := (s*runs + r) * dim
			for _, c := range cats[base+from : base+to] {
				if c != atom {
					yr[group[c]]++
					m++
				}
			}
			sm.mm += m * m
			for a := range groups {
				if yr[a] == 0 {
					continue
				}
				sm.my[a] += m * yr[a]
				for b := a; b < groups; b++ {
					sm.yy.SetSym(a, b, sm.yy.At(a, b)+yr[a]*yr[b])
				}
			}
		}
	}
	return sm
}

// pseudoInverseForm returns dᵀ Σ⁺ d over the eigenvalues of cov above
// 1e-10 of the largest, and how many there are (the rank); false when
// the eigendecomposition fails.
func pseudoInverseForm(cov *mat.SymDense, d []float64) (float64, int, bool) {
	var eig mat.EigenSym
	if !eig.Factorize(cov, true) {
		return 0, 0, false
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	top := 0.0
	for _, v := range vals {
		top = math.Max(top, v)
	}
	stat, df := 0.0, 0
	for i, v := range vals {
		if v <= 1e-10*top {
			continue
		}
		proj := 0.0
		for a := range d {
			proj += vecs.At(a, i) * d[a]
		}
		stat += proj * proj / v
		df++
	}
	return stat, df, true
}

// detectableTV is the smallest TV τ such that a χ² test with df degrees of
// freedom at level alpha detects it with probability power, by the bound
// λ ≥ 2nτ² on the noncentrality of two samples of n (Cauchy–Schwarz).
func detectableTV(n, df int, alpha, power float64) float64 {
	if df < 1 {
		df = 1
	}
	crit := distuv.ChiSquared{K: float64(df)}.Quantile(1 - alpha)
	lo, hi := 0.0, 1.0
	for noncentralSurvival(crit, df, hi) < power {
		hi *= 2
	}
	for range 60 {
		mid := (lo + hi) / 2
		if noncentralSurvival(crit, df, mid) < power {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Min(1, math.Sqrt(hi/(2*float64(n))))
}

// noncentralSurvival is P(X > x) for X noncentral χ² with df degrees of
// freedom and noncentrality lambda: a Poisson(λ/2) mixture of central χ².
func noncentralSurvival(x float64, df int, lambda float64) float64 {
	half := lambda / 2
	sum := 0.0
	for j := 0; j < int(half+20*math.Sqrt(half)+30); j++ {
		w := math.Exp(-half + float64(j)*math.Log(half) - lgamma(float64(j)+1))
		if half == 0 {
			w = 0
			if j == 0 {
				w = 1
			}
		}
		sum += w * distuv.ChiSquared{K: float64(df + 2*j)}.Survival(x)
	}
	return sum
}

func lgamma(x float64) float64 {
	v, _ := math.Lgamma(x)
	return v
}
