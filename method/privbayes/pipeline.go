package privbayes

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method"
	algo "github.com/dppub/dppub/method/privbayes/bayesnet"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// BayesNetOptions are the parameters PrivBayes and DP-SUBN3 share: the
// network's settings and the randomness.
type BayesNetOptions struct {
	Settings
	Source *randx.Source
	// Label names the attribute a user will predict from the synthetic
	// rows (default: the schema's Label; "" for none): the result warns
	// when the network leaves it independent of every other attribute.
	Label string
}

// Options configure a PrivBayes publication by one central owner.
type Options struct {
	BayesNetOptions
	Table *data.Table
}

// Published is a baseline's published table and what it cost.
type Published struct {
	Synthetic   *data.Table
	Report      *privacy.Report
	Model       *algo.Model
	Discretizer *algo.Discretizer
	Clamped     int             // values clamped to declared bounds (not private: local use only)
	Traffic     *protocol.Stats // nil for PrivBayes, which runs in one place
	Elapsed     time.Duration
	// Warnings about the learned network (NetworkWarnings), also in the
	// report's warnings.
	Warnings []string
}

// Publish publishes a synthetic table drawn from a PrivBayes model of
// o.Table (Zhang et al., SIGMOD 2014 / TODS 2017; see method/privbayes/bayesnet):
// the method's central run (method/privbayes) in one process.
func Publish(ctx context.Context, o Options) (*Published, error) {
	if o.Table == nil || o.Table.Len() < 2 {
		return nil, fmt.Errorf("publish: privbayes needs a table of at least 2 rows")
	}
	o.Label = cmp.Or(o.Label, o.Table.Schema.Label)
	if err := CheckLabel(o.Table.Schema, o.Label); err != nil {
		return nil, err
	}
	start := time.Now()
	facts := &method.Facts{}
	out, err := method.RunCentral(ctx, Spec, &o.Settings, method.Local{Table: o.Table, Source: o.Source, Facts: facts})
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	d := out.Detail.(*Result)
	res := &Published{Synthetic: out.Table, Report: out.Report, Model: d.Model, Discretizer: d.Discretizer,
		Clamped: facts.Clamped, Elapsed: time.Since(start)}
	res.Warn(o.Label)
	return res, nil
}

// CheckLabel checks that the label, when named, is an attribute of s.
func CheckLabel(s data.Schema, label string) error {
	if label == "" {
		return nil
	}
	if _, err := s.Index(label); err != nil {
		return fmt.Errorf("publish: label %q: %w", label, err)
	}
	return nil
}

// Warn sets r.Warnings from the learned network and adds them to the
// report.
func (r *Published) Warn(label string) {
	r.Warnings = NetworkWarnings(r.Model.Net, r.Synthetic.Schema, label)
	r.Report.Warnings = append(r.Report.Warnings, r.Warnings...)
}

// NetworkWarnings are what a user must hear about a learned (published)
// Bayesian network over schema s before using rows sampled from it: that
// it leaves the label (when named) independent of every other attribute,
// and that it has no edge at all. Both happen when the θ-useful parent
// domain τ = nε₂/(2dθ) is below every family's domain (few rows, many
// attributes, small ε or many bins), so that GreedyBayes can only pick
// empty parent sets.
func NetworkWarnings(net algo.Network, s data.Schema, label string) []string {
	d := len(s.Attributes)
	isolated := net.Isolated(d)
	const fix = "raise ε, lower --bins or --theta, or fix the degree with --k"
	var w []string
	if j, err := s.Index(label); label != "" && err == nil && slices.Contains(isolated, j) {
		w = append(w, fmt.Sprintf("the learned network leaves the label %q independent of every other attribute: "+
			"classifiers trained on the synthetic rows cannot beat predicting its most frequent value (%s)", label, fix))
	}
	if len(isolated) == d && d > 1 {
		w = append(w, fmt.Sprintf("the learned network has no edge: all %d attributes are sampled independently, "+
			"so the synthetic rows keep only the 1-way marginals (the θ-useful parent domain τ = nε₂/(2dθ) is "+
			"below every candidate family's domain; %s)", d, fix))
	}
	return w
}
