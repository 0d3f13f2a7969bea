package synthesize

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal"
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
	// the synthetic records chunk by chunk (marginal.DecodeSources,
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
	// marginal.SelectExponential).
	Selection marginal.SelectMechanism
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
	// bounds (default marginal.DefaultBins).
	Bins    int
	BinsFor map[string]int
	// BinShare is the share of the single owner's ρ spent choosing
	// numeric attributes' bins from the data (marginal.ChooseCuts, split
	// evenly among them): default DefaultBinShare with the adaptive method
	// and one owner; negative for the schema's equal-width bins (with the
	// public values split off: marginal.PublicValueCuts).
	BinShare float64
	// Refine says what the data-chosen bins are for (default
	// marginal.DefaultRefine): measured by the engine, or only to draw
	// values inside the equal-width bins and point masses it measures.
	Refine marginal.Refinement
	// Split of every ρ_k (default 0.1 / 0.1 / 0.8).
	Split marginal.Split
	// Score is the pair score (default the paper's IInDif).
	Score marginal.ScoreKind
	// OneWayNoise is the noise of the one-way marginals: default Gaussian,
	// a quarter of the paper's Laplace variance at the same ρ (Δ₂ = √2
	// against Δ₁ = 2 under replacement); marginal.Laplace is the paper's.
	OneWayNoise marginal.Mechanism
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
	// released first with marginal.DefaultCountShare of ρ
	// (marginal.ReleaseCount) and its noisy value stands for n everywhere:
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
	// the first marginal.DefaultFit of them when there are more (record r
	// is Engine.Data's record r mod its length).
	Rows int
	// DecodeSource is the randomness that decodes them (Synthetic was
	// decoded with it, unless NoTable).
	DecodeSource *randx.Source
	// Real is the owner's table discretised by Domain: for the owner's own
	// utility summary (exact counts, never published).
	Real    marginal.Chunks
	Report  *privacy.Report
	Engine  *marginal.Result
	Domain  *marginal.Domain
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
	Domain  *marginal.Domain
	Chunks  marginal.Chunks
	Clamped int
}

// DomainFor is the domain a table with schema s must be
// discretised with for Synthesize under o (Encoded): the schema's bins
// (equal-width, with each numeric attribute's public values, its minimum,
// its maximum and 0 inside its bounds, a bin of its own:
// marginal.PublicValueCuts), or, when the numeric bins are chosen from
// the data (one owner, the default), numeric attributes cut at every edge
// those bins may have (marginal.FineEdges), so that the bins chosen
// afterwards from the cells' counts are unions of cells and the records
// need not be read again.
func DomainFor(s data.Schema, o Options) (*marginal.Domain, error) {
	if !adaptive(o) {
		d, err := marginal.NewDomain(s, marginal.DomainOptions{Bins: o.Bins, BinsFor: o.BinsFor, PublicValueBins: true})
		if err != nil {
			return nil, fmt.Errorf("publish: %w", err)
		}
		return d, nil
	}
	fine := map[string][]float64{}
	for _, a := range s.Attributes {
		if a.Kind == data.Numeric {
			fine[a.Name] = marginal.FineEdges(a, binsOf(o, a), marginal.DefaultGrid)
		}
	}
	d, err := marginal.NewDomain(s, marginal.DomainOptions{Bins: o.Bins, BinsFor: o.BinsFor, Cuts: fine})
	if err != nil {
		return nil, fmt.Errorf("publish: cells to choose the bins from: %w", err)
	}
	return d, nil
}

// adaptive reports whether o chooses numeric bins from the data.
func adaptive(o Options) bool {
	return o.BinShare > 0 || (o.BinShare == 0 && len(o.Parties) <= 1)
}

// binsOf is the number of equal-width bins attribute a's bins refine.
func binsOf(o Options, a data.Attribute) int {
	return cmp.Or(o.BinsFor[a.Name], o.Bins, marginal.DefaultBins)
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
	dom, err := marginal.NewDomain(schema, marginal.DomainOptions{Bins: o.Bins, BinsFor: o.BinsFor})
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
	pre, err := DomainFor(schema, o)
	if err != nil {
		return nil, err
	}
	real, clamped, err := encodeRecords(o, pre)
	if err != nil {
		return nil, err
	}
	if !adaptive(o) {
		// The schema's bins with the public values split off, which the
		// records were encoded with: a point mass at 0 or at a cap keeps a
		// bin of its own without a data-chosen bin (parties of columns).
		dom = pre
	}
	var binRho float64
	floor := coarsenFloor(o, schema, n, o.Parties[0].Rho*(1-o.BinShare)-countRho-o.labelCheckRho(schema))
	if dom, binRho, err = adaptiveBins(o, dom, pre, real, accts, n, floor); err != nil {
		return nil, err
	}
	if real, err = mergeBinned(o, real, binRho); err != nil {
		return nil, err
	}
	checkRho := o.labelCheckRho(schema)
	parties[0].Rho -= binRho + countRho + checkRho
	m, err := marginal.NewLocalMeasurer(marginal.LocalOptions{Chunks: real, Accountants: accts, Source: o.Source.Child(), Neighbours: o.Neighbours})
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	workload, err := namedSets(dom, o.Workload)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	res, err := marginal.Synthesize(ctx, m, engineOptions(o, dom, parties, workload, n))
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
	spent := spending{bin: binRho, count: countRho}
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
// under add/remove the count released with marginal.DefaultCountShare of
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
	rho := marginal.DefaultCountShare * o.Parties[0].Rho
	c, err := marginal.ReleaseCount(n, marginal.CountOptions{Rho: rho, Accountant: accts[0], Source: o.Source.Child()})
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
func (o *Options) resolveMethod(dom *marginal.Domain, n int) string {
	o.Method = cmp.Or(o.Method, marginal.MethodAuto)
	if o.Method != marginal.MethodAuto {
		return ""
	}
	var auto string
	o.Method, auto = autoMethod(dom.Sizes(), len(o.Parties), n, o.Parties[0].Rho, o.Neighbours)
	return auto
}

// encodeRecords returns the input's records in the cells of pre, and the
// number of values clamped to their bounds: the table encoded, or the
// caller's encoded records once checked to have pre's cells.
func encodeRecords(o Options, pre *marginal.Domain) (marginal.Chunks, int, error) {
	if o.Table != nil {
		ds, st, err := pre.Encode(o.Table)
		if err != nil {
			return nil, 0, fmt.Errorf("publish: %w", err)
		}
		return marginal.Chunks{marginal.CellsOf(ds)}, st.Clamped, nil
	}
	if !slices.Equal(o.Encoded.Domain.Sizes(), pre.Sizes()) {
		return nil, 0, fmt.Errorf("publish: records encoded with cells %v, want %v (DomainFor)", o.Encoded.Domain.Sizes(), pre.Sizes())
	}
	if err := o.Encoded.Chunks.Check(); err != nil {
		return nil, 0, fmt.Errorf("publish: %w", err)
	}
	return o.Encoded.Chunks, o.Encoded.Clamped, nil
}

// mergeBinned merges the caller's encoded records once bins were chosen
// from the data (binRho > 0): tuples of fine cells that fall in the same
// bins are then identical, and merged they are fewer rows to count, with
// the same counts. The caller's pieces are consumed, so it gets the
// merged ones in their place. A table's records are returned as they are.
func mergeBinned(o Options, real marginal.Chunks, binRho float64) (marginal.Chunks, error) {
	if !(o.Encoded != nil && binRho > 0) {
		return real, nil
	}
	merged, err := real.Merged()
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	o.Encoded.Chunks = merged
	return merged, nil
}

// engineOptions are the marginal engine's settings for a run over dom
// by parties, of n records.
func engineOptions(o Options, dom *marginal.Domain, parties []marginal.Party, workload [][]int, n int) marginal.Options {
	return marginal.Options{
		Domain: dom, Parties: parties, Records: n, Neighbours: o.Neighbours, Split: o.Split, Score: o.Score, Combine: o.Combine,
		OneWayNoise: cmp.Or(o.OneWayNoise, marginal.Gaussian), Method: o.Method,
		Adaptive: marginal.AdaptiveOptions{Workload: workload, Label: o.Label, MaxCells: o.MaxModelCells, Rounds: o.AdaptiveRounds, Selection: o.Selection, Optimizer: o.Optimizer, Penalty: o.Penalty},
		GUM:      marginal.GUMOptions{Rounds: o.Rounds, Rows: o.Rows, Fit: marginal.DefaultFit}, Source: o.Source.Child(), Progress: o.Progress,
	}
}

// namedSets maps attribute-name sets to index sets (nil for none).
func namedSets(dom *marginal.Domain, sets [][]string) ([][]int, error) {
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
func engineParties(dom *marginal.Domain, ps []Party) ([]marginal.Party, []*privacy.Accountant, error) {
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

// spending is what the single owner's ρ paid for beside the engine's
// measurements: choosing bins, the record count (add/remove) and the
// label check.
type spending struct {
	bin, count float64
	check      *LabelCheck
}

func report(o Options, auto string, res *marginal.Result, dom *marginal.Domain, accts []*privacy.Accountant, n int, spent spending) (*privacy.Report, error) {
	binRho, countRho := spent.bin, spent.count
	nb := o.Neighbours.Or()
	records := map[string]int{}
	for _, a := range accts {
		records[a.Party()] = n
	}
	countL1, countL2 := marginal.CountSensitivity(nb)
	scoreSens := marginal.ScoreSensitivity(cmp.Or(o.Score, marginal.IInDif), nb)
	ro := privacy.ReportOptions{
		Method:       "pdp-mvds marginal synthesis (one process; Algorithms 2-3 as in docs/errata.md#pdp-mvds-algorithms, PrivSyn)",
		Calibration:  "sound",
		Randomness:   o.Source.Describe(),
		Seeded:       !o.Source.IsSecure(),
		Composition:  privacy.Single,
		Accountants:  accts,
		Records:      records,
		DeltaForZCDP: o.Delta,
		Assumptions: []string{
			fmt.Sprintf("the record count n = %d is public (replace-one neighbours share it) and is used without noise", n),
			"numeric attributes are clamped to the bounds declared in the schema and cut into equal-width bins over them; bounds, bins and categories are public and do not depend on the data",
			fmt.Sprintf("sensitivities under %s: a count vector moves by L1 %g / L2 %.4g; the pair score by %g", nb, countL1, countL2, scoreSens),
			"Laplace releases are charged ε²/2 in zCDP (Bun & Steinke 2016); each party's spend is also stated as (ε, δ)-DP at δ = " + fmt.Sprintf("%.3g", o.Delta),
		},
		Covered: []string{
			"the noisy one-way marginals, the noisy pair scores and the noisy selected marginals",
			"everything derived from them: the pair selection (Algorithm 2), the combined attribute sets, the post-processed marginals and the synthetic rows (GUM and the uniform draw of numeric values inside their bins are post-processing)",
		},
		NotCovered: []string{fmt.Sprintf("the record count n = %d", n)},
		ThreatModel: []string{
			"one process held every column: it is a trusted curator; the multi-party protocol (secure scalar products, distributed noise) is not used in this mode",
		},
	}
	if o.Method == marginal.MethodAdaptive {
		adaptiveReport(&ro, o, res, nb, countL1, countL2)
	}
	if auto != "" {
		ro.Assumptions = append(ro.Assumptions, auto)
	}
	if binRho > 0 {
		ro.Assumptions[1] = fmt.Sprintf("numeric attributes are clamped to the bounds declared in the schema; their bins were chosen from a noisy histogram over a public grid of those bounds (discrete Gaussian, L2 sensitivity %.4g, ρ = %.4g in all, %.1f%% of the budget), merged into bins as post-processing; a bin holding one value decodes to it", countL2, binRho, 100*binRho/o.Parties[0].Rho)
	} else if !adaptive(o) {
		ro.Assumptions[1] = "numeric attributes are clamped to the bounds declared in the schema and cut into equal-width bins over them, with the minimum, the maximum and 0 (inside the bounds) each a bin of its own that decodes to that value; bounds, bins and categories are public and do not depend on the data"
	}
	if len(accts) == 1 {
		// One owner chooses the relation; parties of columns have
		// replace-one only, which their report's relation sentence states.
		ro.Neighbours = nb
	}
	if !nb.PublicCount() {
		addRemoveReport(&ro, o, n, countRho)
	}
	if o.Epsilon != 0 {
		ro.Assumptions = append(ro.Assumptions, fmt.Sprintf(
			"the budget was given as (ε, δ) = (%g, %.3g): ρ = %.6g is the largest ρ whose conversion by Canonne, Kamath & Steinke (2020, Cor. 13) gives at most ε at δ", o.Epsilon, o.Delta, o.Rho))
	}
	if len(accts) > 1 {
		ro.Composition = privacy.PersonalisedPerParty
		ro.Assumptions = append(ro.Assumptions,
			"personalised budgets: each party's guarantee covers a change of one record's values in that party's columns; a release over columns of several parties satisfies the strictest of their budgets and is charged to each")
		whole := dp.Concentrated(totalRho(res))
		ro.WholeRecord = &whole
		ro.Warnings = append(ro.Warnings, wholeRecordWarning(whole))
	}
	if c := spent.check; c != nil {
		ro.Assumptions = append(ro.Assumptions, c.String())
		ro.Covered = append(ro.Covered, "the label check's noisy count of correct predictions on the real records")
	}
	for _, w := range []string{marginal.NoiseWarning(res, dom, n), marginal.LabelWarning(res, dom, n, o.Label)} {
		if w != "" {
			ro.Warnings = append(ro.Warnings, w)
		}
	}
	r, err := privacy.NewReport(ro)
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	return r, nil
}

// adaptiveReport states what the adaptive method releases and derives
// (its selections, sensitivities and model) in place of the paper
// method's sentences.
func adaptiveReport(ro *privacy.ReportOptions, o Options, res *marginal.Result, nb dp.Neighbours, countL1, countL2 float64) {
	ro.Method = "adaptive marginal synthesis (one owner; workload-adaptive rounds after AIM, graphical-model inference after Private-PGM)"
	ro.Assumptions[2] = fmt.Sprintf("sensitivities under %s: a count vector moves by L2 %.4g; a selection utility w·(‖M(D) − estimate‖₁ − penalty) by %g·w, w the largest workload weight offered; the penalty is %s", nb, countL2, countL1, cmp.Or(o.Penalty, marginal.DefaultPenalty).Describe())
	ro.Assumptions = append(ro.Assumptions,
		fmt.Sprintf("each round's selection is %s; each measurement is the discrete Gaussian on a public grid at ρ_t; the rounds' costs sum to the budget exactly", cmp.Or(o.Selection, marginal.SelectExponential).Describe()))
	ro.Covered = []string{
		"the noisy one-way and selected marginals and every selection",
		fmt.Sprintf("everything derived from them: the graphical model fitted to the noisy marginals (%s), the synthetic rows sampled from it, the uniform draw of numeric values inside their bins (post-processing)", marginal.OptimizerReason(o.Optimizer, res.Optimizer)),
	}
}

// addRemoveReport states what add/remove neighbours change in the
// report: the record count is released (covered, no longer "public"),
// and what the guarantee means for a replaced record.
func addRemoveReport(ro *privacy.ReportOptions, o Options, n int, countRho float64) {
	sigma := 1 / math.Sqrt(2*countRho)
	ro.Assumptions[0] = fmt.Sprintf("the record count is private under add/remove neighbours: it was released first as %d, with discrete Gaussian noise on the integer grid (L2 sensitivity 1, σ = %.3g, ρ = %.4g, %.0f%% of the budget), and that noisy count stands for n everywhere after (normalisations, the model's total, the default number of synthetic rows)", n, sigma, countRho, 100*countRho/o.Parties[0].Rho)
	ro.Assumptions = append(ro.Assumptions,
		fmt.Sprintf("the guarantee holds for neighbours that differ by one added or removed record; a replaced record (one removal and one addition) is covered at 4ρ = %.4g zCDP (group privacy of two)", 4*o.Parties[0].Rho))
	ro.Assumptions = append(ro.Assumptions, fmt.Sprintf("δ = %.3g, at which ρ is stated as (ε, δ), is public (given, or the constant %g with --rho): under add/remove n is private, so δ does not default to 1/n²", o.Delta, dp.MaxDefaultDelta))
	ro.Covered = append([]string{"the noisy record count"}, ro.Covered...)
	ro.NotCovered = nil
}

// wholeRecordWarning explains the report's whole-record guarantee, which
// the headline states.
func wholeRecordWarning(whole dp.Guarantee) string {
	return fmt.Sprintf("a person whose values change in every party's columns is protected only at the sum over distinct releases, %v (the report's whole_record guarantee), not at the largest party budget", whole)
}

// totalRho sums every distinct release once: the guarantee of a change to
// a whole record.
func totalRho(res *marginal.Result) float64 {
	s := 0.0
	for _, p := range res.Plan {
		s += p.Release.Noise.Rho
	}
	return s
}

// DefaultBinShare is the default share of ρ spent choosing numeric bins.
const DefaultBinShare = 0.05

// adaptiveBins chooses every numeric attribute's bins from the data when
// o.BinShare > 0 (one owner), charging the owner's accountant, and
// returns the domain with those bins (the records recoded to it) and the
// ρ spent. The records are discretised with pre (DomainFor): the
// bins come from the counts of its fine cells, which give the same
// histogram, and so the same release, as the values themselves. n is the
// public record count the bins aim at: the released one under add/remove;
// floor the count below which a bin is merged with its light neighbours
// (coarsenFloor; 0: none).
func adaptiveBins(o Options, dom, pre *marginal.Domain, real marginal.Chunks, accts []*privacy.Accountant, n int, floor float64) (*marginal.Domain, float64, error) {
	if !(o.BinShare > 0) {
		return dom, 0, nil
	}
	if len(accts) != 1 || o.BinShare >= 1 {
		return nil, 0, fmt.Errorf("publish: data-adaptive bins (share %v) need one owner and a share below 1", o.BinShare)
	}
	s := dom.Schema()
	var numeric []int
	for j, a := range s.Attributes {
		if a.Kind == data.Numeric {
			numeric = append(numeric, j)
		}
	}
	if len(numeric) == 0 {
		return dom, 0, nil
	}
	rho := o.BinShare * o.Parties[0].Rho / float64(len(numeric))
	do := marginal.DomainOptions{Bins: o.Bins, BinsFor: o.BinsFor}
	src := o.Source.Child()
	for _, j := range numeric {
		a := s.Attributes[j]
		counts, err := real.Count([]int{j})
		if err != nil {
			return nil, 0, fmt.Errorf("publish: %w", err)
		}
		c, err := marginal.ChooseBinsFromFine(a, counts.Counts, marginal.CutsOptions{Bins: binsOf(o, a), Rho: rho, Accountant: accts[0], Source: src, Refine: o.Refine,
			Neighbours: o.Neighbours, Records: float64(n), Floor: floor})
		if err != nil {
			return nil, 0, fmt.Errorf("publish: %w", err)
		}
		do.SetChosen(a.Name, c)
	}
	d, err := marginal.NewDomain(s, do)
	if err != nil {
		return nil, 0, fmt.Errorf("publish: %w", err)
	}
	lut, err := marginal.Recoding(pre, d)
	if err != nil {
		return nil, 0, fmt.Errorf("publish: %w", err)
	}
	real.Recode(lut, d.Sizes())
	return d, rho * float64(len(numeric)), nil
}

// VerticalSplit gives each of parties owners a contiguous group of t's
// columns (near-equal sizes), every owner keeping all records: the
// `--dataset NAME --parties K` column split.
func VerticalSplit(t *data.Table, parties int) ([]*data.Table, error) {
	return data.SplitVerticalEven(t, parties)
}
