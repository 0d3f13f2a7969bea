package marginal

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/infer"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/randx"
)

// Party is one data owner of a vertical partition: the attributes it holds
// and the zCDP budget ρ_k it demands for them.
type Party struct {
	Name  string
	Rho   float64
	Attrs []int
}

// Options configure Synthesize (Algorithm 3).
type Options struct {
	// Domain discretises the attributes (required).
	Domain *domain.Domain
	// Parties partition the domain's attributes (required; one party for
	// a single owner).
	Parties []Party
	// Records is the public record count n (required): the true count
	// under replace-one, the released noisy one (ReleaseCount) under
	// add/remove.
	Records int
	// Neighbours is the neighbouring relation every release's sensitivity
	// follows (default replace-one; add/remove for one party only).
	Neighbours dp.Neighbours
	// Split divides every ρ_k between the stages (default PaperSplit).
	Split Split
	// Score is the pair score (default IInDif, the paper's).
	Score measurement.ScoreKind
	// Noise of the one-way marginals (default Laplace, as the paper), of
	// the scores and of the selected marginals (default Gaussian).
	OneWayNoise, ScoreNoise, MarginalNoise measurement.Mechanism
	// Mu is the paper's ratio μ ∈ [0, 1) in Algorithm 2: the error model
	// assumes (1 − μ)·ρ_3^k for measuring party k's pairs (default 0).
	Mu float64
	// Combine configures marginal combination.
	Combine CombineOptions
	// ConsistencyRounds alternate consistency and non-negativity
	// (default 3).
	ConsistencyRounds int
	// GUM configures the synthesis; Rows defaults to Records and Source to
	// the Options' Source.
	GUM infer.GUMOptions
	// Method chooses what to measure (default MethodPaper).
	Method Method
	// Adaptive configures MethodAdaptive.
	Adaptive AdaptiveOptions
	// Inference chooses how MethodPaper turns its noisy marginals into
	// records (default InferenceGUM); MethodAdaptive always uses
	// InferencePGM.
	Inference Inference
	// PGMIters is the number of mirror-descent steps of InferencePGM on
	// the paper path (default 500).
	PGMIters int
	// Source drives the post-processing randomness (GUM). The noise comes
	// from the Measurer's own source. Default randx.NewSecure().
	Source *randx.Source
	// Progress, if set, reports each stage: its name, steps done, total.
	Progress func(stage string, done, total int)
}

// Planned is one release of the plan and what it measured.
type Planned struct {
	Attrs   []int
	Release measurement.Release
}

// Result is what Synthesize produced and how.
type Result struct {
	// Data is the synthetic dataset, discretised; Domain.DecodeRows maps
	// it back to the schema. It holds Rows records, or fewer when
	// GUMOptions.Fit capped the records fitted: record r of the synthetic
	// table is then Data's record r mod Data.Len().
	Data *domain.Dataset
	// Rows is the number of synthetic records (GUMOptions.Rows).
	Rows int
	// OneWays are the published noisy one-way marginals (raw).
	OneWays []*infer.Noisy
	// Candidates are all attribute pairs with their published noisy scores
	// and the party whose I_k holds them.
	Candidates []Candidate
	// Selection is Algorithm 2's outcome over Candidates.
	Selection Selection
	// Measured are the combined attribute sets measured with ρ_3, raw.
	Measured []*infer.Noisy
	// Targets are the post-processed marginals GUM matched.
	Targets []*infer.Noisy
	// Model is the graphical model the records were sampled from
	// (InferencePGM and MethodAdaptive).
	Model *infer.Model
	// Rounds lists the adaptive method's rounds.
	Rounds []Round
	// Optimizer is how the adaptive method fitted its model (OptimizerAuto
	// resolved; empty for the paper method).
	Optimizer Optimizer
	// ErrorBars has the analytic noise error of every distinct measured
	// attribute set (the published marginals), Workload the summary over
	// the workload (the adaptive method's; every pair for the paper's).
	ErrorBars []ErrorBar
	Workload  WorkloadError
	// Plan lists every release in order: one-ways, scores, marginals.
	Plan []Planned
	// Timings per stage.
	Timings Timings
}

// Timings is the wall time of each stage.
type Timings struct {
	OneWays, Scores, Select, Marginals, PostProcess, GUM time.Duration
}

func (o *Options) defaults() error {
	if o.Split == (Split{}) {
		o.Split = PaperSplit
	}
	if o.Score == "" {
		o.Score = measurement.IInDif
	}
	if o.OneWayNoise == "" {
		o.OneWayNoise = measurement.Laplace
	}
	if o.ScoreNoise == "" {
		o.ScoreNoise = measurement.Gaussian
	}
	if o.MarginalNoise == "" {
		o.MarginalNoise = measurement.Gaussian
	}
	if o.Combine.MaxCells == 0 {
		o.Combine.MaxCells = DefaultMaxCells
	}
	if o.Method == "" {
		o.Method = MethodPaper
	}
	if o.Inference == "" {
		o.Inference = InferenceGUM
	}
	if o.Source == nil {
		o.Source = randx.NewSecure()
	}
	if o.GUM.Rows == 0 {
		o.GUM.Rows = o.Records
	}
	if o.GUM.Source == nil {
		o.GUM.Source = o.Source
	}
	return o.validate()
}

func (o *Options) validate() error {
	switch {
	case o.Domain == nil:
		return fmt.Errorf("marginal: synthesize needs a domain")
	case o.Records < 1:
		return fmt.Errorf("marginal: record count %d must be positive", o.Records)
	case !(o.Mu >= 0 && o.Mu < 1):
		return fmt.Errorf("marginal: mu = %v, need [0, 1)", o.Mu)
	case o.Combine.MaxCells < 1:
		return fmt.Errorf("marginal: max cells %d must be positive", o.Combine.MaxCells)
	case scoreKinds.Check(o.Score) != nil:
		return scoreKinds.Check(o.Score)
	case methods.Check(o.Method) != nil:
		return methods.Check(o.Method)
	case inferences.Check(o.Inference) != nil:
		return inferences.Check(o.Inference)
	case o.GUM.Rows < 1 || o.GUM.Rows > math.MaxInt32 || o.GUM.Fit < 0:
		return fmt.Errorf("marginal: synthetic rows = %d (fitting %d)", o.GUM.Rows, o.GUM.Fit)
	}
	if err := o.Split.Validate(); err != nil {
		return err
	}
	if err := o.Neighbours.Check(); err != nil {
		return fmt.Errorf("marginal: %w", err)
	}
	if !o.Neighbours.PublicCount() && len(o.Parties) != 1 {
		return fmt.Errorf("marginal: add/remove neighbours need one party holding every column (a record added adds values to every party's columns), got %d parties", len(o.Parties))
	}
	for _, m := range []measurement.Mechanism{o.OneWayNoise, o.ScoreNoise, o.MarginalNoise} {
		if _, err := dp.ParseMechanism(string(m)); err != nil {
			return fmt.Errorf("marginal: %w", err)
		}
	}
	_, err := o.owners()
	return err
}

// owners maps every attribute to its party, checking that the parties
// partition the attributes.
func (o *Options) owners() ([]int, error) {
	if len(o.Parties) == 0 {
		return nil, fmt.Errorf("marginal: no parties")
	}
	owner := make([]int, o.Domain.Len())
	for j := range owner {
		owner[j] = -1
	}
	names := map[string]bool{}
	for k, p := range o.Parties {
		if p.Name == "" || names[p.Name] {
			return nil, fmt.Errorf("marginal: party %d has an empty or repeated name %q", k, p.Name)
		}
		names[p.Name] = true
		if err := dp.CheckRho(p.Rho); err != nil {
			return nil, fmt.Errorf("marginal: party %q: %w", p.Name, err)
		}
		if len(p.Attrs) == 0 {
			return nil, fmt.Errorf("marginal: party %q holds no attribute", p.Name)
		}
		for _, j := range p.Attrs {
			if j < 0 || j >= len(owner) {
				return nil, fmt.Errorf("marginal: party %q names attribute %d of %d", p.Name, j, len(owner))
			}
			if owner[j] >= 0 {
				return nil, fmt.Errorf("marginal: attribute %q belongs to both %q and %q", o.Domain.Name(j), o.Parties[owner[j]].Name, p.Name)
			}
			owner[j] = k
		}
	}
	for j, k := range owner {
		if k < 0 {
			return nil, fmt.Errorf("marginal: attribute %q belongs to no party", o.Domain.Name(j))
		}
	}
	return owner, nil
}

// noiseRho is the ρ at which a replace-one count release carries the
// noise this run's count releases carry at rho: rho itself under
// replace-one, 2·rho under add/remove (L2 sensitivity 1 against √2). The
// adaptive defaults' rules on noise (DefaultRounds, precise) are written
// for replace-one and read it, so they follow the relation.
func (o *Options) noiseRho(rho float64) float64 {
	_, l2 := measurement.CountSensitivity(o.Neighbours)
	return rho * (measurement.CountL2 / l2) * (measurement.CountL2 / l2)
}

// stageBudgets returns every party's budget for one stage.
func (o *Options) stageBudgets(share float64) []float64 {
	b := make([]float64, len(o.Parties))
	for k, p := range o.Parties {
		b[k] = share * p.Rho
	}
	return b
}

// Synthesize runs Algorithm 3 against m: noisy one-way marginals (ρ_1),
// noisy pair scores and Algorithm 2's selection (ρ_2), marginal
// combination, the combined marginals (ρ_3), post-processing and GUM.
// Every noisy value comes from m, which charges the parties; everything
// after is post-processing.
func Synthesize(ctx context.Context, m measurement.Measurer, o Options) (*Result, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	owner, _ := o.owners()
	e := &engine{o: o, m: m, owner: owner, res: &Result{Rows: o.GUM.Rows}}
	if o.Method == MethodAdaptive {
		if err := e.runAdaptive(ctx); err != nil {
			return nil, err
		}
		e.errorBars(e.o.Adaptive.Workload)
		return e.res, nil
	}
	steps := []struct {
		run  func(context.Context) error
		time *time.Duration
	}{
		{e.oneWays, &e.res.Timings.OneWays},
		{e.scores, &e.res.Timings.Scores},
		{e.selectPairs, &e.res.Timings.Select},
		{e.marginals, &e.res.Timings.Marginals},
		{e.postProcess, &e.res.Timings.PostProcess},
		{e.gum, &e.res.Timings.GUM},
	}
	for _, s := range steps {
		start := time.Now()
		if err := s.run(ctx); err != nil {
			return nil, err
		}
		*s.time = time.Since(start)
	}
	e.errorBars(allPairs(e.o.Domain.Len()))
	return e.res, nil
}

// errorBars fills the result's error bars from every noisy marginal.
func (e *engine) errorBars(workload [][]int) {
	ms := append(slices.Clone(e.res.OneWays), e.res.Measured...)
	var sets [][]int
	seen := map[string]bool{}
	for _, m := range ms {
		if m != nil && !seen[m.Key()] {
			seen[m.Key()] = true
			sets = append(sets, m.Attrs)
		}
	}
	ms = slices.DeleteFunc(ms, func(m *infer.Noisy) bool { return m == nil })
	sizes := e.o.Domain.Sizes()
	e.res.ErrorBars = errorBars(sizes, ms, sets, e.o.Records)
	e.res.Workload = summarise(errorBars(sizes, ms, normaliseAll(workload), e.o.Records))
}

type engine struct {
	o     Options
	m     measurement.Measurer
	owner []int
	res   *Result
	refs  [][]float64 // post-processed one-way counts, per attribute
}

func (e *engine) progress(stage string, done, total int) {
	if e.o.Progress != nil {
		e.o.Progress(stage, done, total)
	}
}

func (e *engine) measure(ctx context.Context, attrs []int, r measurement.Release) (*infer.Noisy, error) {
	out, err := e.measureAll(ctx, [][]int{attrs}, []measurement.Release{r})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// measureAll measures independent releases: in one batch when the
// measurer is a Batcher, else one by one, in order either way.
func (e *engine) measureAll(ctx context.Context, sets [][]int, rs []measurement.Release) ([]*infer.Noisy, error) {
	mgs := make([]*domain.Marginal, len(sets))
	sorted := make([][]int, len(sets))
	for i, attrs := range sets {
		mg, err := domain.NewMarginal(e.o.Domain.Sizes(), attrs)
		if err != nil {
			return nil, err
		}
		mgs[i], sorted[i] = mg, mg.Attrs
	}
	var counts [][]float64
	if b, ok := e.m.(measurement.Batcher); ok && len(sets) > 1 {
		var err error
		if counts, err = b.Marginals(ctx, sorted, rs); err != nil {
			return nil, fmt.Errorf("marginal: measuring %s and %d more: %w", rs[0].Purpose, len(rs)-1, err)
		}
		if len(counts) != len(sets) {
			return nil, fmt.Errorf("marginal: measurer returned %d marginals, want %d", len(counts), len(sets))
		}
	} else {
		for i, attrs := range sorted {
			c, err := e.m.Marginal(ctx, attrs, rs[i])
			if err != nil {
				return nil, fmt.Errorf("marginal: measuring %s: %w", rs[i].Purpose, err)
			}
			counts = append(counts, c)
		}
	}
	out := make([]*infer.Noisy, len(sets))
	for i, mg := range mgs {
		if len(counts[i]) != mg.Cells() {
			return nil, fmt.Errorf("marginal: measurer returned %d cells for %s, want %d", len(counts[i]), rs[i].Purpose, mg.Cells())
		}
		mg.Counts = counts[i]
		e.res.Plan = append(e.res.Plan, Planned{Attrs: mg.Attrs, Release: rs[i]})
		out[i] = &infer.Noisy{Marginal: mg, Variance: rs[i].Noise.Variance()}
	}
	return out, nil
}

func (e *engine) names(attrs []int) string {
	s := ""
	for k, a := range attrs {
		if k > 0 {
			s += " × "
		}
		s += e.o.Domain.Name(a)
	}
	return s
}

// oneWays is Algorithm 3, step 3: each party publishes the one-way
// marginal of each of its attributes, splitting ρ_1^k evenly among them.
func (e *engine) oneWays(ctx context.Context) error {
	d := e.o.Domain.Len()
	e.res.OneWays = make([]*infer.Noisy, d)
	e.refs = make([][]float64, d)
	var sets [][]int
	var rs []measurement.Release
	for k, p := range e.o.Parties {
		rho := e.o.Split.OneWay * p.Rho / float64(len(p.Attrs))
		noise, err := measurement.CountNoise(e.o.OneWayNoise, e.o.Neighbours, rho)
		if err != nil {
			return err
		}
		for _, j := range p.Attrs {
			sets = append(sets, []int{j})
			rs = append(rs, measurement.Release{Purpose: "one-way marginal " + e.o.Domain.Name(j), Parties: []int{k}, Noise: noise})
		}
	}
	ms, err := e.measureAll(ctx, sets, rs)
	if err != nil {
		return err
	}
	for i, nm := range ms {
		j := sets[i][0]
		e.res.OneWays[j] = nm
		ref := append([]float64(nil), nm.Counts...)
		infer.NormSub(ref, float64(e.o.Records))
		e.refs[j] = ref
		e.progress("one-way marginals", i+1, d)
	}
	return nil
}

// scores measures every pair's dependency score with ρ_2, each pair
// charged to the parties of its two attributes.
func (e *engine) scores(ctx context.Context) error {
	d := e.o.Domain.Len()
	var cands []Candidate
	var parties [][]int
	for a := range d {
		for b := a + 1; b < d; b++ {
			c, _ := e.o.Domain.Cells([]int{a, b})
			cands = append(cands, Candidate{A: a, B: b, Cells: c})
			parties = append(parties, partiesOf(e.owner, []int{a, b}))
		}
	}
	if len(cands) == 0 {
		return nil
	}
	weights := make([]float64, len(cands))
	for i := range weights {
		weights[i] = 1
	}
	rhos, err := allocate(e.o.stageBudgets(e.o.Split.Scores), parties, weights)
	if err != nil {
		return err
	}
	sens := measurement.ScoreSensitivity(e.o.Score, e.o.Neighbours)
	budgets3 := e.selectBudgets()
	qs := make([]measurement.ScoreQuery, len(cands))
	rs := make([]measurement.Release, len(cands))
	for i := range cands {
		c := &cands[i]
		noise, err := measurement.Calibrate(e.o.ScoreNoise, sens, sens, rhos[i])
		if err != nil {
			return err
		}
		rs[i] = measurement.Release{Purpose: fmt.Sprintf("%s score %s", e.o.Score, e.names([]int{c.A, c.B})), Parties: parties[i], Noise: noise}
		qs[i] = measurement.ScoreQuery{Kind: e.o.Score, A: c.A, B: c.B, RefA: e.refs[c.A], RefB: e.refs[c.B], N: e.o.Records}
	}
	scores, err := e.scoreAll(ctx, qs, rs)
	if err != nil {
		return err
	}
	for i := range cands {
		c := &cands[i]
		e.res.Plan = append(e.res.Plan, Planned{Attrs: []int{c.A, c.B}, Release: rs[i]})
		c.Score = scores[i]
		c.Owner = ownerOf(c.A, c.B, e.owner, budgets3)
		e.progress("pair scores", i+1, len(cands))
	}
	e.res.Candidates = cands
	return nil
}

// scoreAll measures independent scores, in one batch when the measurer
// is a Batcher.
func (e *engine) scoreAll(ctx context.Context, qs []measurement.ScoreQuery, rs []measurement.Release) ([]float64, error) {
	if b, ok := e.m.(measurement.Batcher); ok && len(qs) > 1 {
		out, err := b.Scores(ctx, qs, rs)
		if err != nil {
			return nil, fmt.Errorf("marginal: measuring %s and %d more: %w", rs[0].Purpose, len(rs)-1, err)
		}
		if len(out) != len(qs) {
			return nil, fmt.Errorf("marginal: measurer returned %d scores, want %d", len(out), len(qs))
		}
		return out, nil
	}
	out := make([]float64, len(qs))
	for i, q := range qs {
		s, err := e.m.Score(ctx, q, rs[i])
		if err != nil {
			return nil, fmt.Errorf("marginal: measuring %s: %w", rs[i].Purpose, err)
		}
		out[i] = s
	}
	return out, nil
}

func (e *engine) selectBudgets() []float64 {
	return e.o.stageBudgets(e.o.Split.Marginals * (1 - e.o.Mu))
}

func (e *engine) selectPairs(context.Context) error {
	if len(e.res.Candidates) == 0 {
		return nil
	}
	_, l2 := measurement.CountSensitivity(e.o.Neighbours)
	sel, err := selectPairs(selectOptions{Candidates: e.res.Candidates, Budgets: e.selectBudgets(), L2: l2})
	if err != nil {
		return err
	}
	e.res.Selection = sel
	return nil
}

// measureSets returns the attribute sets measured with ρ_3: the selected
// pairs combined under the cap, plus the one-way marginal of every
// attribute no set covers (so ρ_3 is never left idle).
func (e *engine) measureSets() ([][]int, error) {
	var pairs [][2]int
	for _, i := range e.res.Selection.Chosen {
		c := e.res.Candidates[i]
		pairs = append(pairs, [2]int{c.A, c.B})
	}
	sets, err := combine(pairs, e.o.Domain.Sizes(), e.o.Combine)
	if err != nil {
		return nil, err
	}
	covered := make([]bool, e.o.Domain.Len())
	for _, s := range sets {
		for _, a := range s {
			covered[a] = true
		}
	}
	for j, c := range covered {
		if !c {
			sets = append(sets, []int{j})
		}
	}
	return sets, nil
}

// marginals is Algorithm 3, steps 5-6.
func (e *engine) marginals(ctx context.Context) error {
	sets, err := e.measureSets()
	if err != nil {
		return err
	}
	parties := make([][]int, len(sets))
	weights := make([]float64, len(sets))
	for i, s := range sets {
		c, ok := e.o.Domain.Cells(s)
		if !ok {
			return fmt.Errorf("marginal: set %v is too large", s)
		}
		parties[i] = partiesOf(e.owner, s)
		weights[i] = math.Pow(float64(c), 2.0/3)
	}
	rhos, err := allocate(e.o.stageBudgets(e.o.Split.Marginals), parties, weights)
	if err != nil {
		return err
	}
	rs := make([]measurement.Release, len(sets))
	for i, s := range sets {
		noise, err := measurement.CountNoise(e.o.MarginalNoise, e.o.Neighbours, rhos[i])
		if err != nil {
			return err
		}
		rs[i] = measurement.Release{Purpose: "marginal " + e.names(s), Parties: parties[i], Noise: noise}
	}
	ms, err := e.measureAll(ctx, sets, rs)
	if err != nil {
		return err
	}
	for i, nm := range ms {
		e.res.Measured = append(e.res.Measured, nm)
		e.progress("marginals", i+1, len(sets))
	}
	return nil
}

// postProcess merges each published one-way marginal with a re-measured
// one of the same attribute, then makes everything consistent and
// non-negative.
func (e *engine) postProcess(context.Context) error {
	var targets []*infer.Noisy
	measuredOne := map[int]*infer.Noisy{}
	for _, m := range e.res.Measured {
		if len(m.Attrs) == 1 {
			measuredOne[m.Attrs[0]] = m
		}
	}
	for j, ow := range e.res.OneWays {
		t := &infer.Noisy{Marginal: ow.Marginal.Clone(), Variance: ow.Variance}
		if m, ok := measuredOne[j]; ok {
			var err error
			if t, err = infer.Merge(ow, m); err != nil {
				return err
			}
		}
		targets = append(targets, t)
	}
	for _, m := range e.res.Measured {
		if len(m.Attrs) > 1 {
			targets = append(targets, &infer.Noisy{Marginal: m.Marginal.Clone(), Variance: m.Variance})
		}
	}
	if err := infer.Consistent(targets, infer.ConsistencyOptions{Total: float64(e.o.Records), Rounds: e.o.ConsistencyRounds}); err != nil {
		return err
	}
	e.res.Targets = targets
	return nil
}

func (e *engine) gum(ctx context.Context) error {
	if e.o.Inference == InferencePGM {
		return e.pgm(ctx)
	}
	targets := make([]*domain.Marginal, len(e.res.Targets))
	for i, t := range e.res.Targets {
		targets[i] = t.Marginal
	}
	g := e.o.GUM
	user := g.Progress
	g.Progress = func(done, total int) {
		e.progress("GUM rounds", done, total)
		if user != nil {
			user(done, total)
		}
	}
	ds, err := infer.GUM(ctx, e.o.Domain.Sizes(), targets, g)
	if err != nil {
		return err
	}
	e.res.Data = ds
	return nil
}

// pgm fits a graphical model to the raw noisy one-way and selected
// marginals (Estimate weighs each by its noise variance) and samples the
// records from it.
func (e *engine) pgm(ctx context.Context) error {
	ms := append(slices.Clone(e.res.OneWays), e.res.Measured...)
	model, err := infer.Estimate(ctx, e.o.Domain.Sizes(), ms, infer.EstimateOptions{Total: float64(e.o.Records), Iters: e.o.PGMIters})
	if err != nil {
		return err
	}
	e.res.Model = model
	e.res.Data, err = model.Sample(e.o.GUM.Fitted(), e.o.Source)
	return err
}

// partiesOf returns the sorted distinct parties owning attrs.
func partiesOf(owner []int, attrs []int) []int {
	var ps []int
	for _, a := range attrs {
		if !slices.Contains(ps, owner[a]) {
			ps = append(ps, owner[a])
		}
	}
	slices.Sort(ps)
	return ps
}
