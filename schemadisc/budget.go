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
// which a column is marked for review.
const clampWarning = 0.03

// discoverer turns profiles into attributes, spending the budget.
type discoverer struct {
	o     Options
	n     int
	noise *dp.Noiser
	acct  *privacy.Accountant
	// epsEach and deltaEach are each DP query's share of the budget.
	epsEach, deltaEach float64
}

// startBudget splits ε evenly over the DP queries (one per numeric
// column, one per open categorical column; sequential composition, since
// every query reads every record) and δ over the categorical ones.
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
	budget := dp.Pure(d.o.Epsilon)
	if open > 0 {
		if d.o.Delta == 0 {
			d.o.Delta = dp.DefaultDelta(d.n)
		}
		budget = dp.Approx(d.o.Epsilon, d.o.Delta)
		d.deltaEach = d.o.Delta / float64(open)
	}
	acct, err := privacy.NewAccountant(privacy.AccountantOptions{Party: d.o.Party, Budget: budget})
	if err != nil {
		return fmt.Errorf("schemadisc: %w", err)
	}
	d.acct, d.noise = acct, dp.NewNoiser(d.o.Source)
	if queries := numeric + open; queries > 0 {
		d.epsEach = d.o.Epsilon / float64(queries)
	}
	return nil
}

func (d *discoverer) attribute(name string, p profile) (data.Attribute, Column, error) {
	a := data.Attribute{Name: name, Kind: p.kind, Integer: p.integer, Decimals: p.decimals}
	col := Column{Name: name, Kind: p.kind}
	var err error
	switch p.kind {
	case data.Binary:
		a.Categories = p.pair
		col.Note = fmt.Sprintf("binary %q (negative first): a public vocabulary, no budget", p.pair)
	case data.Numeric:
		err = d.numeric(&a, &col, p)
	case data.Categorical:
		err = d.categorical(&a, &col, p)
	}
	return a, col, err
}

func (d *discoverer) numeric(a *data.Attribute, col *Column, p profile) error {
	a.Min, a.Max = math.NaN(), math.NaN()
	prec := "decimals " + fmt.Sprint(p.decimals)
	if p.integer {
		prec = "integer"
	}
	if d.acct == nil {
		col.Note = prec + "; bounds: fill \"min\" and \"max\" from public knowledge (a code book, a sensor's range), not from the data"
		col.Review = true
		return nil
	}
	b, err := d.spendBounds(a.Name, p)
	if err != nil {
		return err
	}
	if !b.Found {
		col.Note = fmt.Sprintf("%s; no bound found at ε = %.3g (no grid bin reached %.0f noisy rows): fill \"min\" and \"max\" by hand or raise --epsilon", prec, d.epsEach, b.Threshold)
		col.Review = true
		return nil
	}
	a.Min, a.Max = b.Min, b.Max
	col.Note = fmt.Sprintf("%s; bounds [%v, %v] from DP %.1f%%/%.1f%% quantiles (ε = %.3g)", prec, b.Min, b.Max, 100*LowerQuantile, 100*UpperQuantile, d.epsEach)
	if b.Beyond > clampWarning {
		col.Note += fmt.Sprintf("; about %.0f%% of values lie outside (noisy estimate) and will be clamped: widen them from public knowledge if that matters", 100*b.Beyond)
		col.Warn = true
	}
	return nil
}

func (d *discoverer) spendBounds(name string, p profile) (BoundsResult, error) {
	spec := dp.Spec{Mechanism: "discrete laplace histogram on a public log grid", Norm: "L1",
		Sensitivity: 2, Scale: 2 / d.epsEach, Guarantee: dp.Pure(d.epsEach)}
	if err := d.acct.Spend(privacy.Charge{Purpose: fmt.Sprintf("bounds of %q", name), Spec: spec,
		Note: fmt.Sprintf("%.1f%% and %.1f%% quantiles read from the noisy histogram", 100*LowerQuantile, 100*UpperQuantile)}); err != nil {
		return BoundsResult{}, fmt.Errorf("schemadisc: %w", err)
	}
	return Bounds(d.noise, p.numbers, p.missing, p.integer, d.epsEach)
}

func (d *discoverer) categorical(a *data.Attribute, col *Column, p profile) error {
	if d.acct == nil {
		return d.draftCategories(a, col, p)
	}
	spec := dp.Spec{Mechanism: "laplace partition selection", Norm: "L1", Sensitivity: 2,
		Scale: 2 / d.epsEach, Guarantee: dp.Approx(d.epsEach, d.deltaEach)}
	if err := d.acct.Spend(privacy.Charge{Purpose: fmt.Sprintf("categories of %q", a.Name), Spec: spec}); err != nil {
		return fmt.Errorf("schemadisc: %w", err)
	}
	sel, err := Categories(d.noise, p.values, d.epsEach, d.deltaEach)
	if err != nil {
		return err
	}
	a.Categories = sel.Kept
	if !slices.Contains(a.Categories, OtherCategory) {
		a.Categories = append(a.Categories, OtherCategory)
	}
	a.Other = OtherCategory
	col.Note = fmt.Sprintf("%d value(s) kept by DP partition selection (noisy count ≥ %.0f rows, ε = %.3g); rarer values read as %q",
		len(sel.Kept), sel.Threshold, d.epsEach, OtherCategory)
	if len(sel.Kept) == 0 {
		col.Note += "; none passed: an identifier or free text? --skip it"
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
			fmt.Sprintf("numeric bounds: the %.1f%% and %.1f%% quantiles of a discrete-Laplace histogram on a public log-scale grid", 100*LowerQuantile, 100*UpperQuantile),
			"category lists of text columns: Laplace partition selection (values rarer than the threshold are left out and read as \"other\")",
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
