package crdp

import (
	"fmt"
	"math"
	"slices"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method/mpcrdp/correlation"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// PartyFeatures names one party's features.
type PartyFeatures struct {
	Name     string
	Features []string
}

// PartyAnalysis is what a party reports of its local correlation analysis
// at the initial threshold w0 (Algorithm 1, line 3).
type PartyAnalysis struct {
	Party       string
	Sensitivity float64 // ΔCS_n
	K           int     // records correlated with the record attaining ΔCS_n
	MeanDegree  float64 // ΔCS_n/K_n
}

// LocalAnalysis runs a party's correlation analysis over its features of t.
func LocalAnalysis(party string, t *data.Table, features []string, w0 float64, bins int) (PartyAnalysis, *correlation.Result, error) {
	codes, err := correlation.Discretize(t, features, correlation.DiscretizeOptions{Bins: bins})
	if err != nil {
		return PartyAnalysis{}, nil, fmt.Errorf("mpcrdp: party %s: %w", party, err)
	}
	r, err := correlation.Analyze(codes, correlation.Options{Threshold: w0})
	if err != nil {
		return PartyAnalysis{}, nil, fmt.Errorf("mpcrdp: party %s: %w", party, err)
	}
	return PartyAnalysis{Party: party, Sensitivity: r.Sensitivity, K: r.K, MeanDegree: r.MeanDegree}, r, nil
}

// NamedCondition fixes a feature to a value: a category name, or for a
// numeric feature a number, meaning the equal-width bin holding it.
type NamedCondition struct{ Feature, Value string }

// NamedQuery is a count query by feature names.
type NamedQuery []NamedCondition

// PipelineOptions configure NewPipeline.
type PipelineOptions struct {
	// Table holds the merged records (every party's features and the
	// label, rows aligned by ID); n is public.
	Table   *data.Table
	Label   string
	Parties []PartyFeatures
	// Analyses are the parties' local analyses, in party order.
	Analyses []PartyAnalysis
	Config   Config
	// QuerySet is the count-query set of a queries release (nil: Config.
	// NumQueries generated queries).
	QuerySet []NamedQuery
	Source   *randx.Source
}

// Step is one step of the pipeline: its Charges (none for a step without
// noise) must be approved, i.e. spent, before Run.
type Step struct {
	Name    string
	Charges []privacy.Charge
}

// Sensitivities are the correlation analyses of the released features.
type Sensitivities struct {
	// At the initial threshold w0: ΔGS (Group DP), ΔCS and its K
	// (Correlated DP), and the records with a correlated partner.
	GroupSensitivity int
	Sensitivity      float64
	K                int
	Correlated       int
	// At w0 = MCD: ΔCS_p and its K.
	SensitivityP float64
	KP           int
	CorrelatedP  int
}

// Factor is the sensitivity factor of a notion (groupBound > 0 replaces
// the measured ΔGS).
func (s Sensitivities) Factor(n Notion, groupBound int) float64 {
	switch n {
	case Group:
		if groupBound > 0 {
			return float64(groupBound)
		}
		return float64(s.GroupSensitivity)
	case Correlated:
		return s.Sensitivity
	case MPCRDP:
		return s.SensitivityP
	}
	return 1
}

// Result is what the pipeline selected and released.
type Result struct {
	MCD      float64
	Analyses []PartyAnalysis
	// Removed are the features dropped by cleaning (paper calibration).
	Removed []string
	// Scores are the (noisy) stability scores; Best (β) and Adjusted (α)
	// are the sets after the redundancy step.
	Scores     map[string]float64
	Best       []string
	Adjusted   []string
	Redundancy []PairDecision
	// Candidates are MP-OP's groups, Utilities their scores (sensitivity
	// UtilitySensitivity), Chosen the index picked (−1: none).
	Candidates         [][]string
	Utilities          []float64
	UtilitySensitivity float64
	Chosen             int
	// Final is β plus the chosen candidate, in the merged table's order.
	Final         []string
	Sensitivities Sensitivities
	// Factor is the release notion's sensitivity factor.
	Factor float64
	// Output is the release (nil for NoRelease).
	Output *Output
}

// Pipeline runs MP-FS, MP-OP and the release step by step.
type Pipeline struct {
	cfg      Config
	budget   Budget
	src      *randx.Source
	noise    *dp.Noiser
	table    *data.Table
	label    string
	y        []int
	classes  int
	parties  []PartyFeatures
	features []string
	codes    *correlation.Codes
	unit     *mat.Dense // features encoded by data.Encoder
	enc      *data.Encoder
	querySet []NamedQuery
	res      Result
	stages   []stage
	next     int
	ready    bool
	sensDone bool
}

type stage struct {
	name    string
	prepare func() ([]privacy.Charge, error)
	run     func() error
}

// NewPipeline validates the options and prepares the data (discretised
// codes and the [0, 1] encoding of every feature).
func NewPipeline(o PipelineOptions) (*Pipeline, error) {
	if err := o.Config.Validate(); err != nil {
		return nil, err
	}
	if o.Table == nil || o.Table.Len() < 2*o.Config.Runs {
		return nil, fmt.Errorf("mpcrdp: need a merged table with at least %d records (2 per stability run)", 2*o.Config.Runs)
	}
	if o.Source == nil {
		return nil, fmt.Errorf("mpcrdp: no randomness source")
	}
	if len(o.Parties) == 0 || len(o.Analyses) != len(o.Parties) {
		return nil, fmt.Errorf("mpcrdp: %d parties with %d local analyses", len(o.Parties), len(o.Analyses))
	}
	p := &Pipeline{cfg: o.Config, budget: o.Config.Split(len(o.Parties)), src: o.Source,
		noise: dp.NewNoiser(o.Source), table: o.Table, label: o.Label, parties: o.Parties, querySet: o.QuerySet}
	if err := p.readLabel(); err != nil {
		return nil, err
	}
	for _, pf := range o.Parties {
		if len(pf.Features) == 0 {
			return nil, fmt.Errorf("mpcrdp: party %s has no features", pf.Name)
		}
		p.features = append(p.features, pf.Features...)
	}
	if slices.Contains(p.features, o.Label) {
		return nil, fmt.Errorf("mpcrdp: label %q is also a feature", o.Label)
	}
	var err error
	if p.codes, err = correlation.Discretize(o.Table, p.features, correlation.DiscretizeOptions{Bins: o.Config.Bins}); err != nil {
		return nil, fmt.Errorf("mpcrdp: %w", err)
	}
	if p.enc, p.unit, err = EncodeFeatures(o.Table, p.features); err != nil {
		return nil, err
	}
	mcd := 0.0
	for _, a := range o.Analyses {
		mcd += a.MeanDegree
	}
	p.res = Result{MCD: mcd / float64(len(o.Analyses)), Analyses: slices.Clone(o.Analyses), Scores: map[string]float64{}, Chosen: -1}
	if !(p.res.MCD > 0 && p.res.MCD <= 1) {
		return nil, fmt.Errorf("mpcrdp: MCD = %v outside (0, 1]", p.res.MCD)
	}
	p.plan()
	return p, nil
}

// EncodeFeatures encodes the named attributes into [0, 1] with data.Encoder
// (numeric by declared bounds, categorical one-hot), in the given order.
func EncodeFeatures(t *data.Table, features []string) (*data.Encoder, *mat.Dense, error) {
	s, err := t.Schema.Select(features...)
	if err != nil {
		return nil, nil, fmt.Errorf("mpcrdp: %w", err)
	}
	enc, err := data.NewEncoder(s, data.EncoderOptions{})
	if err != nil {
		return nil, nil, fmt.Errorf("mpcrdp: %w", err)
	}
	X, _, err := enc.Encode(t)
	if err != nil {
		return nil, nil, fmt.Errorf("mpcrdp: %w", err)
	}
	return enc, X, nil
}

func (p *Pipeline) readLabel() error {
	a, err := p.table.Schema.Attribute(p.label)
	if err != nil {
		return fmt.Errorf("mpcrdp: label: %w", err)
	}
	if a.Kind == data.Numeric || len(a.Categories) != 2 {
		return fmt.Errorf("mpcrdp: label %q must be binary (LR and SVM are binary classifiers)", p.label)
	}
	col, _ := p.table.Column(p.label)
	p.y = make([]int, len(col))
	for i, v := range col {
		p.y[i] = int(v)
	}
	p.classes = 2
	return nil
}

func (p *Pipeline) plan() {
	if p.cfg.Calibration == Paper {
		p.stages = append(p.stages, stage{name: "clean", prepare: noCharge, run: p.clean})
	}
	for k := range p.parties {
		p.stages = append(p.stages, stage{name: "stability selection of " + p.parties[k].Name,
			prepare: func() ([]privacy.Charge, error) { return p.stabilityCharges(k), nil },
			run:     func() error { return p.stability(k) }})
	}
	p.stages = append(p.stages,
		stage{name: "redundancy", prepare: p.redundancyCharges, run: p.redundancy},
		stage{name: "candidate selection", prepare: p.selectionCharges, run: p.selectCandidate})
	if p.cfg.Release != NoRelease {
		p.stages = append(p.stages, stage{name: "release", prepare: p.releaseCharges, run: p.release})
	}
}

func noCharge() ([]privacy.Charge, error) { return nil, nil }

// Next prepares the next step and returns it, or nil when all are done.
func (p *Pipeline) Next() (*Step, error) {
	if p.ready {
		return nil, fmt.Errorf("mpcrdp: step %q prepared twice without Run", p.stages[p.next].name)
	}
	if p.next == len(p.stages) {
		return nil, nil
	}
	s := p.stages[p.next]
	charges, err := s.prepare()
	if err != nil {
		return nil, fmt.Errorf("mpcrdp: %s: %w", s.name, err)
	}
	p.ready = true
	return &Step{Name: s.name, Charges: charges}, nil
}

// Run executes the prepared step; its charges must have been spent.
func (p *Pipeline) Run() error {
	if !p.ready {
		return fmt.Errorf("mpcrdp: Run without a prepared step")
	}
	s := p.stages[p.next]
	p.ready = false
	p.next++
	if err := s.run(); err != nil {
		return fmt.Errorf("mpcrdp: %s: %w", s.name, err)
	}
	return nil
}

// RunAll runs every step, spending each step's charges with spend first.
func (p *Pipeline) RunAll(spend func(Step) error) error {
	for {
		s, err := p.Next()
		if err != nil || s == nil {
			return err
		}
		if len(s.Charges) > 0 {
			if err := spend(*s); err != nil {
				return err
			}
		}
		if err := p.Run(); err != nil {
			return err
		}
	}
}

// Done reports whether every step has run.
func (p *Pipeline) Done() bool { return p.next == len(p.stages) }

// Result returns the outcome so far (complete once Done).
func (p *Pipeline) Result() *Result { return &p.res }

// clean drops features whose most frequent code covers MaxDominantShare
// of the records (Algorithm 1, line 2). Not DP.
func (p *Pipeline) clean() error {
	n := p.codes.Len()
	for f, name := range p.codes.Features() {
		counts := make([]int, p.codes.Levels()[f])
		for i := range n {
			counts[p.codes.Row(i)[f]]++
		}
		if float64(slices.Max(counts)) >= p.cfg.MaxDominantShare*float64(n) {
			p.res.Removed = append(p.res.Removed, name)
		}
	}
	return nil
}

// partyFeatures are party k's features that survived cleaning.
func (p *Pipeline) partyFeatures(k int) []string {
	var out []string
	for _, f := range p.parties[k].Features {
		if !slices.Contains(p.res.Removed, f) {
			out = append(out, f)
		}
	}
	return out
}

func (p *Pipeline) stabilityCharges(k int) []privacy.Charge {
	m := len(p.partyFeatures(k))
	if p.cfg.Calibration != Sound || m == 0 {
		return nil
	}
	eps := p.budget.StabilityPerParty
	return []privacy.Charge{{
		Purpose: fmt.Sprintf("MP-FS stability selection of %s: selection counts of its %d features over %d disjoint blocks",
			p.parties[k].Name, m, p.cfg.Runs),
		Spec:        dp.Spec{Mechanism: "laplace", Norm: "L1", Sensitivity: float64(m), Scale: float64(m) / eps, Guarantee: dp.Pure(eps)},
		Calibration: string(Sound),
		Note:        "subsample-and-aggregate: a record lies in one block, so it changes at most one run, i.e. each of the M counts by at most 1",
	}}
}

// stability scores party k's features and splits them into β and α.
func (p *Pipeline) stability(k int) error {
	feats := p.partyFeatures(k)
	if len(feats) == 0 {
		return nil
	}
	var cols []int
	groups := make([][]int, len(feats))
	for f, name := range feats {
		c, err := p.enc.Columns(name)
		if err != nil {
			return err
		}
		for _, j := range c {
			groups[f] = append(groups[f], len(cols))
			cols = append(cols, j)
		}
	}
	in := StabilityInput{X: NewSparse(p.unit, nil, cols), Groups: groups, Y: p.y}
	sound := p.cfg.Calibration == Sound
	counts, err := StabilityCounts(in, p.cfg.Runs, sound, p.cfg.LambdaRatio, p.src.Child())
	if err != nil {
		return err
	}
	noisy := make([]float64, len(counts))
	for f, c := range counts {
		noisy[f] = float64(c)
	}
	if sound {
		p.noise.ReleaseLaplace(float64(len(feats)), p.budget.StabilityPerParty, noisy)
	}
	for f, name := range feats {
		s := math.Min(1, math.Max(0, noisy[f]/float64(p.cfg.Runs)))
		p.res.Scores[name] = s
		if s >= p.cfg.ImportanceThreshold {
			p.res.Best = append(p.res.Best, name)
		} else {
			p.res.Adjusted = append(p.res.Adjusted, name)
		}
	}
	return nil
}

func (p *Pipeline) redundancyPlan() (*redundancyPlan, error) {
	feats := make([]pairFeature, len(p.res.Best))
	for k, name := range p.res.Best {
		j, err := p.table.Schema.Index(name)
		if err != nil {
			return nil, err
		}
		f := pairFeature{name: name, numeric: p.table.Schema.Attributes[j].Kind == data.Numeric, col: p.column(name)}
		if f.numeric {
			cols, _ := p.enc.Columns(name)
			f.unit = mat.Col(nil, cols[0], p.unit)
		}
		feats[k] = f
	}
	return newRedundancyPlan(feats, p.cfg.Calibration, p.budget.Pairs), nil
}

func (p *Pipeline) column(name string) column {
	f := slices.Index(p.codes.Features(), name)
	n := p.codes.Len()
	c := column{codes: make([]uint32, n), levels: p.codes.Levels()[f]}
	for i := range n {
		c.codes[i] = p.codes.Row(i)[f]
	}
	return c
}

func (p *Pipeline) redundancyCharges() ([]privacy.Charge, error) {
	plan, err := p.redundancyPlan()
	if err != nil {
		return nil, err
	}
	return plan.charges(p.cfg.Calibration, p.budget.Pairs, p.table.Len()), nil
}

// redundancy moves one feature of each highly correlated best pair to α
// (Algorithm 1, lines 20–28).
func (p *Pipeline) redundancy() error {
	plan, err := p.redundancyPlan()
	if err != nil || len(plan.pairs) == 0 {
		return err
	}
	coef := plan.coefficients(p.cfg.Calibration, p.budget.Pairs, p.noise)
	moved := map[string]bool{}
	for k, pr := range plan.pairs {
		a, b := plan.feats[pr[0]], plan.feats[pr[1]]
		d := PairDecision{A: a.name, B: b.name, Kind: "nmi", Value: coef[k]}
		if a.numeric && b.numeric {
			d.Kind = "pearson"
		}
		if math.Abs(coef[k]) >= p.cfg.PearsonThreshold && !moved[a.name] && !moved[b.name] {
			d.Moved = a.name
			if p.src.IntN(2) == 1 {
				d.Moved = b.name
			}
			moved[d.Moved] = true
		}
		p.res.Redundancy = append(p.res.Redundancy, d)
	}
	var best []string
	for _, f := range p.res.Best {
		if moved[f] {
			p.res.Adjusted = append(p.res.Adjusted, f)
		} else {
			best = append(best, f)
		}
	}
	p.res.Best = best
	p.res.Adjusted = p.inTableOrder(p.res.Adjusted)
	return nil
}

func (p *Pipeline) inTableOrder(names []string) []string {
	var out []string
	for _, f := range p.features {
		if slices.Contains(names, f) {
			out = append(out, f)
		}
	}
	return out
}
