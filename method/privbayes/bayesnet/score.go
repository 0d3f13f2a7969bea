package bayesnet

import (
	"fmt"
	"math"
)

// Score names the function GreedyBayes maximises.
type Score string

const (
	// R is the TODS paper's score R(X, Π) = ½‖Pr[X,Π] − Pr[X]·Pr[Π]‖₁,
	// the L1 distance of the joint from independence (default).
	R Score = "r"
	// MI is the mutual information I(X; Π) in bits (the SIGMOD paper's
	// first-cut score).
	MI Score = "mi"
)

func (s Score) validate() error {
	if s != R && s != MI {
		return fmt.Errorf("privbayes: unknown score %q (want r or mi)", string(s))
	}
	return nil
}

// splitChild views a marginal over (X, Π...) as a |dom X| × |dom Π| table
// of probabilities p[x][π], with the marginals px and pπ.
func splitChild(m Marginal) (joint [][]float64, px, pp []float64) {
	nx := m.Cards[0]
	np := len(m.Counts) / nx
	total := 0.0
	for _, v := range m.Counts {
		total += v
	}
	joint = make([][]float64, nx)
	px = make([]float64, nx)
	pp = make([]float64, np)
	for x := range nx {
		joint[x] = make([]float64, np)
		for p := range np {
			v := 0.0
			if total > 0 {
				v = m.Counts[x*np+p] / total
			}
			joint[x][p] = v
			px[x] += v
			pp[p] += v
		}
	}
	return joint, px, pp
}

// ScoreOf evaluates s on a marginal whose first attribute is the child X
// and whose other attributes form the parent set Π.
func ScoreOf(s Score, m Marginal) float64 {
	joint, px, pp := splitChild(m)
	sum := 0.0
	for x, row := range joint {
		for p, v := range row {
			switch s {
			case MI:
				if v > 0 {
					sum += v * math.Log2(v/(px[x]*pp[p]))
				}
			default:
				sum += math.Abs(v - px[x]*pp[p])
			}
		}
	}
	if s == MI {
		return sum
	}
	return sum / 2
}

// RSensitivity bounds how much R(X, Π) moves when one of n records is
// replaced: the joint moves by at most 2/n in L1; each marginal also moves
// by at most 2/n, so the product moves by at most
// ‖(p′−p)⊗q′‖₁ + ‖p⊗(q′−q)‖₁ ≤ 4/n; halving the sum gives 3/n.
func RSensitivity(n float64) float64 { return 3 / n }

// MISensitivity is the sensitivity of I(X; Π) in bits over n records under
// replacement of one record (PrivBayes, SIGMOD 2014, the lemma on the
// sensitivity of mutual information): when X or Π is binary
// (1/n)·log2 n + ((n−1)/n)·log2(n/(n−1)), otherwise
// (2/n)·log2((n+1)/2) + ((n−1)/n)·log2((n+1)/(n−1)). Our tests check both
// against exhaustive enumeration on small n.
func MISensitivity(n float64, binary bool) float64 {
	if binary {
		return math.Log2(n)/n + (n-1)/n*math.Log2(n/(n-1))
	}
	return 2/n*math.Log2((n+1)/2) + (n-1)/n*math.Log2((n+1)/(n-1))
}

// sensitivity is the score's sensitivity for one candidate (X, Π) over n
// records.
func (s Score) sensitivity(n float64, childCard, parentDomain int) float64 {
	if s == MI {
		return MISensitivity(n, childCard == 2 || parentDomain == 2)
	}
	return RSensitivity(n)
}
