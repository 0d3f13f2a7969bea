package correlation

import (
	"fmt"
	"math"
	"math/bits"
	"runtime"
)

// Method chooses the implementation of Analyze.
type Method string

const (
	// Auto picks Hashed or PatternScan by their estimated cost.
	Auto Method = ""
	// Reference is the O(n²) scan over record pairs (for tests).
	Reference Method = "reference"
	// Hashed buckets distinct patterns on every t-subset of the features.
	Hashed Method = "hashed"
	// PatternScan compares every pair of distinct patterns.
	PatternScan Method = "pattern-scan"
)

// Options configure Analyze.
type Options struct {
	// Threshold is w0 in (0, 1]: pairs with w_ij < w0 count as uncorrelated.
	Threshold float64
	Method    Method
	// Workers is the number of goroutines (default GOMAXPROCS).
	Workers int
}

// Result is the correlation analysis of one dataset at one threshold.
type Result struct {
	N, L      int
	Threshold float64
	// MinAgree is t, the fewest agreeing features with t/l ≥ w0.
	MinAgree int
	// AgreeSum[i] = Σ_j a_ij over the records j correlated with i (i
	// included, a_ii = l), a_ij the number of agreeing features: ΔCS_i =
	// AgreeSum[i]/l. Integers, so every method gives identical results.
	AgreeSum []int64
	// GroupSize[i] = |{j : w_ij ≥ w0}|, i included.
	GroupSize []int32
	// Sensitivity is ΔCS = max_i ΔCS_i; Record is the lowest i attaining it.
	Sensitivity float64
	Record      int
	// K is the number of records correlated with Record (itself included).
	K int
	// MeanDegree is ΔCS/K, the mean correlated degree of Record's group,
	// in [w0, 1].
	MeanDegree float64
	// GroupSensitivity is ΔGS = max_i GroupSize[i] (Group DP).
	GroupSensitivity int
	// Correlated counts records with at least one correlated partner.
	Correlated int
	// Patterns is the number of distinct records (0 for Reference).
	Patterns int
	Method   Method
}

// RecordSensitivity returns ΔCS_i.
func (r *Result) RecordSensitivity(i int) float64 { return float64(r.AgreeSum[i]) / float64(r.L) }

// MinAgree returns t = ⌈w0·l⌉ computed so that t/l ≥ w0 holds in floating
// point exactly as the comparison w_ij ≥ w0 does.
func MinAgree(w0 float64, l int) int {
	t := int(math.Ceil(w0 * float64(l)))
	for t > 0 && float64(t-1)/float64(l) >= w0 {
		t--
	}
	for t <= l && float64(t)/float64(l) < w0 {
		t++
	}
	return max(t, 1)
}

// Analyze computes the correlated sensitivity of c at threshold o.Threshold
// (see the package comment) without materialising the n×n degree matrix.
func Analyze(c *Codes, o Options) (*Result, error) {
	if !(o.Threshold > 0 && o.Threshold <= 1) {
		return nil, fmt.Errorf("correlation: threshold w0 = %v outside (0, 1]", o.Threshold)
	}
	if c == nil || c.n == 0 {
		return nil, fmt.Errorf("correlation: no records")
	}
	if o.Workers == 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Workers < 1 {
		return nil, fmt.Errorf("correlation: %d workers", o.Workers)
	}
	l := c.L()
	t := MinAgree(o.Threshold, l)
	if o.Method == Hashed && l > 64 {
		return nil, fmt.Errorf("correlation: the hashed method handles at most 64 features, have %d", l)
	}
	var sum []int64
	var cnt []int32
	patterns := 0
	method := o.Method
	switch o.Method {
	case Reference:
		sum, cnt = referenceScan(c, t, o.Workers)
	case Hashed, PatternScan, Auto:
		p := collapse(c)
		patterns = len(p.mult)
		if method == Auto {
			method = p.cheaper(t)
		}
		var ps []int64
		var pc []int64
		if method == Hashed {
			ps, pc = p.hashed(t, o.Workers)
		} else {
			ps, pc = p.scan(t, o.Workers)
		}
		sum, cnt = p.expand(ps, pc)
	default:
		return nil, fmt.Errorf("correlation: unknown method %q (want reference, hashed or pattern-scan)", o.Method)
	}
	r := summarise(sum, cnt, l, o.Threshold, t)
	r.Patterns, r.Method = patterns, method
	return r, nil
}

func summarise(sum []int64, cnt []int32, l int, w0 float64, t int) *Result {
	r := &Result{N: len(sum), L: l, Threshold: w0, MinAgree: t, AgreeSum: sum, GroupSize: cnt}
	best := int64(-1)
	for i, s := range sum {
		if s > best {
			best, r.Record = s, i
		}
		if int(cnt[i]) > r.GroupSensitivity {
			r.GroupSensitivity = int(cnt[i])
		}
		if cnt[i] > 1 {
			r.Correlated++
		}
	}
	r.Sensitivity = float64(best) / float64(l)
	r.K = int(cnt[r.Record])
	r.MeanDegree = r.Sensitivity / float64(r.K)
	return r
}

// MCD is the mean of multiparty correlated degree (Eq. 10): the mean over
// the parties' analyses of ΔCS_n/K_n. Each term lies in [w0, 1].
func MCD(parties []*Result) (float64, error) {
	if len(parties) == 0 {
		return 0, fmt.Errorf("correlation: MCD of no parties")
	}
	s := 0.0
	for _, r := range parties {
		s += r.MeanDegree
	}
	return s / float64(len(parties)), nil
}

// binomial returns C(n, k), saturating at MaxInt64.
func binomial(n, k int) int64 {
	if k < 0 || k > n {
		return 0
	}
	k = min(k, n-k)
	r := uint64(1)
	for i := 1; i <= k; i++ {
		hi, lo := bits.Mul64(r, uint64(n-k+i))
		if hi != 0 {
			return math.MaxInt64
		}
		r = lo / uint64(i) // exact: r·(n−k+i) is divisible by i
		if r > math.MaxInt64 {
			return math.MaxInt64
		}
	}
	return int64(r)
}
