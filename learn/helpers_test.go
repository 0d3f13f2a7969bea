package learn

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/dppub/dppub/internal/testenv"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// blobs draws n points per class around the given centres with unit
// Gaussian noise of standard deviation sd.
func blobs(src *randx.Source, centres [][]float64, n int, sd float64) (*mat.Dense, []int) {
	d := len(centres[0])
	X := mat.NewDense(n*len(centres), d, nil)
	y := make([]int, 0, n*len(centres))
	for c, mu := range centres {
		for i := range n {
			row := X.RawRowView(c*n + i)
			for j := range row {
				row[j] = mu[j] + sd*src.NormFloat64()
			}
			y = append(y, c)
		}
	}
	return X, y
}

// plantedBinary draws n rows of d sparse 0/1 features (each on with
// probability density) labelled by a planted linear rule, with a fraction
// flip of labels flipped. It mimics one-hot encoded census data.
func plantedBinary(src *randx.Source, n, d int, density, flip float64) (*mat.Dense, []int) {
	w := make([]float64, d)
	for j := range w {
		w[j] = src.NormFloat64()
	}
	X := mat.NewDense(n, d, nil)
	y := make([]int, n)
	// Threshold at the expected score so that the classes are balanced-ish.
	threshold := density * floats.Sum(w)
	for i := range n {
		row := X.RawRowView(i)
		for j := range row {
			if src.Float64() < density {
				row[j] = 1
			}
		}
		if floats.Dot(w, row) > threshold {
			y[i] = 1
		}
		if src.Float64() < flip {
			y[i] = 1 - y[i]
		}
	}
	return X, y
}

// split returns a seeded 80/20 train/test split.
func split(src *randx.Source, X *mat.Dense, y []int) (Xtr *mat.Dense, ytr []int, Xte *mat.Dense, yte []int) {
	n, _ := X.Dims()
	perm := src.Perm(n)
	nTrain := n * 8 / 10
	return pick(X, y, perm[:nTrain]), pickLabels(y, perm[:nTrain]), pick(X, y, perm[nTrain:]), pickLabels(y, perm[nTrain:])
}

func pick(X *mat.Dense, _ []int, idx []int) *mat.Dense {
	_, d := X.Dims()
	out := mat.NewDense(len(idx), d, nil)
	for k, i := range idx {
		out.SetRow(k, X.RawRowView(i))
	}
	return out
}

func pickLabels(y []int, idx []int) []int {
	out := make([]int, len(idx))
	for k, i := range idx {
		out[k] = y[i]
	}
	return out
}

// loadWDBC reads wdbc.data (id, diagnosis M/B, 30 features) and scales each
// feature to [0,1] by its min and max over the whole file. Using the test
// rows for the scaling leaks a little, which is fine for a sanity check.
// Label 1 is malignant.
func loadWDBC(t *testing.T) (*mat.Dense, []int) {
	t.Helper()
	dir := testenv.SharedData(t, "wdbc")
	f, err := os.Open(filepath.Join(dir, "wdbc.data"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	records, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	X := mat.NewDense(len(records), 30, nil)
	y := make([]int, len(records))
	for i, rec := range records {
		if len(rec) != 32 {
			t.Fatalf("wdbc line %d has %d fields, want 32", i+1, len(rec))
		}
		switch rec[1] {
		case "M":
			y[i] = 1
		case "B":
		default:
			t.Fatalf("wdbc line %d: diagnosis %q", i+1, rec[1])
		}
		for j := range 30 {
			v, err := strconv.ParseFloat(rec[j+2], 64)
			if err != nil {
				t.Fatalf("wdbc line %d: %v", i+1, err)
			}
			X.Set(i, j, v)
		}
	}
	minMaxScale(X)
	return X, y
}

func minMaxScale(X *mat.Dense) {
	n, d := X.Dims()
	for j := range d {
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := range n {
			lo, hi = math.Min(lo, X.At(i, j)), math.Max(hi, X.At(i, j))
		}
		for i := range n {
			if hi > lo {
				X.Set(i, j, (X.At(i, j)-lo)/(hi-lo))
			} else {
				X.Set(i, j, 0)
			}
		}
	}
}

// unitRows projects every row onto the unit ball.
func unitRows(X *mat.Dense) {
	n, _ := X.Dims()
	for i := range n {
		row := X.RawRowView(i)
		if norm := floats.Norm(row, 2); norm > 1 {
			floats.Scale(1/norm, row)
		}
	}
}

// crossValidate returns the mean test accuracy of train over k seeded folds.
func crossValidate(t *testing.T, src *randx.Source, X *mat.Dense, y []int, k int,
	train func(X *mat.Dense, y []int) (*Classifier, error)) float64 {
	t.Helper()
	n, _ := X.Dims()
	perm := src.Perm(n)
	var sum float64
	for f := range k {
		lo, hi := f*n/k, (f+1)*n/k
		test := perm[lo:hi]
		trainIdx := append(append([]int(nil), perm[:lo]...), perm[hi:]...)
		c, err := train(pick(X, y, trainIdx), pickLabels(y, trainIdx))
		if err != nil {
			t.Fatal(err)
		}
		sum += Accuracy(c.PredictAll(pick(X, y, test)), pickLabels(y, test))
	}
	return sum / float64(k)
}
