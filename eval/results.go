package eval

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
)

// Row is one measured point of one curve.
type Row struct {
	Experiment  string
	Dataset     string
	Task        string
	Method      string
	Calibration string
	Noise       string
	Epsilon     float64
	Delta       float64
	Parties     int
	K           int
	Reps        int
	Metric      string
	Mean        float64
	Std         float64
}

// Header is the CSV header of the long form.
var Header = []string{"experiment", "dataset", "task", "method", "calibration", "noise",
	"epsilon", "delta", "parties", "k", "reps", "metric", "mean", "std"}

// WriteCSV writes rows in long form.
func WriteCSV(w io.Writer, rows []Row) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(Header); err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	for _, r := range rows {
		rec := []string{r.Experiment, r.Dataset, r.Task, r.Method, r.Calibration, r.Noise,
			f(r.Epsilon), f(r.Delta), strconv.Itoa(r.Parties), strconv.Itoa(r.K), strconv.Itoa(r.Reps),
			r.Metric, f(r.Mean), f(r.Std)}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("eval: %w", err)
		}
	}
	cw.Flush()
	return cw.Error()
}

// meanStd returns the sample mean and standard deviation.
func meanStd(v []float64) (float64, float64) {
	if len(v) == 0 {
		return math.NaN(), math.NaN()
	}
	m := 0.0
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	if len(v) == 1 {
		return m, 0
	}
	s := 0.0
	for _, x := range v {
		s += (x - m) * (x - m)
	}
	return m, math.Sqrt(s / float64(len(v)-1))
}
