package marginal

import (
	"cmp"
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
	// NoiseVariance is the variance of the noise every count release
	// really carries, as a multiple of its calibrated noise's (0: 1, the
	// calibrated noise itself). Owners of rows in insider-safe mode add
	// the coordinator's share on top of the calibrated total, (K+1)/K. The
	// adaptive defaults' rules on noise (DefaultRounds, precise) read it,
	// as one owner's read the noise its releases carry; nothing is
	// calibrated or charged differently.
	NoiseVariance float64
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
	if o.NoiseVariance != 0 && !(o.NoiseVariance >= 1 && !math.IsInf(o.NoiseVariance, 0)) {
		return fmt.Errorf("marginal: noise variance %v times the calibrated, need at least 1", o.NoiseVariance)
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

// noiseRho is the ρ at which a replace-one count release, calibrated
// and carrying only its calibrated noise, carries the noise this run's
// count releases really carry at rho: rho itself under replace-one, 2·rho
// under add/remove (L2 sensitivity 1 against √2), divided by
// NoiseVariance. The adaptive defaults' rules on noise (DefaultRounds,
// precise) are written for one owner's replace-one releases and read it,
// so they follow the relation and the noise mode.
func (o *Options) noiseRho(rho float64) float64 {
	_, l2 := measurement.CountSensitivity(o.Neighbours)
	return rho * (measurement.CountL2 / l2) * (measurement.CountL2 / l2) / cmp.Or(o.NoiseVariance, 1)
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
