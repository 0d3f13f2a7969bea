package schemadisc

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// Options configures Discover.
type Options struct {
	// Epsilon > 0 finds bounds and category lists under DP at this total
	// budget; 0 writes a draft with placeholders instead.
	Epsilon float64
	// Delta is the δ of the partition selection of open categorical
	// columns (default 1/n², dp.DefaultDelta); unused without them.
	Delta float64
	// Source is the randomness (nil: secure).
	Source *randx.Source
	// Party names the owner in the privacy report (default "owner").
	Party string
	// ID names the ID column: carried with the rows, never an attribute.
	ID string
	// Skip names columns left out of the schema (reading the file then
	// needs them ignored).
	Skip []string
	// Label names the categorical or binary column written as the
	// schema's label.
	Label string
	// MaxCategories is the most distinct values a draft lists for a text
	// column (default 100); more suggests an identifier or free text.
	MaxCategories int
	// MaxDecimals caps the decimal places read from the data (default 6).
	MaxDecimals int
}

// Column says what Discover found for one column, in one line.
type Column struct {
	Name string
	Kind data.Kind
	Note string
	// Review is true when a person must act on this column before the
	// schema can be used (a placeholder to fill, values to check); it
	// makes the schema a draft.
	Review bool
	// Warn is true when the column deserves a look but the schema is
	// usable as it is (DP bounds that clamp many values).
	Warn bool
	// Clamped is the estimated share of a numeric column's values outside
	// its DP bounds (which the encoder clamps), ClampedSD its standard
	// deviation; both are post-processing of the released histogram.
	Clamped, ClampedSD float64
}

// Result is a discovered schema and how it was found.
type Result struct {
	// Schema is the draft (Draft set when anything needs review).
	Schema  data.Schema
	Columns []Column
	// Rows is the number of records read.
	Rows int
	// Report is the privacy report of the DP discovery; nil without a
	// budget, or when the budget could buy nothing on this table.
	Report *privacy.Report
	// Plan says, with a budget, how it was divided (or why nothing was
	// spent), decided from the row count and ε before spending.
	Plan string
}

// Discover drafts a schema for raw (see the package comment).
func Discover(raw *data.Raw, o Options) (*Result, error) {
	if err := o.fill(raw); err != nil {
		return nil, err
	}
	res := &Result{Rows: len(raw.Records), Schema: data.Schema{ID: o.ID, Label: o.Label}}
	profiles := make([]profile, 0, len(raw.Header))
	names := make([]string, 0, len(raw.Header))
	for j, name := range raw.Header {
		if name == o.ID || slices.Contains(o.Skip, name) {
			continue
		}
		p := profileColumn(raw.Column(j), o.MaxDecimals)
		if len(p.values) == 0 {
			return nil, fmt.Errorf("schemadisc: column %q has no values (every cell is missing); --skip it", name)
		}
		profiles, names = append(profiles, p), append(names, name)
	}
	if len(names) == 0 {
		return nil, errors.New("schemadisc: no columns left to describe")
	}
	if err := checkLabel(o.Label, names, profiles); err != nil {
		return nil, err
	}
	d := &discoverer{o: o, n: len(raw.Records)}
	if o.Epsilon > 0 {
		if err := d.startBudget(profiles); err != nil {
			return nil, err
		}
		if err := d.measureNumeric(profiles); err != nil {
			return nil, err
		}
	}
	for k, p := range profiles {
		a, col, err := d.attribute(names[k], k, p)
		if err != nil {
			return nil, err
		}
		res.Schema.Attributes = append(res.Schema.Attributes, a)
		res.Columns = append(res.Columns, col)
		res.Schema.Draft = res.Schema.Draft || col.Review
	}
	if d.acct != nil {
		res.Plan = d.plan.summary()
	}
	if d.spending {
		rep, err := d.report()
		if err != nil {
			return nil, err
		}
		res.Report = rep
	}
	return res, nil
}

func (o *Options) fill(raw *data.Raw) error {
	switch {
	case !(o.Epsilon >= 0) || math.IsInf(o.Epsilon, 0):
		return fmt.Errorf("schemadisc: epsilon must be positive and finite (or 0 for a draft), got %v", o.Epsilon)
	case !(o.Delta >= 0 && o.Delta < 1):
		return fmt.Errorf("schemadisc: delta must be in [0, 1), got %v", o.Delta)
	case o.Delta > 0 && o.Epsilon == 0:
		return errors.New("schemadisc: delta needs epsilon (a draft spends no budget)")
	}
	for _, name := range append(slices.Clone(o.Skip), o.ID, o.Label) {
		if name != "" && !slices.Contains(raw.Header, name) {
			return fmt.Errorf("schemadisc: no column %q in the header (have %s)", name, brief(raw.Header))
		}
	}
	if o.Label != "" && (o.Label == o.ID || slices.Contains(o.Skip, o.Label)) {
		return fmt.Errorf("schemadisc: label %q is also the ID or a skipped column", o.Label)
	}
	if o.Party == "" {
		o.Party = "owner"
	}
	if o.MaxCategories <= 0 {
		o.MaxCategories = 100
	}
	if o.MaxDecimals <= 0 {
		o.MaxDecimals = 6
	}
	if o.Source == nil {
		o.Source = randx.NewSecure()
	}
	return nil
}

func checkLabel(label string, names []string, profiles []profile) error {
	if label == "" {
		return nil
	}
	k := slices.Index(names, label)
	if profiles[k].kind == data.Numeric {
		return fmt.Errorf("schemadisc: label %q holds numbers; a label must be categorical or binary", label)
	}
	return nil
}

func brief(xs []string) string {
	if len(xs) > 12 {
		return fmt.Sprintf("%q ... (%d in all)", xs[:12], len(xs))
	}
	return fmt.Sprintf("%q", xs)
}
