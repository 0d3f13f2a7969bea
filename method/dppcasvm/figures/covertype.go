package figures

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// CovertypeRows is the number of rows of UCI Covertype.
const CovertypeRows = 581012

// covertypeClassShare are the Cover_Type class frequencies of UCI
// Covertype (211840, 283301, 35754, 2747, 9493, 17367, 20510 of 581012).
var covertypeClassShare = []float64{0.36461, 0.48760, 0.06154, 0.00473, 0.01634, 0.02989, 0.03530}

// CovertypeLikeSchema is the schema of CovertypeLike's table: 10 numeric
// attributes in [0, 1], 4 wilderness and 40 soil indicators (binary, one
// of each group set), and Cover_Type with 7 classes: Covertype's shape,
// not its data.
func CovertypeLikeSchema() data.Schema {
	s := data.Schema{}
	for j := 1; j <= 10; j++ {
		s.Attributes = append(s.Attributes, data.Attribute{Name: "x" + strconv.Itoa(j), Kind: data.Numeric, Min: 0, Max: 1})
	}
	for j := 1; j <= 4; j++ {
		s.Attributes = append(s.Attributes, data.Attribute{Name: "Wilderness_Area" + strconv.Itoa(j), Kind: data.Binary, Categories: []string{"0", "1"}})
	}
	for j := 1; j <= 40; j++ {
		s.Attributes = append(s.Attributes, data.Attribute{Name: "Soil_Type" + strconv.Itoa(j), Kind: data.Binary, Categories: []string{"0", "1"}})
	}
	s.Attributes = append(s.Attributes, data.Attribute{Name: "Cover_Type", Kind: data.Categorical,
		Categories: []string{"1", "2", "3", "4", "5", "6", "7"}})
	return s
}

// covertypeStructure is the planted structure, fixed by its own seed so
// that every run generates from the same distribution.
type covertypeStructure struct {
	centres  [7][4]float64  // class centres in a 4-dim latent space
	loadings [10][4]float64 // numeric features from the latent
	wild     [7][]float64   // cumulative wilderness probabilities
	soil     [7][]float64   // cumulative soil probabilities
}

func newCovertypeStructure() *covertypeStructure {
	src := randx.NewSeeded(54)
	s := &covertypeStructure{}
	for c := range s.centres {
		for j := range s.centres[c] {
			s.centres[c][j] = src.NormFloat64()
		}
	}
	for i := range s.loadings {
		for j := range s.loadings[i] {
			s.loadings[i][j] = 0.5 * src.NormFloat64()
		}
	}
	for c := range 7 {
		s.wild[c] = cumulativeSoftmax(src, 4, 1.5)
		s.soil[c] = cumulativeSoftmax(src, 40, 2)
	}
	return s
}

func cumulativeSoftmax(src *randx.Source, k int, spread float64) []float64 {
	p := make([]float64, k)
	total := 0.0
	for i := range p {
		p[i] = math.Exp(spread * src.NormFloat64())
		total += p[i]
	}
	acc := 0.0
	for i := range p {
		acc += p[i] / total
		p[i] = acc
	}
	return p
}

func drawCumulative(src *randx.Source, cum []float64) int {
	u := src.Float64()
	for i, c := range cum {
		if u < c {
			return i
		}
	}
	return len(cum) - 1
}

// CovertypeLike generates n encoded rows of Covertype's shape (54 columns
// in [0, 1], the encoding of CovertypeLikeSchema) and their classes 0..6,
// with Covertype's class frequencies and a planted structure: a class
// centre in a 4-dim latent space plus N(0, 0.8²) spread drives the 10
// numeric columns linearly (plus N(0, 0.05²) noise, clamped to [0, 1]),
// and class-specific distributions draw one wilderness area and one soil
// type. Covertype itself is not available here; this stands in for it in
// timing only.
func CovertypeLike(n int, src *randx.Source) (*mat.Dense, []int) {
	st := newCovertypeStructure()
	classCum := slices.Clone(covertypeClassShare)
	for i := 1; i < len(classCum); i++ {
		classCum[i] += classCum[i-1]
	}
	classCum[len(classCum)-1] = 1
	X := mat.NewDense(n, 54, nil)
	y := make([]int, n)
	var u [4]float64
	for i := range n {
		c := drawCumulative(src, classCum)
		y[i] = c
		for j := range u {
			u[j] = st.centres[c][j] + 0.8*src.NormFloat64()
		}
		row := X.RawRowView(i)
		for f := range 10 {
			v := 0.5 + 0.05*src.NormFloat64()
			for j := range u {
				v += 0.1 * st.loadings[f][j] * u[j]
			}
			row[f] = min(max(v, 0), 1)
		}
		row[10+drawCumulative(src, st.wild[c])] = 1
		row[14+drawCumulative(src, st.soil[c])] = 1
	}
	return X, y
}

// WriteCovertypeLikeCSV writes CovertypeLike's rows with a header, in the
// columns of CovertypeLikeSchema (for the scikit-learn comparison).
func WriteCovertypeLikeCSV(w io.Writer, X *mat.Dense, y []int) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	names := CovertypeLikeSchema().Names()
	if _, err := bw.WriteString(strings.Join(names, ",") + "\n"); err != nil {
		return fmt.Errorf("dppca-svm figures: %w", err)
	}
	buf := make([]byte, 0, 512)
	n, _ := X.Dims()
	for i := range n {
		buf = buf[:0]
		for j, v := range X.RawRowView(i) {
			if j < 10 {
				buf = strconv.AppendFloat(buf, v, 'g', 6, 64)
			} else {
				buf = strconv.AppendInt(buf, int64(v), 10)
			}
			buf = append(buf, ',')
		}
		buf = strconv.AppendInt(buf, int64(y[i]+1), 10)
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return fmt.Errorf("dppca-svm figures: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("dppca-svm figures: %w", err)
	}
	return nil
}
