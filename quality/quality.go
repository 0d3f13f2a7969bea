// Package quality compares a synthetic table with the real one it was
// made from, for the data owner: per-column distributions (histograms or
// category frequencies, Wasserstein-1 and Kolmogorov–Smirnov distances
// for numeric columns), 1-, 2- and 3-way marginal distances, association
// matrices side by side, and, when a label is declared, the accuracy of a
// classifier trained on the synthetic rows and tested on real ones.
//
// Every figure is computed from the private data without noise. A quality
// report is for the owner's eyes only and must never be published: it
// says so at its top (Notice), in JSON and in HTML.
package quality

import (
	"cmp"
	"errors"
	"fmt"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/randx"
	"github.com/dppub/dppub/utility"
)

// Notice heads every report.
const Notice = "FOR THE DATA OWNER ONLY. This report is computed from the private data without any noise: it reveals the real data and must never be published or shared with anyone who may not see that data."

// Options configures Compare.
type Options struct {
	// Label names a categorical or binary attribute to predict (train on
	// synthetic, test on real); empty skips the classifier.
	Label string
	// Bins is the number of equal-width bins of a numeric attribute over
	// its declared bounds, for histograms and marginals (default
	// utility.DefaultBins, as the publishing commands' summaries).
	Bins int
	// MaxSets caps the attribute sets evaluated per marginal order; above
	// it, sets are taken evenly through the lexicographic order (default
	// 300).
	MaxSets int
	// Source draws the real rows held out for the classifier (nil: secure).
	Source *randx.Source
	// Privacy holds key facts of the synthetic table's privacy report,
	// shown as they are.
	Privacy *PrivacyFacts
	// Gate is the release gate's result on this table, shown as it is
	// (nil: no section).
	Gate *Gate
}

// PrivacyFacts are the privacy report's key facts shown in a quality report.
type PrivacyFacts struct {
	Method  string `json:"method"`
	Status  string `json:"guarantee_status"`
	Claimed string `json:"claimed"`
}

// Gate is a release gate's result (package gate computes it, from the
// owner's rows against held-out rows; the report only shows it): each
// owner's membership-inference attacks, their advantages (2·AUC − 1) with
// intervals, and the verdict.
type Gate struct {
	// Holdout says where the non-members came from.
	Holdout string      `json:"holdout"`
	Refused bool        `json:"refused"`
	Verdict string      `json:"verdict"`
	Caveat  string      `json:"caveat"`
	Owners  []GateOwner `json:"owners"`
}

// GateOwner is one owner's check.
type GateOwner struct {
	Owner        string       `json:"owner"`
	Members      int          `json:"members"`
	NonMembers   int          `json:"non_members"`
	MaxAdvantage float64      `json:"max_advantage"`
	Confidence   float64      `json:"confidence"`
	Refused      bool         `json:"refused"`
	Attacks      []GateAttack `json:"attacks"`
	Reasons      []string     `json:"reasons,omitempty"`
	Warnings     []string     `json:"warnings,omitempty"`
}

// GateAttack is one attack's advantage and its confidence interval.
type GateAttack struct {
	Name      string  `json:"name"`
	Advantage float64 `json:"advantage"`
	Lower     float64 `json:"lower"`
	Upper     float64 `json:"upper"`
	Detail    string  `json:"detail"`
}

// Report is the outcome of Compare.
type Report struct {
	Notice    string `json:"notice"`
	RealRows  int    `json:"real_rows"`
	SynthRows int    `json:"synthetic_rows"`
	// Binning says how the distances bin the columns (utility.Binning).
	Binning     string        `json:"binning"`
	Columns     []Column      `json:"columns"`
	Marginals   []Marginal    `json:"marginals"`
	Association Association   `json:"association"`
	Classifier  *Classifier   `json:"classifier,omitempty"`
	Privacy     *PrivacyFacts `json:"privacy,omitempty"`
	Gate        *Gate         `json:"gate,omitempty"`
	Warnings    []string      `json:"warnings,omitempty"`
}

// Compare measures synth against real; both must have the same
// attributes (the real table's ID column, if any, is not compared).
func Compare(real, synth *data.Table, o Options) (*Report, error) {
	if !real.Schema.EqualAttributes(synth.Schema) {
		return nil, errors.New("quality: the real and synthetic tables have different schemas")
	}
	if real.Len() == 0 || synth.Len() == 0 {
		return nil, fmt.Errorf("quality: empty table (real %d rows, synthetic %d)", real.Len(), synth.Len())
	}
	o.Bins = cmp.Or(o.Bins, utility.DefaultBins)
	o.MaxSets = cmp.Or(o.MaxSets, 300)
	if o.Bins < 2 || o.MaxSets < 1 {
		return nil, fmt.Errorf("quality: bins %d (need ≥ 2) or max sets %d (need ≥ 1) out of range", o.Bins, o.MaxSets)
	}
	if o.Source == nil {
		o.Source = randx.NewSecure()
	}
	if o.Label != "" {
		if err := checkLabel(real.Schema, o.Label); err != nil {
			return nil, err
		}
	}
	r := &Report{Notice: Notice, RealRows: real.Len(), SynthRows: synth.Len(), Binning: utility.Binning(o.Bins), Privacy: o.Privacy, Gate: o.Gate}
	r.Columns = compareColumns(real, synth, o.Bins)
	r.Marginals = compareMarginals(real, synth, o.Bins, o.MaxSets)
	r.Association = compareAssociation(real, synth)
	if o.Label != "" {
		c, err := compareClassifier(real, synth, o.Label, o.Source)
		if err != nil {
			return nil, err
		}
		r.Classifier = c
		if c.SynthAccuracy < c.Majority {
			r.Warnings = append(r.Warnings, fmt.Sprintf("a classifier trained on the synthetic rows (accuracy %.3f) does worse than always predicting the majority class (%.3f)", c.SynthAccuracy, c.Majority))
		}
	}
	if o.Gate != nil && o.Gate.Refused {
		r.Warnings = append(r.Warnings, "the release gate refused this table: "+o.Gate.Verdict+"; do not publish it")
	}
	r.Warnings = append(r.Warnings, columnWarnings(r.Columns)...)
	for _, m := range r.Marginals {
		if m.Order == 1 && m.Mean > 0.25 {
			r.Warnings = append(r.Warnings, fmt.Sprintf("one-way distributions differ a lot (mean total variation %.2f): the synthetic data is mostly noise at this budget", m.Mean))
		}
	}
	return r, nil
}
