package mullda

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method/mullda/lda"
	proto "github.com/dppub/dppub/method/mullda/roles"
	"github.com/dppub/dppub/privacy"
	"gonum.org/v1/gonum/mat"
)

// ClassNames names the classes of the label attribute.
func ClassNames(s data.Schema, label string, positive []string) ([]string, error) {
	a, err := s.Attribute(label)
	if err != nil {
		return nil, fmt.Errorf("label: %w", err)
	}
	if a.Kind == data.Numeric {
		return nil, fmt.Errorf("label %q is numeric; LDA needs a categorical or binary class attribute", label)
	}
	if positive == nil {
		return append([]string(nil), a.Categories...), nil
	}
	for _, c := range positive {
		if _, err := a.CategoryIndex(c); err != nil {
			return nil, fmt.Errorf("positive class: %w", err)
		}
	}
	return []string{"other", "in:" + strings.Join(positive, "|")}, nil
}

// Labels returns the class of every row (as in eval.Task.Labels).
func Labels(t *data.Table, label string, positive []string) ([]int, error) {
	j, err := t.Schema.Index(label)
	if err != nil {
		return nil, fmt.Errorf("label: %w", err)
	}
	a := t.Schema.Attributes[j]
	y := make([]int, t.Len())
	for i, row := range t.Rows {
		c := int(row[j])
		if positive != nil {
			c = 0
			if slices.Contains(positive, a.Categories[int(row[j])]) {
				c = 1
			}
		}
		y[i] = c
	}
	return y, nil
}

// Table turns labelled projections into a table: z1..zd in [−1, 1] and
// the label.
func Table(label string, classes []string, z *mat.Dense, y []int) (*data.Table, error) {
	n, d := z.Dims()
	var s data.Schema
	for j := 1; j <= d; j++ {
		s.Attributes = append(s.Attributes, data.Attribute{Name: fmt.Sprintf("z%d", j), Kind: data.Numeric, Min: -1, Max: 1})
	}
	kind := data.Categorical
	if len(classes) == 2 {
		kind = data.Binary
	}
	name := label
	if slices.ContainsFunc(s.Attributes, func(a data.Attribute) bool { return a.Name == name }) {
		name = "label"
	}
	s.Attributes = append(s.Attributes, data.Attribute{Name: name, Kind: kind, Categories: classes})
	t := &data.Table{Schema: s, Rows: make([][]float64, n)}
	for i := range n {
		row := make([]float64, d+1)
		copy(row, z.RawRowView(i))
		row[d] = float64(y[i])
		t.Rows[i] = row
	}
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("%w", err)
	}
	return t, nil
}

// ReportInput is what an LDA-DP / Mul-LDA-DP privacy report depends on;
// the in-process pipeline and the networked runner fill it the same way, so
// a session publishes the same report wherever it runs.
type ReportInput struct {
	Method       string
	Owners       int
	Calibration  lda.Calibration
	Noise        lda.NoiseMode
	PublicCounts bool
	Output       proto.Output
	Delta        float64
	Ledger       bool // a publishing ledger was attached
	Secure       bool
	Randomness   string
}

// Report builds the privacy report of an LDA-DP or Mul-LDA-DP release.
func Report(o ReportInput, plan *lda.Plan, accts []*privacy.Accountant, ridge float64) (*privacy.Report, error) {
	counts := o.PublicCounts || o.Calibration == lda.Paper
	ro := privacy.ReportOptions{
		Method: o.Method, Calibration: string(o.Calibration), Randomness: o.Randomness,
		Composition: privacy.ParallelOverOwners, Accountants: accts, Seeded: !o.Secure,
		Assumptions: []string{
			"features are encoded into [0,1] with the public schema bounds and every row is scaled to unit L2 norm; replacing one record (label included) moves the class sums by at most 2, the class counts by √2 and Σxxᵀ by √2 (L2)",
			fmt.Sprintf("the ridge %.4g added to S_w before solving depends only on public quantities (σ and p)", ridge),
			"rows with a missing value are dropped before the release, as in the papers",
		},
		Covered: []string{"the DP class means and class counts, the pooled within-class scatter S_w, the discriminant direction(s) W, and everything computed from them"},
	}
	if counts {
		ro.Assumptions = append(ro.Assumptions, "the class counts N^(k) are public: the guarantee holds for replacements that keep every class count (a record may change, its class may not)")
		ro.NotCovered = append(ro.NotCovered, "the class counts N^(k) (and each owner's N_m^(k)) are released exactly")
	}
	if o.Output == proto.RealProjections {
		ro.NotCovered = append(ro.NotCovered,
			"the published projections X·W: every row is the projection of a real record with its real label (the paper's Algorithm 1 step 9 / Algorithm 2 step 17); the paper's 'underdetermined system' argument is not a differential-privacy argument, so these rows are NOT covered by DP",
			"the number of records of each owner (one projection per record)")
		ro.NotDP = "the published projections X·W are those of the real records, with their real labels"
	} else {
		ro.Covered = append(ro.Covered, "the published labelled projections: drawn from the DP class-conditional Gaussians N(Wᵀμ_k, WᵀΣW) with Σ = S_w/(N − C), as many per class as the DP count says (post-processing)")
	}
	ro.ThreatModel = threatModel(o, plan)
	if o.Ledger {
		ro.ThreatModel = append(ro.ThreatModel, "ledger: every owner's spending and a SHA-256 of each of its messages, and the publisher's DP means, directions and artifact digest are signed entries of a hash-chained, Merkle-checkpointed log; each receiver checked the entry behind every message it relied on. The ledger adds accountability, not secrecy; a publisher showing different logs to different owners is caught only by comparing checkpoints")
	}
	if o.Calibration == lda.Paper {
		ro.Warnings = append(ro.Warnings, fmt.Sprintf(
			"paper calibration: each owner is charged as the paper claims; its σ on the class sums (%.4g) and on Σxxᵀ (%.4g) are far above what that budget needs, so the report's actual guarantee (against the publisher's view) differs from the claimed one, but the class counts are released exactly",
			plan.SumSigma, plan.SecondSigma))
	}
	return privacy.NewReport(ro)
}

func threatModel(o ReportInput, plan *lda.Plan) []string {
	m := o.Owners
	if m == 1 {
		return []string{"one owner: it noises its statistics itself; the publisher and everyone else see only DP statistics"}
	}
	if o.Noise == lda.Independent {
		return []string{
			"independent noise: each owner adds the full noise to its own statistics, so every message, and any coalition of the other parties, sees that owner only through a DP release; the aggregate carries M times the centralised noise variance",
		}
	}
	return []string{
		"honest-but-curious owners, noise dealer and publisher; the dealer's shares travel on private channels",
		fmt.Sprintf("correlated noise (the paper's scheme): each owner's message carries N(0, σ²), and the aggregate exactly N(0, σ²) because the dealer's shares cancel; but the publisher sees every message and its own share, which together protect one owner with only %.3f·σ (M = %d)%s",
			plan.ViewFactor, m, viewPaid(o.Calibration)),
		fmt.Sprintf("if the publisher colludes with the dealer, or with the other %d owners, it can remove an owner's share, leaving that owner's statistics with only its own N(0, σ²/%d): the guarantee per owner then degrades to (ε=%.4g, δ=%g)",
			m-1, m, plan.CollusionEpsilon(), o.Delta),
	}
}

func viewPaid(c lda.Calibration) string {
	if c == lda.Sound {
		return "; the sound calibration sets σ so that this view is (ε, δ)-DP"
	}
	return "; the paper's Theorems 7–8 overlook this, and the charges' actual guarantees account for it"
}
