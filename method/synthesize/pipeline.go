package synthesize

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/infer"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// Party is one party of a vertical partition: the attributes it
// holds and the zCDP budget ρ it demands for them.
type Party struct {
	Name       string
	Rho        float64
	Attributes []string
}

// Options configure a marginal-based synthesis (the PDP-MVDS
// engine) run in one process over one table holding every party's columns.
type Options struct {
	// Table holds the records; Encoded, instead, holds them already
	// discretised by a one-pass reader (one of the two is required).
	Table   *data.Table
	Encoded *Encoded
	// NoTable leaves Result.Synthetic nil: the caller decodes
	// the synthetic records chunk by chunk (domain.DecodeSources,
	// Domain.DecodeChunkInto with the result's DecodeSource), which gives
	// the same table without holding it whole.
	NoTable bool
	// Rho is the budget of the single owner when Parties is empty.
	Rho float64
	// Epsilon, if positive, states the single owner's budget as
	// (Epsilon, Delta)-DP instead: Rho becomes the largest ρ whose
	// Canonne–Kamath–Steinke conversion (dp.ZCDPEpsilon) gives Epsilon at
	// Delta (marginal.RhoFor). Rho must then be 0 and Parties empty.
	Epsilon float64
	// Method chooses what to measure: marginal.MethodPaper (the only one
	// for several parties), marginal.MethodAdaptive (AIM-style rounds, one
	// owner) or, by default, marginal.MethodAuto: the adaptive method for
	// one owner of at most marginal.AutoMaxAttributes attributes of at most
	// marginal.AutoMaxValues values on the public domain, unless a budget
	// that large makes the paper's as good at a fraction of the time
	// (autoMethod), the paper's otherwise (measured:
	// docs/results/synthesis/engine-choice.md).
	Method marginal.Method
	// Label names the attribute the data will be used to predict: the
	// adaptive method's default workload adds every triple holding it, and
	// the report warns when the synthetic label's relation to the other
	// columns is missing or mostly noise (marginal.LabelWarning).
	Label string
	// LabelCheckShare is the share of the single owner's ρ that measures
	// how well a classifier trained on the synthetic rows predicts Label
	// on the real records (LabelCheck): 0 means DefaultLabelCheckShare,
	// negative no check.
	LabelCheckShare float64
	// Workload lists attribute sets (by name) whose marginals the adaptive
	// method should make accurate (default marginal.DefaultWorkload: every
	// pair, every triple of binary attributes, and the label's triples).
	Workload [][]string
	// MaxModelCells caps the adaptive method's model (default
	// marginal.AdaptiveOptions.MaxCells); AdaptiveRounds is its T (default marginal.DefaultRounds).
	MaxModelCells  float64
	AdaptiveRounds int
	// Selection is the adaptive rounds' selection mechanism (default
	// measurement.SelectExponential).
	Selection measurement.SelectMechanism
	// Optimizer fits the adaptive method's model (default
	// marginal.OptimizerAuto).
	Optimizer marginal.Optimizer
	// Penalty is the adaptive score's expected measurement error
	// (default marginal.DefaultPenalty).
	Penalty marginal.Penalty
	// Parties partition the attributes, each with its own budget; empty
	// means one party "owner" holding all attributes at Rho.
	Parties []Party
	// Bins and BinsFor discretise numeric attributes over their declared
	// bounds (default domain.DefaultBins).
	Bins    int
	BinsFor map[string]int
	// BinShare is the share of the single owner's ρ spent choosing
	// numeric attributes' bins from the data (measurement.ChooseCuts, split
	// evenly among them): default DefaultBinShare with the adaptive method
	// and one owner; negative for the schema's equal-width bins (with the
	// public values split off: domain.PublicValueCuts).
	BinShare float64
	// ownBinRelease keeps every numeric attribute's bins on their own
	// release at BinShare even where the one-way order applies
	// (marginal.OneWayFirst): the order's baseline, for its tests.
	ownBinRelease bool
	// Refine says what the data-chosen bins are for (default
	// domain.DefaultRefine): measured by the engine, or only to draw
	// values inside the equal-width bins and point masses it measures.
	Refine domain.Refinement
	// Split of every ρ_k (default 0.1 / 0.1 / 0.8).
	Split marginal.Split
	// Score is the pair score (default the paper's IInDif).
	Score measurement.ScoreKind
	// OneWayNoise is the noise of the one-way marginals: default Gaussian,
	// a quarter of the paper's Laplace variance at the same ρ (Δ₂ = √2
	// against Δ₁ = 2 under replacement); measurement.Laplace is the paper's.
	OneWayNoise measurement.Mechanism
	// Combine configures marginal combination.
	Combine marginal.CombineOptions
	// Rounds of GUM (default 30) and Rows of synthetic data (default n).
	Rounds, Rows int
	// Delta is the δ at which each party's zCDP spend is also stated as
	// (ε, δ)-DP (default 1/n², at most 1e-5; under add/remove, where n is
	// private, dp.MaxDefaultDelta, and required with Epsilon).
	Delta float64
	// Neighbours is the neighbouring relation (default replace-one, n
	// public). Under add/remove (one owner only) the record count is
	// released first with measurement.DefaultCountShare of ρ
	// (measurement.ReleaseCount) and its noisy value stands for n everywhere:
	// the method auto picks, the bins, every normalisation, the default
	// number of synthetic rows and the report; every release's sensitivity
	// follows the relation.
	Neighbours dp.Neighbours
	// Source drives noise and post-processing (default randx.NewSecure()).
	Source *randx.Source
	// Progress reports the engine's stages.
	Progress func(stage string, done, total int)
}

// Result is the published table and what it cost.
type Result struct {
	// Method is the method that ran (MethodAuto resolved), Auto why
	// MethodAuto chose it (empty when the method was named).
	Method    marginal.Method
	Auto      string
	Synthetic *data.Table
	// Rows is the number of synthetic records; Engine.Data holds them, or
	// the first infer.DefaultFit of them when there are more (record r
	// is Engine.Data's record r mod its length).
	Rows int
	// DecodeSource is the randomness that decodes them (Synthetic was
	// decoded with it, unless NoTable).
	DecodeSource *randx.Source
	// Real is the owner's table discretised by Domain: for the owner's own
	// utility summary (exact counts, never published).
	Real    domain.Chunks
	Report  *privacy.Report
	Engine  *marginal.Result
	Domain  *domain.Domain
	Parties []Party
	// Rho is the single owner's zCDP budget the run used (from Epsilon
	// when one was given), BinRho the part of it spent choosing bins,
	// CountRho the part spent releasing the record count (add/remove).
	Rho, BinRho, CountRho float64
	// LabelCheck is the label's accuracy check, nil when none ran.
	LabelCheck *LabelCheck
	// Records is the record count the run used as public: the true n
	// under replace-one, the released noisy one under add/remove.
	Records int
	// Epsilon and Delta restate the budget when it was given as (ε, δ).
	Epsilon, Delta float64
	// Clamped counts values outside their declared bounds (not private:
	// for the data owner's eyes only).
	Clamped int
	Elapsed time.Duration
}

// EvenParties splits a schema's attributes, in column order, into len(rhos)
// contiguous groups of near-equal size, party k getting budget rhos[k].
func EvenParties(s data.Schema, rhos []float64) ([]Party, error) {
	k, d := len(rhos), len(s.Attributes)
	if k < 1 || k > d {
		return nil, fmt.Errorf("publish: cannot split %d attributes among %d parties", d, k)
	}
	groups, err := data.EvenColumnGroups(s.Names(), k)
	if err != nil {
		return nil, err
	}
	out := make([]Party, k)
	for p := range k {
		out[p] = Party{Name: fmt.Sprintf("party-%d", p+1), Rho: rhos[p], Attributes: groups[p]}
	}
	return out, nil
}

// Encoded is an owner's table discretised as it was read, with the domain
// DomainFor returns for the run's options: pieces (a one-pass
// reader's batches) and how many values were clamped to their declared
// bounds. Synthesize recodes the pieces in place to the bins it chooses
// and then merges identical rows (Chunks.Merged), replacing Chunks.
type Encoded struct {
	Domain  *domain.Domain
	Chunks  domain.Chunks
	Clamped int
}

// Synthesize publishes a synthetic table under personalised zCDP budgets.
func Publish(ctx context.Context, o Options) (*Result, error) {
	schema, n, err := inputShape(o)
	if err != nil {
		return nil, err
	}
	if err := o.settleBudget(schema, n); err != nil {
		return nil, err
	}
	dom, err := domain.New(schema, domain.Options{Bins: o.Bins, BinsFor: o.BinsFor})
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	parties, accts, err := engineParties(dom, o.Parties)
	if err != nil {
		return nil, err
	}
	// From here on n is the public count: under add/remove, the noisy one
	// released before anything else.
	n, countRho, err := publicCount(o, n, accts)
	if err != nil {
		return nil, err
	}
	// dom is the public domain (schema and equal-width bins), what auto
	// may read.
	auto := o.resolveMethod(dom, n)
	if o.BinShare == 0 && len(parties) == 1 {
		o.BinShare = DefaultBinShare
	}
	checkRho := o.labelCheckRho(schema)
	plan, binRho, err := planBins(o, schema, n, o.Parties[0].Rho, countRho, checkRho)
	if err != nil {
		return nil, err
	}
	dom, real, clamped, oneWays, err := binRecords(o, schema, dom, accts, n, plan)
	if err != nil {
		return nil, err
	}
	parties[0].Rho -= binRho + countRho + checkRho
	m, err := measurement.NewLocalMeasurer(measurement.LocalOptions{Chunks: real, Accountants: accts, Source: o.Source.Child(), Neighbours: o.Neighbours})
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	workload, err := namedSets(dom, o.Workload)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	eo := engineOptions(o, dom, parties, workload, n)
	eo.Adaptive.Premeasured = oneWays
	res, err := marginal.Synthesize(ctx, m, eo)
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	decodeSrc := o.Source.Child()
	var synth *data.Table
	if !o.NoTable {
		if synth, err = dom.DecodeRows(res.Data, res.Rows, decodeSrc); err != nil {
			return nil, fmt.Errorf("publish: %w", err)
		}
	}
	spent := spending{bin: binRho, count: countRho, oneWayRho: plan.oneWayRho}
	for _, p := range oneWays {
		spent.oneWays = append(spent.oneWays, dom.Name(p.Noisy.Attrs[0]))
	}
	if checkRho > 0 {
		if spent.check, err = checkLabel(o.Label, dom, real, res.Data, n, checkRho, accts[0], o.Source.Child()); err != nil {
			return nil, err
		}
	}
	report, err := report(o, auto, res, dom, accts, n, spent)
	if err != nil {
		return nil, err
	}
	return &Result{Method: o.Method, Auto: auto, Synthetic: synth, Rows: res.Rows, DecodeSource: decodeSrc, Real: real, Report: report, Engine: res, Domain: dom, Parties: o.Parties,
		Rho: o.Parties[0].Rho, BinRho: binRho, CountRho: countRho, LabelCheck: spent.check, Records: n, Epsilon: o.Epsilon, Delta: o.Delta, Clamped: clamped, Elapsed: time.Since(start)}, nil
}

// publicCount returns the record count the run may use as public, and the
// ρ spent on it: n itself under replace-one (neighbours share it), and
// under add/remove the count released with measurement.DefaultCountShare of
// the single owner's ρ, charged before any other release.
func publicCount(o Options, n int, accts []*privacy.Accountant) (int, float64, error) {
	if err := o.Neighbours.Check(); err != nil {
		return 0, 0, fmt.Errorf("publish: %w", err)
	}
	if o.Neighbours.PublicCount() {
		return n, 0, nil
	}
	if len(accts) != 1 {
		return 0, 0, fmt.Errorf("publish: --neighbours add-remove needs one owner of every column, got %d parties", len(accts))
	}
	rho := measurement.DefaultCountShare * o.Parties[0].Rho
	c, err := measurement.ReleaseCount(n, measurement.CountOptions{Rho: rho, Accountant: accts[0], Source: o.Source.Child()})
	if err != nil {
		return 0, 0, fmt.Errorf("publish: %w", err)
	}
	return c.Value, rho, nil
}

// inputShape returns the schema and the number of records of the input:
// a non-empty table or non-empty encoded records, exactly one of them.
func inputShape(o Options) (data.Schema, int, error) {
	switch {
	case o.Table != nil && o.Encoded != nil:
		return data.Schema{}, 0, fmt.Errorf("publish: synthesize takes a table or encoded records, not both")
	case o.Table != nil && o.Table.Len() > 0:
		return o.Table.Schema, o.Table.Len(), nil
	case o.Encoded != nil && o.Encoded.Domain != nil && o.Encoded.Chunks.Len() > 0:
		return o.Encoded.Domain.Schema(), o.Encoded.Chunks.Len(), nil
	default:
		return data.Schema{}, 0, fmt.Errorf("publish: synthesize needs a non-empty table")
	}
}

// settleBudget fills the randomness and δ (1/n², capped) when unset,
// turns an ε budget into ρ at δ, and makes a single owner of every
// attribute when no parties are given.
func (o *Options) settleBudget(schema data.Schema, n int) error {
	if o.Source == nil {
		o.Source = randx.NewSecure()
	}
	if o.Delta == 0 && !o.Neighbours.PublicCount() {
		// n is private: δ cannot be 1/n². ε needs the user's δ; a ρ budget
		// is stated as (ε, δ) at the public cap.
		if o.Epsilon != 0 {
			return fmt.Errorf("publish: --neighbours add-remove keeps n private, so δ cannot default to 1/n²: give --delta with --epsilon %v", o.Epsilon)
		}
		o.Delta = dp.MaxDefaultDelta
	}
	if o.Delta == 0 {
		o.Delta = dp.DefaultDeltaCapped(n)
	}
	if !(o.Delta > 0 && o.Delta < 1) {
		return fmt.Errorf("publish: delta %v must be in (0, 1)", o.Delta)
	}
	if o.Epsilon != 0 {
		if o.Rho != 0 || len(o.Parties) > 0 {
			return fmt.Errorf("publish: give the budget as epsilon %v or as rho, not both", o.Epsilon)
		}
		rho, err := marginal.RhoFor(o.Epsilon, o.Delta)
		if err != nil {
			return fmt.Errorf("publish: %w", err)
		}
		o.Rho = rho
	}
	if len(o.Parties) == 0 {
		o.Parties = []Party{{Name: "owner", Rho: o.Rho, Attributes: schema.Names()}}
	}
	return nil
}

// resolveMethod replaces an unset or auto method by the one auto picks
// for the public domain dom and the parties, and returns why it picked
// it, for the report ("" when the method was given).
func (o *Options) resolveMethod(dom *domain.Domain, n int) string {
	o.Method = cmp.Or(o.Method, marginal.MethodAuto)
	if o.Method != marginal.MethodAuto {
		return ""
	}
	var auto string
	o.Method, auto = autoMethod(dom.Sizes(), len(o.Parties), n, o.Parties[0].Rho, o.Neighbours)
	return auto
}

// engineOptions are the marginal engine's settings for a run over dom
// by parties, of n records.
func engineOptions(o Options, dom *domain.Domain, parties []marginal.Party, workload [][]int, n int) marginal.Options {
	return marginal.Options{
		Domain: dom, Parties: parties, Records: n, Neighbours: o.Neighbours, Split: o.Split, Score: o.Score, Combine: o.Combine,
		OneWayNoise: cmp.Or(o.OneWayNoise, measurement.Gaussian), Method: o.Method,
		Adaptive: adaptiveOptions(o, workload),
		GUM:      infer.GUMOptions{Rounds: o.Rounds, Rows: o.Rows, Fit: infer.DefaultFit}, Source: o.Source.Child(), Progress: o.Progress,
	}
}

// adaptiveOptions are the adaptive method's settings of a run.
func adaptiveOptions(o Options, workload [][]int) marginal.AdaptiveOptions {
	return marginal.AdaptiveOptions{Workload: workload, Label: o.Label, MaxCells: o.MaxModelCells, Rounds: o.AdaptiveRounds, Selection: o.Selection, Optimizer: o.Optimizer, Penalty: o.Penalty}
}

// namedSets maps attribute-name sets to index sets (nil for none).
func namedSets(dom *domain.Domain, sets [][]string) ([][]int, error) {
	var out [][]int
	for _, s := range sets {
		var idx []int
		for _, name := range s {
			j, err := dom.Index(name)
			if err != nil {
				return nil, fmt.Errorf("publish: workload: %w", err)
			}
			idx = append(idx, j)
		}
		out = append(out, idx)
	}
	return out, nil
}

// engineParties maps the parties' attribute names to indices and
// opens one zCDP accountant per party.
func engineParties(dom *domain.Domain, ps []Party) ([]marginal.Party, []*privacy.Accountant, error) {
	var parties []marginal.Party
	var accts []*privacy.Accountant
	for _, p := range ps {
		if err := dp.CheckRho(p.Rho); err != nil {
			return nil, nil, fmt.Errorf("publish: party %q: %w", p.Name, err)
		}
		mp := marginal.Party{Name: p.Name, Rho: p.Rho}
		for _, name := range p.Attributes {
			j, err := dom.Index(name)
			if err != nil {
				return nil, nil, fmt.Errorf("publish: party %q: %w", p.Name, err)
			}
			mp.Attrs = append(mp.Attrs, j)
		}
		a, err := privacy.NewAccountant(privacy.AccountantOptions{Party: p.Name, Budget: dp.Concentrated(p.Rho)})
		if err != nil {
			return nil, nil, fmt.Errorf("publish: %w", err)
		}
		parties = append(parties, mp)
		accts = append(accts, a)
	}
	return parties, accts, nil
}

// VerticalSplit gives each of parties owners a contiguous group of t's
// columns (near-equal sizes), every owner keeping all records: the
// `--dataset NAME --parties K` column split.
func VerticalSplit(t *data.Table, parties int) ([]*data.Table, error) {
	return data.SplitVerticalEven(t, parties)
}
