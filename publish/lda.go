package publish

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/dppub/dppub/algo/lda"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/ledger"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/protocol/mullda"
	"github.com/dppub/dppub/randx"
	"golang.org/x/mod/sumdb/note"
	"gonum.org/v1/gonum/mat"
)

// LDA role names in a publication with m owners.
const (
	LDAPublisher = "publisher"
	LDADealer    = "dealer"
)

// LDAOwnerName is the name of owner i (1-based).
func LDAOwnerName(i int) string { return fmt.Sprintf("owner-%d", i) }

// LDAParties lists the parties that sign ledger entries in a publication
// with m owners: the owners, then the publisher (the dealer writes none).
func LDAParties(m int) []string {
	out := make([]string, 0, m+1)
	for i := 1; i <= m; i++ {
		out = append(out, LDAOwnerName(i))
	}
	return append(out, LDAPublisher)
}

// LedgerSetup connects a publication to a publishing ledger. The log's
// checkpoints must be signed with the publisher's identity (the operator).
type LedgerSetup struct {
	Log ledger.Ledger
	// Identities sign each party's entries, by role name (LDAParties).
	Identities map[string]*ledger.Identity
	// Keyring lists every member whose entries the log holds (it may
	// include parties of earlier sessions).
	Keyring ledger.Keyring
	// Operator verifies the publisher's checkpoints.
	Operator note.Verifier
}

// NewMemoryLedger returns an in-memory ledger with fresh identities for the
// parties (keys drawn from random; nil means crypto/rand). The party named
// LDAPublisher, which must be among them, operates it.
func NewMemoryLedger(parties []string, random io.Reader) (*LedgerSetup, error) {
	if !slices.Contains(parties, LDAPublisher) {
		return nil, fmt.Errorf("publish: the ledger's parties %v do not include the %s", parties, LDAPublisher)
	}
	ids := map[string]*ledger.Identity{}
	var members []ledger.Member
	for _, name := range parties {
		id, err := ledger.NewIdentity(random, name)
		if err != nil {
			return nil, fmt.Errorf("publish: %w", err)
		}
		ids[name] = id
		members = append(members, id.Member())
	}
	ring, err := ledger.NewKeyring(members...)
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	signer, err := ids[LDAPublisher].NoteSigner()
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	verifier, err := ids[LDAPublisher].Member().NoteVerifier()
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	log, err := ledger.NewMemory(ledger.Options{Keyring: ring, Signer: signer, Origin: "dppub/lda"})
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	return &LedgerSetup{Log: log, Identities: ids, Keyring: ring, Operator: verifier}, nil
}

func (s *LedgerSetup) handle(name string) (*mullda.Ledger, error) {
	if s == nil {
		return nil, nil
	}
	id, ok := s.Identities[name]
	if !ok {
		return nil, fmt.Errorf("publish: no ledger identity for %s", name)
	}
	return &mullda.Ledger{Log: s.Log, Identity: id, Keyring: s.Keyring, Operator: s.Operator}, nil
}

// LDAOptions configure an LDA-DP or Mul-LDA-DP publication.
type LDAOptions struct {
	// Owners are the owners' tables, all with the same schema.
	Owners []*data.Table
	// Label is the class attribute (categorical or binary). With Positive
	// set, the task is binary: class 1 when the label is in Positive.
	Label    string
	Positive []string
	// Exclude lists further attributes left out of the features.
	Exclude []string
	// Epsilon and Delta are each owner's budget (Delta > 0).
	Epsilon, Delta float64
	Calibration    lda.Calibration // default sound
	Noise          lda.NoiseMode   // default correlated
	// PublicCounts releases the class counts exactly (sound only; the
	// paper calibration always does).
	PublicCounts bool
	// Output is synthetic projections (default, DP) or the owners' real
	// projections (the paper's; NOT DP).
	Output mullda.Output
	// Ridge overrides the default ridge (σ√p of the aggregate's noise).
	Ridge float64
	// Ledger, if set, receives every party's entries and is verified at
	// the end.
	Ledger *LedgerSetup
	Source *randx.Source
}

// LDAResult is the published output and what it cost.
type LDAResult struct {
	// Published holds the labelled projections: columns z1..zd in [−1, 1]
	// and the label.
	Published *data.Table
	// Directions are the unit discriminant directions (p×d) over the
	// encoded, row-normalised features named by Features.
	Directions *mat.Dense
	Features   []string
	ClassNames []string
	// Projections and Labels are Published as numbers.
	Projections *mat.Dense
	Labels      []int
	Estimate    *lda.Estimate
	Plan        *lda.Plan
	Ridge       float64
	Report      *privacy.Report
	Encoder     *data.Encoder
	// Ledger is the final verification of the ledger (nil without one),
	// and ArtifactSHA256 the digest its artifact-published entry records.
	Ledger         *ledger.Report
	ArtifactSHA256 string
	Clamped        int // values clamped to declared bounds (not private: local use only)
	Traffic        *protocol.Stats
	Elapsed        time.Duration
}

// LDADP publishes with one owner (the paper's Algorithm 1).
func LDADP(ctx context.Context, o LDAOptions) (*LDAResult, error) {
	if len(o.Owners) != 1 {
		return nil, fmt.Errorf("publish: lda-dp takes one owner, got %d (use mul-lda-dp)", len(o.Owners))
	}
	return runLDA(ctx, o, "lda-dp")
}

// MulLDADP publishes with M ≥ 1 owners and, by default, the paper's
// correlated noise (Algorithm 2).
func MulLDADP(ctx context.Context, o LDAOptions) (*LDAResult, error) {
	return runLDA(ctx, o, "mul-lda-dp")
}

func (o *LDAOptions) defaults() {
	if o.Calibration == "" {
		o.Calibration = lda.Sound
	}
	if o.Noise == "" {
		o.Noise = lda.Correlated
	}
	if o.Output == "" {
		o.Output = mullda.Synthetic
	}
	if o.Source == nil {
		o.Source = randx.NewSecure()
	}
}

// ldaInput is the owners' encoded, normalised rows and labels.
type ldaInput struct {
	enc     *data.Encoder
	X       []*mat.Dense
	y       [][]int
	classes []string
	clamped int
}

func encodeLDA(o LDAOptions) (*ldaInput, error) {
	if len(o.Owners) == 0 {
		return nil, fmt.Errorf("publish: lda needs at least one owner")
	}
	schema := o.Owners[0].Schema
	enc, err := data.NewEncoder(schema, data.EncoderOptions{Exclude: append([]string{o.Label}, o.Exclude...)})
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	classes, err := LDAClassNames(schema, o.Label, o.Positive)
	if err != nil {
		return nil, err
	}
	in := &ldaInput{enc: enc, classes: classes}
	for i, t := range o.Owners {
		if !t.Schema.Equal(schema) {
			return nil, fmt.Errorf("publish: %s's schema differs from owner-1's", LDAOwnerName(i+1))
		}
		X, st, err := enc.Encode(t)
		if err != nil {
			return nil, fmt.Errorf("publish: %s: %w", LDAOwnerName(i+1), err)
		}
		data.NormalizeRowsL2(X)
		y, err := LDALabels(t, o.Label, o.Positive)
		if err != nil {
			return nil, err
		}
		in.X, in.y, in.clamped = append(in.X, X), append(in.y, y), in.clamped+st.Clamped
	}
	return in, nil
}

func runLDA(ctx context.Context, o LDAOptions, method string) (*LDAResult, error) {
	o.defaults()
	if !(o.Delta > 0 && o.Delta < 1) {
		return nil, fmt.Errorf("publish: %s needs delta in (0, 1), got %v", method, o.Delta)
	}
	in, err := encodeLDA(o)
	if err != nil {
		return nil, err
	}
	m := len(o.Owners)
	params := mullda.Params{
		Session: fmt.Sprintf("%s-%016x", method, o.Source.Uint64()), Publisher: LDAPublisher,
		Plan: lda.PlanOptions{Calibration: o.Calibration, Epsilon: o.Epsilon, Delta: o.Delta, P: in.enc.Dim(),
			Classes: len(in.classes), Owners: m, Noise: o.Noise, PublicCounts: o.PublicCounts},
		Ridge: o.Ridge, Output: o.Output,
	}
	for i := 1; i <= m; i++ {
		params.Owners = append(params.Owners, LDAOwnerName(i))
	}
	if params.NeedsDealer() {
		params.Dealer = LDADealer
	}
	if err := params.Validate(); err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	roles, accts, err := ldaRoles(o, params, in)
	if err != nil {
		return nil, err
	}
	pubLedger, err := o.Ledger.handle(LDAPublisher)
	if err != nil {
		return nil, err
	}
	pub, err := mullda.NewPublisher(mullda.PublisherOptions{Params: params, Source: o.Source.Child(), Ledger: pubLedger})
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	start := time.Now()
	traffic, err := protocol.RunLocal(ctx, append(roles, pub)...)
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	res, err := pub.Result()
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	plan, err := lda.NewPlan(params.Plan)
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	out := &LDAResult{Directions: res.Directions, Features: in.enc.ColumnNames(), ClassNames: in.classes,
		Projections: res.Projections, Labels: res.Labels, Estimate: res.Estimate, Plan: plan, Ridge: res.Ridge,
		Encoder: in.enc, ArtifactSHA256: res.ArtifactSHA256, Clamped: in.clamped, Traffic: traffic}
	if out.Published, err = LDATable(o.Label, in.classes, res.Projections, res.Labels); err != nil {
		return nil, err
	}
	if o.Ledger != nil {
		if out.Ledger, err = verifyLedger(o.Ledger); err != nil {
			return nil, err
		}
	}
	if out.Report, err = ldaReport(o, method, plan, accts, res.Ridge); err != nil {
		return nil, err
	}
	out.Elapsed = time.Since(start)
	return out, nil
}

func ldaRoles(o LDAOptions, params mullda.Params, in *ldaInput) ([]protocol.Role, []*privacy.Accountant, error) {
	var roles []protocol.Role
	var accts []*privacy.Accountant
	for i, id := range params.Owners {
		acct, err := privacy.NewAccountant(privacy.AccountantOptions{Party: id, Budget: dp.Approx(o.Epsilon, o.Delta)})
		if err != nil {
			return nil, nil, fmt.Errorf("publish: %w", err)
		}
		lg, err := o.Ledger.handle(id)
		if err != nil {
			return nil, nil, err
		}
		owner, err := mullda.NewOwner(mullda.OwnerOptions{ID: id, Params: params, Data: in.X[i], Labels: in.y[i],
			Accountant: acct, Source: o.Source.Child(), Ledger: lg})
		if err != nil {
			return nil, nil, fmt.Errorf("publish: %w", err)
		}
		roles, accts = append(roles, owner), append(accts, acct)
	}
	if params.NeedsDealer() {
		d, err := mullda.NewNoiseDealer(mullda.DealerOptions{Params: params, Source: o.Source.Child()})
		if err != nil {
			return nil, nil, fmt.Errorf("publish: %w", err)
		}
		roles = append(roles, d)
	}
	return roles, accts, nil
}

// verifyLedger audits the whole ledger against a fresh signed checkpoint.
func verifyLedger(s *LedgerSetup) (*ledger.Report, error) {
	cp, err := s.Log.Checkpoint()
	if err != nil {
		return nil, fmt.Errorf("publish: ledger checkpoint: %w", err)
	}
	rep, err := ledger.Verify(s.Log, s.Keyring, cp, s.Operator)
	if err != nil {
		return nil, fmt.Errorf("publish: the ledger does not verify: %w", err)
	}
	return rep, nil
}

// LDAClassNames names the classes of the label attribute.
func LDAClassNames(s data.Schema, label string, positive []string) ([]string, error) {
	a, err := s.Attribute(label)
	if err != nil {
		return nil, fmt.Errorf("publish: label: %w", err)
	}
	if a.Kind == data.Numeric {
		return nil, fmt.Errorf("publish: label %q is numeric; LDA needs a categorical or binary class attribute", label)
	}
	if positive == nil {
		return append([]string(nil), a.Categories...), nil
	}
	for _, c := range positive {
		if _, err := a.CategoryIndex(c); err != nil {
			return nil, fmt.Errorf("publish: positive class: %w", err)
		}
	}
	return []string{"other", "in:" + strings.Join(positive, "|")}, nil
}

// LDALabels returns the class of every row (as in eval.Task.Labels).
func LDALabels(t *data.Table, label string, positive []string) ([]int, error) {
	j, err := t.Schema.Index(label)
	if err != nil {
		return nil, fmt.Errorf("publish: label: %w", err)
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

// LDATable turns labelled projections into a table: z1..zd in [−1, 1] and
// the label.
func LDATable(label string, classes []string, z *mat.Dense, y []int) (*data.Table, error) {
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
		return nil, fmt.Errorf("publish: %w", err)
	}
	return t, nil
}

// Project encodes t's rows as the publication did (features in [0, 1],
// rows scaled to unit L2 norm) and projects them on the directions: how a
// user applies the published LDA to new data.
func (r *LDAResult) Project(t *data.Table) (*mat.Dense, error) {
	X, _, err := r.Encoder.Encode(t)
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	data.NormalizeRowsL2(X)
	return lda.Project(X, r.Directions), nil
}

// LDAReportInput is what an LDA-DP / Mul-LDA-DP privacy report depends on;
// the in-process pipeline and the networked runner fill it the same way, so
// a session publishes the same report wherever it runs.
type LDAReportInput struct {
	Method       string
	Owners       int
	Calibration  lda.Calibration
	Noise        lda.NoiseMode
	PublicCounts bool
	Output       mullda.Output
	Delta        float64
	Ledger       bool // a publishing ledger was attached
	Secure       bool
	Randomness   string
}

func ldaReport(o LDAOptions, method string, plan *lda.Plan, accts []*privacy.Accountant, ridge float64) (*privacy.Report, error) {
	return LDAReport(LDAReportInput{Method: method, Owners: len(o.Owners), Calibration: o.Calibration, Noise: o.Noise,
		PublicCounts: o.PublicCounts, Output: o.Output, Delta: o.Delta, Ledger: o.Ledger != nil,
		Secure: o.Source.IsSecure(), Randomness: o.Source.Describe()}, plan, accts, ridge)
}

// LDAReport builds the privacy report of an LDA-DP or Mul-LDA-DP release.
func LDAReport(o LDAReportInput, plan *lda.Plan, accts []*privacy.Accountant, ridge float64) (*privacy.Report, error) {
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
	if o.Output == mullda.RealProjections {
		ro.NotCovered = append(ro.NotCovered,
			"the published projections X·W: every row is the projection of a real record with its real label (the paper's Algorithm 1 step 9 / Algorithm 2 step 17); the paper's 'underdetermined system' argument is not a differential-privacy argument, so these rows are NOT covered by DP",
			"the number of records of each owner (one projection per record)")
		ro.NotDP = "the published projections X·W are those of the real records, with their real labels"
	} else {
		ro.Covered = append(ro.Covered, "the published labelled projections: drawn from the DP class-conditional Gaussians N(Wᵀμ_k, WᵀΣW) with Σ = S_w/(N − C), as many per class as the DP count says (post-processing)")
	}
	ro.ThreatModel = ldaThreatModel(o, plan)
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

func ldaThreatModel(o LDAReportInput, plan *lda.Plan) []string {
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
