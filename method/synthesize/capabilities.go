package synthesize

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/method"
)

// The capabilities a command uses to publish and summarise a run
// (package method's interfaces): the table is decoded a chunk at a time
// and never held whole.
var (
	_ method.RowChunks    = (*Result)(nil)
	_ method.UsedSettings = (*Result)(nil)
	_ method.Summarizer   = (*Result)(nil)
)

// TableSchema is the synthetic table's schema.
func (r *Result) TableSchema() data.Schema { return r.Domain.SyntheticSchema() }

// RowCount is the number of synthetic records.
func (r *Result) RowCount() int { return r.Rows }

// Chunks returns the synthetic table's chunks (domain.DecodeChunk rows
// each, their randomness drawn up front from DecodeSource) and their
// decoder.
func (r *Result) Chunks() (int, func(k int, t *data.Table) error) {
	srcs := domain.DecodeSources(r.Rows, r.DecodeSource)
	return len(srcs), func(k int, t *data.Table) error {
		return r.Domain.DecodeChunkInto(r.Engine.Data, r.Rows, k, srcs[k], t)
	}
}

// RecordUsed records in st (*Settings) the δ and the number of rows the
// run used (their defaults depend on the records).
func (r *Result) RecordUsed(st method.Settings) {
	if s, ok := st.(*Settings); ok {
		s.Delta, s.Rows = r.Delta, r.Rows
	}
}

// Summary says what the engine measured, how well the noise lets the
// workload be answered, and how long each stage took.
func (r *Result) Summary() []string {
	e := r.Engine
	sizes := map[int]int{}
	for _, m := range e.Measured {
		sizes[len(m.Attrs)]++
	}
	var shape []string
	for _, k := range slices.Sorted(maps.Keys(sizes)) {
		shape = append(shape, fmt.Sprintf("%d × %d-way", sizes[k], k))
	}
	var lines []string
	if r.Auto != "" {
		lines = append(lines, "engine: "+r.Auto)
	}
	if len(e.Rounds) > 0 {
		star := ""
		if fixed := len(e.Rounds) - countSelected(e.Rounds); fixed > 0 {
			star = fmt.Sprintf(" (the first %d the label's pairs, chosen without a selection)", fixed)
		}
		lines = append(lines, fmt.Sprintf("adaptive: %d rounds%s after %d one-way marginals; measured %s", len(e.Rounds), star, len(e.Measured)-len(e.Rounds), strings.Join(shape, ", ")))
	} else {
		lines = append(lines, fmt.Sprintf("%d of %d attribute pairs selected; measured %s", len(e.Selection.Chosen), len(e.Candidates), strings.Join(shape, ", ")))
	}
	wl := e.Workload
	lines = append(lines, fmt.Sprintf("noise error bars (public): %d of %d workload marginals covered by a measurement, expected TVD from noise %.4f (95%%: %.4f) on average",
		wl.Covered, wl.Queries, wl.MeanExpectedTVD, wl.MeanTVD95))
	t := e.Timings
	lines = append(lines, fmt.Sprintf("time: %v (one-way %v, scores %v, selection %v, marginals %v, post-processing %v, GUM %v)",
		r.Elapsed.Round(1e6), t.OneWays.Round(1e6), t.Scores.Round(1e6), t.Select.Round(1e6), t.Marginals.Round(1e6),
		t.PostProcess.Round(1e6), t.GUM.Round(1e6)))
	if r.Rows > e.Data.Len() {
		lines = append(lines, fmt.Sprintf("%d synthetic rows repeat %d fitted records (each numeric value drawn afresh in its bin)", r.Rows, e.Data.Len()))
	}
	return lines
}

// Notes say what choosing the bins cost, how an (ε, δ) budget was
// converted, and how many values were clamped.
func (r *Result) Notes() []string {
	var lines []string
	if r.BinRho > 0 {
		lines = append(lines, fmt.Sprintf("numeric bins chosen from the data with ρ = %.4g (%.1f%% of the budget)", r.BinRho, 100*r.BinRho/r.Rho))
	}
	if f := r.Epsilon; f > 0 {
		lines = append(lines, fmt.Sprintf("budget (ε, δ) = (%g, %.3g) → ρ = %.6g (Canonne–Kamath–Steinke conversion)", f, r.Delta, r.Rho))
	}
	if c := r.LabelCheck; c != nil {
		lines = append(lines, fmt.Sprintf("label %s: accuracy on the real records %.3f ± %.3f (DP, ρ = %.3g) for a model trained on the synthetic rows, %.3f on synthetic rows: expect to lose %.3f; majority class %.3f",
			c.Label, c.Real, c.HalfWidth, c.Rho, c.Synthetic, c.Loss(), c.Majority))
	}
	if r.Clamped > 0 {
		lines = append(lines, fmt.Sprintf("%d values were clamped to the declared bounds", r.Clamped))
	}
	return lines
}

// countSelected is how many of the rounds chose their set by a private
// selection.
func countSelected(rounds []marginal.Round) int {
	n := 0
	for _, r := range rounds {
		if r.Selected() {
			n++
		}
	}
	return n
}
