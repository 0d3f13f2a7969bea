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

// MeanStd returns the sample mean and standard deviation.
func MeanStd(v []float64) (float64, float64) {
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

// Accumulator gathers the repetitions of every point of a figure, keyed by
// the point's row without its Reps, Mean and Std, in first-seen order.
type Accumulator struct {
	keys []Row
	vals map[Row][]float64
}

// NewAccumulator returns an empty accumulator.
func NewAccumulator() *Accumulator { return &Accumulator{vals: map[Row][]float64{}} }

// Add records one repetition's value v of the point key.
func (a *Accumulator) Add(key Row, v float64) {
	if _, ok := a.vals[key]; !ok {
		a.keys = append(a.keys, key)
	}
	a.vals[key] = append(a.vals[key], v)
}

// Rows returns one row per point: its key with the number of repetitions,
// their mean and standard deviation.
func (a *Accumulator) Rows() []Row {
	out := make([]Row, 0, len(a.keys))
	for _, k := range a.keys {
		r := k
		r.Reps = len(a.vals[k])
		r.Mean, r.Std = MeanStd(a.vals[k])
		out = append(out, r)
	}
	return out
}

// Counter reports progress: Step counts one measured point of Total.
type Counter struct {
	Done, Total int
	Progress    func(done, total int) // nil: report nothing
}

// Step counts one point and reports it.
func (c *Counter) Step() {
	c.Done++
	if c.Progress != nil {
		c.Progress(min(c.Done, c.Total), c.Total)
	}
}
