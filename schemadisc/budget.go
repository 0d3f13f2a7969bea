package schemadisc

import (
	"fmt"
	"math"
	"slices"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/privacy"
)

// OtherCategory is the category that values left out of a DP-selected
// list are read as (data.Attribute.Other).
const OtherCategory = "other"

// clampWarning is the estimated share of values outside DP bounds above
// which a column is marked for a look.
const clampWarning = 0.03

// discoverer turns profiles into attributes, spending the budget.
type discoverer struct {
	o     Options
	n     int
	noise *dp.Noiser
	acct  *privacy.Accountant
	plan  plan
	// spending is true once the plan is charged (with a budget that
	// buys something).
	spending bool
	// hists holds the released histogram of each numeric column, by
	// profile index (measureNumeric).
	hists map[int]*histogram
}

// firstShare is the share of each numeric column's ρ spent on its first
// histogram; the rest of all columns' shares is pooled for a second
// histogram of the columns that need it (measureNumeric).
var firstShare = 0.5

// measureNumeric releases every numeric column's histogram in two rounds
// within the charged plan. Each column first gets firstShare of its ρ.
// Columns whose upper crossing lands on the zero bin — values beyond a
// point mass too few to place at that noise, where a bound below the 95%
// quantile clamps 5% or more of the values — then share the pooled rest
// equally and are measured again; the two releases are averaged by their
// noise. With no such column, every column is measured again with the
// rest of its own share, as if in one release.
//
// Privacy: the first round is ρ₁ = Σ firstShare·ρ_c. Which columns are
// measured again is a function of the first round's noisy counts only,
// and whatever it picks, the second round's Gaussian releases cost Σ 1/σ²
// = the pooled ρ₂ in all; so by adaptive composition (Bun & Steinke
// 2016, Lemma 2.3: a mechanism that is ρ₂-zCDP for every value of the
// first output) the two rounds are (ρ₁ + ρ₂)-zCDP, exactly the plan's
// numeric ρ that was charged before the first release.
func (d *discoverer) measureNumeric(profiles []profile) error {
	rho := d.plan.rhoNumeric
	if rho == 0 {
		return nil
	}
	d.hists = map[int]*histogram{}
	var numeric, again []int
	for k, p := range profiles {
		if p.kind != data.Numeric {
			continue
		}
		h, err := releaseHistogram(d.noise, p.numbers, p.missing, p.integer, numericSigma(firstShare*rho), d.plan.perDecade)
		if err != nil {
			return err
		}
		d.hists[k] = h
		numeric = append(numeric, k)
		if h.pointMassHides() {
			again = append(again, k)
		}
	}
	if len(again) == 0 {
		again = numeric
	}
	rhoAgain := (1 - firstShare) * rho * float64(len(numeric)) / float64(len(again))
	for _, k := range again {
		p := profiles[k]
		h, err := releaseHistogram(d.noise, p.numbers, p.missing, p.integer, numericSigma(rhoAgain), d.plan.perDecade)
		if err != nil {
			return err
		}
		d.hists[k].merge(h)
	}
	return nil
}

// startBudget plans the budget from public facts (see plan) and charges
// the whole plan to the owner's accountant before anything is released:
// the columns compose in zCDP, which the (ε, δ) accountant cannot do
// charge by charge, so one charge covers every column's release.
func (d *discoverer) startBudget(profiles []profile) error {
	numeric, open := 0, 0
	for _, p := range profiles {
		switch p.kind {
		case data.Numeric:
			numeric++
		case data.Categorical:
			open++
		}
	}
	if numeric+open == 0 {
		return nil
	}
	if d.o.Delta == 0 {
		d.o.Delta = dp.DefaultDelta(d.n)
	}
	pl, err := newPlan(d.n, numeric, open, d.o.Epsilon, d.o.Delta)
	if err != nil {
		return err
	}
	d.plan = pl
	acct, err := privacy.NewAccountant(privacy.AccountantOptions{Party: d.o.Party, Budget: dp.Approx(d.o.Epsilon, d.o.Delta)})
	if err != nil {
		return fmt.Errorf("schemadisc: %w", err)
	}
	d.acct, d.noise = acct, dp.NewNoiser(d.o.Source)
	if pl.guarantee.IsZero() {
		return nil
	}
	charge := privacy.Charge{
		Purpose: fmt.Sprintf("bounds of %d numeric and category lists of %d text columns", spendingCount(numeric, pl.rhoNumeric), spendingCount(open, pl.rhoCategory)),
		Spec: dp.Spec{Mechanism: "discrete gaussian histograms on a public log grid and gaussian partition selection, composed in zCDP",
			Norm: "L2", Sensitivity: math.Sqrt2, Guarantee: pl.guarantee},
		Note: pl.describe(),
	}
	if err := d.acct.Spend(charge); err != nil {
		return fmt.Errorf("schemadisc: %w", err)
	}
	d.spending = true
	return nil
}

func spendingCount(columns int, rho float64) int {
	if rho > 0 {
		return columns
	}
	return 0
}

// describe is the plan in one sentence, for the privacy report.
func (p plan) describe() string {
	s := fmt.Sprintf("ρ = %.4g in all", p.rho)
	if p.rhoNumeric > 0 {
		s += fmt.Sprintf("; numeric columns ρ = %.3g each (grid of %d steps a decade): %.0f%% of it on a first histogram of every column (noise σ = %.3g rows per count), the rest pooled for a second histogram of the columns whose first shows few values beyond exact zeros (chosen from the first's noisy counts; adaptive composition)",
			p.rhoNumeric, p.perDecade, 100*firstShare, numericSigma(firstShare*p.rhoNumeric))
	}
	if p.rhoCategory > 0 {
		s += fmt.Sprintf("; each text column ρ = %.3g with selection δ = %.3g", p.rhoCategory, p.deltaSelect)
	}
	return s + "; converted to (ε, δ) by dp.ZCDPEpsilon plus the selection δ"
}

func (d *discoverer) attribute(name string, k int, p profile) (data.Attribute, Column, error) {
	a := data.Attribute{Name: name, Kind: p.kind, Integer: p.integer, Decimals: p.decimals}
	col := Column{Name: name, Kind: p.kind}
	var err error
	switch p.kind {
	case data.Binary:
		a.Categories = p.pair
		col.Note = fmt.Sprintf("binary %q (negative first): a public vocabulary, no budget", p.pair)
	case data.Numeric:
		err = d.numeric(&a, &col, d.hists[k], p)
	case data.Categorical:
		err = d.categorical(&a, &col, p)
	}
	return a, col, err
}

func (d *discoverer) numeric(a *data.Attribute, col *Column, h *histogram, p profile) error {
	a.Min, a.Max = math.NaN(), math.NaN()
	prec := "decimals " + fmt.Sprint(p.decimals)
	if p.integer {
		prec = "integer"
	}
	fill := "fill \"min\" and \"max\" from public knowledge (a code book, a sensor's range), not from the data"
	if d.acct == nil {
		col.Note = prec + "; bounds: " + fill
		col.Review = true
		return nil
	}
	if d.plan.rhoNumeric == 0 {
		col.Note = fmt.Sprintf("%s; NEEDS YOUR BOUNDS: %s; %s", prec, d.plan.numericWhy, fill)
		col.Review = true
		return nil
	}
	b := h.bounds()
	if !b.Found {
		col.Note = fmt.Sprintf("%s; NEEDS YOUR BOUNDS: no usable bound at this budget (%s); %s", prec, b.Why, fill)
		col.Review = true
		return nil
	}
	a.Min, a.Max = b.Min, b.Max
	col.Clamped, col.ClampedSD = b.Beyond, b.BeyondSD
	col.Note = fmt.Sprintf("%s; bounds [%v, %v] from a DP histogram (%.1f%%/%.1f%% quantiles); about %.1f%% ± %.1f%% of values outside (clamped)",
		prec, b.Min, b.Max, 100*LowerQuantile, 100*UpperQuantile, 100*b.Beyond, 100*b.BeyondSD)
	if b.Rough {
		col.Note += "; values beyond a point mass were too few to resolve, so a bound sits a decade past their likely place: narrow it from public knowledge"
		col.Warn = true
	}
	if b.Beyond > clampWarning {
		col.Note += ": widen the bounds from public knowledge if that matters"
		col.Warn = true
	}
	return nil
}

func (d *discoverer) categorical(a *data.Attribute, col *Column, p profile) error {
	if d.acct == nil {
		return d.draftCategories(a, col, p)
	}
	if d.plan.rhoCategory == 0 {
		err := d.draftCategories(a, col, p)
		col.Note = fmt.Sprintf("NO BUDGET SPENT (%s): %s", d.plan.categoryWhy, col.Note)
		return err
	}
	sel, err := Categories(d.noise, p.values, 1/math.Sqrt(d.plan.rhoCategory), d.plan.deltaSelect)
	if err != nil {
		return err
	}
	a.Categories = sel.Kept
	if !slices.Contains(a.Categories, OtherCategory) {
		a.Categories = append(a.Categories, OtherCategory)
	}
	a.Other = OtherCategory
	col.Note = fmt.Sprintf("%d value(s) kept by DP partition selection (noisy count ≥ %.0f rows, %.1f%% of the rows); rarer values read as %q",
		len(sel.Kept), sel.Threshold, 100*sel.Threshold/float64(d.n), OtherCategory)
	if len(sel.Kept) == 0 {
		col.Note += "; none passed: an identifier or free text? --skip it"
		col.Warn = true
	}
	return nil
}

// draftCategories lists the values found, for a person to check: they
// are read without noise, so every rare one must be removed unless it is
// public knowledge.
func (d *discoverer) draftCategories(a *data.Attribute, col *Column, p profile) error {
	col.Review = true
	if p.distinct > d.o.MaxCategories {
		col.Note = fmt.Sprintf("%d distinct values: an identifier or free text? make it the --id, --skip it, or list its public categories", p.distinct)
		a.Categories = []string{}
		return nil
	}
	seen := map[string]bool{}
	for _, v := range p.values {
		if !seen[v] {
			seen[v] = true
			a.Categories = append(a.Categories, v)
		}
	}
	slices.Sort(a.Categories)
	col.Note = fmt.Sprintf("categories: the %d values found in the data, WITHOUT noise: keep only values that are public knowledge", len(a.Categories))
	return nil
}

func (d *discoverer) report() (*privacy.Report, error) {
	rep, err := privacy.NewReport(privacy.ReportOptions{
		Method:      "schema discovery (dppub schema)",
		Calibration: "sound",
		Randomness:  d.o.Source.Describe(),
		Composition: privacy.Single,
		Accountants: []*privacy.Accountant{d.acct},
		Records:     map[string]int{d.o.Party: d.n},
		Seeded:      !d.o.Source.IsSecure(),
		Assumptions: []string{"the number of records is public (replace-one neighbouring relation)"},
		Covered: []string{
			fmt.Sprintf("numeric bounds: the %.1f%% and %.1f%% quantiles of a discrete-Gaussian histogram on a public log-scale grid with a bin for exact zeros", 100*LowerQuantile, 100*UpperQuantile),
			"category lists of text columns: Gaussian partition selection (values rarer than the threshold are left out and read as \"other\")",
		},
		NotCovered: []string{
			"column names (the header row)",
			"each column's kind, integer flag and decimal places, and binary columns' two values: read from the data without noise (structural facts; review them)",
			"the budget spent here adds to the budget of every later release from the same data",
		},
	})
	if err != nil {
		return nil, fmt.Errorf("schemadisc: %w", err)
	}
	return rep, nil
}
