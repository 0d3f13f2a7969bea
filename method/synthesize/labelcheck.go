package synthesize

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/learn"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// DefaultLabelCheckShare is the share of a single owner's ρ that measures,
// when a label is named, how well a classifier trained on the synthetic
// rows predicts it on the real records. At ε = 1 on Adult it is a noise of
// about 39 correct predictions on 45 222 records (0.09 percentage points of
// accuracy); the other 98 % of the budget goes to the marginals.
const DefaultLabelCheckShare = 0.02

// labelCheckTrainRows caps the synthetic rows the check's classifier is
// trained on, and those it is tested on: enough for a linear model over a
// few hundred encoded columns, and a second at most on Adult.
const labelCheckTrainRows = 10000

// LabelCheck is the expected accuracy of a model trained on the synthetic
// rows, measured on the real records under the run's guarantee: the
// number of real records that a one-vs-rest logistic regression trained on
// synthetic rows predicts correctly is a counting query (sensitivity 1
// under replace-one and add/remove), released once with discrete Gaussian
// noise (measurement.ReleaseCountingQuery) at ρ = Rho, charged to the owner's
// accountant before it is drawn. The classifier depends on the records
// only through the synthetic rows, so the query is fixed before the
// release. Everything else here is post-processing of released values.
type LabelCheck struct {
	Label string
	// Rho is the check's zCDP cost, Sigma its noise's standard deviation
	// in records.
	Rho, Sigma float64
	// Trained is the number of synthetic rows the classifier learnt from.
	Trained int
	// Real is the released accuracy on the real records (the noisy count
	// of correct predictions over the public record count), HalfWidth the
	// half-width of its 95 % interval from the noise alone.
	Real, HalfWidth float64
	// Synthetic is the classifier's accuracy on held-out synthetic rows,
	// what the synthetic data promises; Majority the share of the most
	// common class among the synthetic rows.
	Synthetic, Majority float64
}

// Loss is the accuracy that a model validated on the synthetic rows loses
// on the real records (negative when it gains).
func (c *LabelCheck) Loss() float64 { return c.Synthetic - c.Real }

// String is the check's one line for the report and the summary.
func (c *LabelCheck) String() string {
	return fmt.Sprintf("label check (%s): a logistic regression trained on %d synthetic rows predicts it on the real records with accuracy %.3f ± %.3f (95%%, noise only), against %.3f on held-out synthetic rows: expect to lose %.3f of accuracy against what the synthetic rows promise; the most common class alone gives %.3f (a noisy count of correct predictions, discrete Gaussian σ = %.3g records, sensitivity 1, ρ = %.4g)",
		c.Label, c.Trained, c.Real, c.HalfWidth, c.Synthetic, c.Loss(), c.Majority, c.Sigma, c.Rho)
}

// Warning is a sentence for the report's warnings when the released
// accuracy, with its interval, stays below the share of the synthetic
// rows' most common class: a classifier trained on the rows then does
// worse on the real records than the class count the rows themselves
// suggest (Musk2 with its label named at ε = 1: 0.767 ± 0.011 against
// 0.835, docs/results/synthesis/label.md). Both figures are released or
// post-processing, so the warning is too. Empty otherwise.
func (c *LabelCheck) Warning() string {
	if c.Real+c.HalfWidth >= c.Majority {
		return ""
	}
	return fmt.Sprintf("label %s: a classifier trained on the synthetic rows predicts it on the real records with accuracy %.3f ± %.3f, below %.3f, the share of the most common class among the synthetic rows: the rows may mislead a classifier more than they inform it (always predicting that class could do better)",
		c.Label, c.Real, c.HalfWidth, c.Majority)
}

// labelCheckRho is the part of the single owner's ρ the label check will
// spend: none without a label, with parties of columns (no one holds the
// label beside the other columns), or for a numeric label (a regression
// target, which no accuracy describes).
func (o Options) labelCheckRho(schema data.Schema) float64 {
	if o.Label == "" || o.LabelCheckShare < 0 || len(o.Parties) != 1 {
		return 0
	}
	if j, err := schema.Index(o.Label); err != nil || schema.Attributes[j].Kind == data.Numeric {
		return 0
	}
	return cmp.Or(o.LabelCheckShare, DefaultLabelCheckShare) * o.Parties[0].Rho
}

// checkLabel trains the check's classifier on the synthetic records
// (synth, discretised by dom) and releases its accuracy on the real ones
// (real, n public records) at ρ = rho, charged to acct. Both sides are
// read in the domain's cells, so a streamed input is checked as a table
// held whole is.
func checkLabel(label string, dom *domain.Domain, real domain.Chunks, synth *domain.Dataset, n int, rho float64, acct *privacy.Accountant, src *randx.Source) (*LabelCheck, error) {
	f, err := newOneHot(dom, label)
	if err != nil {
		return nil, err
	}
	trainRows := min(synth.Len()/2, labelCheckTrainRows, max(labelCheckCells/f.dim, 100))
	clf, err := f.train(synth, trainRows)
	if err != nil {
		return nil, err
	}
	right, held := 0, 0
	var cells []int
	for i := trainRows; i < min(synth.Len(), 2*trainRows); i++ {
		held++
		if cells = synth.Row(i, cells); f.predict(clf, cells) {
			right++
		}
	}
	correct := 0
	for _, c := range real {
		c.Each(func(cells []int, w int) {
			if f.predict(clf, cells) {
				correct += w
			}
		})
	}
	c, err := measurement.ReleaseCountingQuery(correct, "label check: correct predictions on the real records", measurement.CountOptions{Rho: rho, Accountant: acct, Source: src})
	if err != nil {
		return nil, err
	}
	return &LabelCheck{Label: label, Rho: rho, Sigma: c.Noise.Scale, Trained: trainRows,
		Real: min(max(float64(c.Value)/float64(n), 0), 1), HalfWidth: 1.96 * c.Noise.Scale / float64(n),
		Synthetic: float64(right) / float64(max(held, 1)), Majority: f.majority(synth)}, nil
}

// labelCheckCells caps the training matrix (rows × one-hot columns): on a
// wide table the classifier learns from fewer rows rather than from
// hundreds of megabytes.
const labelCheckCells = 4 << 20

// oneHot encodes a record's cells, the label's left out, as one indicator
// column per cell of every other attribute.
type oneHot struct {
	label, classes int
	start          []int // start[j]: attribute j's first column (-1: the label)
	dim            int
	x              []float64
}

func newOneHot(dom *domain.Domain, label string) (*oneHot, error) {
	l, err := dom.Index(label)
	if err != nil {
		return nil, fmt.Errorf("label check: %w", err)
	}
	f := &oneHot{label: l, classes: dom.Size(l)}
	for j, size := range dom.Sizes() {
		if j == l {
			f.start = append(f.start, -1)
			continue
		}
		f.start = append(f.start, f.dim)
		f.dim += size
	}
	f.x = make([]float64, f.dim)
	return f, nil
}

// encode writes cells' indicators into x.
func (f *oneHot) encode(x []float64, cells []int) {
	clear(x)
	for j, c := range cells {
		if f.start[j] >= 0 {
			x[f.start[j]+c] = 1
		}
	}
}

// train fits the check's classifier, a one-vs-rest logistic regression
// (learn's defaults, at most 200 L-BFGS iterations), to synth's first
// rows records.
func (f *oneHot) train(synth *domain.Dataset, rows int) (*learn.Classifier, error) {
	if rows < 2 {
		return nil, fmt.Errorf("label check: %d synthetic records are too few to train on", synth.Len())
	}
	X := mat.NewDense(rows, f.dim, nil)
	y := make([]int, rows)
	var cells []int
	for i := range rows {
		cells = synth.Row(i, cells)
		f.encode(X.RawRowView(i), cells)
		y[i] = cells[f.label]
	}
	o := learn.DefaultLogRegOptions()
	o.MaxIter = 200
	clf, err := learn.TrainLogReg(X, y, f.classes, o)
	if err != nil {
		return nil, fmt.Errorf("label check: %w", err)
	}
	return clf, nil
}

// predict says whether clf predicts the label of the record in cells.
func (f *oneHot) predict(clf *learn.Classifier, cells []int) bool {
	f.encode(f.x, cells)
	return clf.Predict(f.x) == cells[f.label]
}

// majority is the share of the most common label among synth's records.
func (f *oneHot) majority(synth *domain.Dataset) float64 {
	counts := make([]int, f.classes)
	for _, c := range synth.Cols[f.label] {
		counts[c]++
	}
	return float64(slices.Max(counts)) / float64(max(synth.Len(), 1))
}
