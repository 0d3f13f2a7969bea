package dppcasvm

import (
	"context"
	"fmt"
	"time"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/learn"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/method/dppcasvm/dppca"
	"github.com/dppub/dppub/model"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// Options configure Publish: one of the DPPCA variants (Method) in one process.
type Options struct {
	Method dppca.Method
	// Table holds the training records of the single data owner.
	Table *data.Table
	// Label is the categorical or binary attribute to predict; Features
	// are the attributes to use (nil: all others).
	Label    string
	Features []string
	// Epsilon is the whole budget; Delta (ag-svm, mod-sulq-svm) defaults
	// to 1/n² as in the paper's experiments.
	Epsilon, Delta float64
	Calibration    dppca.Calibration // default sound
	Scaling        Scaling           // default box
	// Contribution is α (default 0.85) unless K > 0 fixes k.
	Contribution float64
	K            int
	// ComponentShare is the share of ε spent on the components by the
	// sound calibration (default 0.5).
	ComponentShare float64
	// C is the cost of the paper's non-private SVM (default 1).
	C float64
	// Lambda and Huber configure the sound DP SVM (defaults
	// dppca.DefaultLambda and dppca.DefaultHuber); Perturbation 0 means
	// objective (output for pca-dpsvm).
	Lambda, Huber float64
	Perturbation  learn.Perturbation
	Source        *randx.Source
}

// Published is the published model and what it cost.
type Published struct {
	Model  *model.Model
	Report *privacy.Report
	Fit    *dppca.Result
	// Clamped counts values clamped to declared bounds (not private:
	// local use only).
	Clamped int
	Elapsed time.Duration
}

// Publish trains and publishes one of the four methods' models from one
// owner's table: the method's central run in one
// process.
func Publish(o Options) (*Published, error) {
	spec, err := For(o.Method)
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	st := New(o.Method)
	st.Label, st.Features, st.Epsilon, st.Delta = o.Label, o.Features, o.Epsilon, o.Delta
	st.Calibration, st.Scaling, st.Contribution, st.K = o.Calibration, o.Scaling, o.Contribution, o.K
	st.ComponentShare, st.C, st.Lambda, st.Huber = o.ComponentShare, o.C, o.Lambda, o.Huber
	switch o.Perturbation {
	case learn.ObjectivePerturbation:
		st.DPSVM = Objective
	case learn.OutputPerturbation:
		st.DPSVM = Output
	}
	out, err := method.RunCentral(context.Background(), spec, st, method.Local{Table: o.Table, Source: o.Source})
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	d := out.Detail.(*Result)
	return &Published{Model: d.Model, Report: out.Report, Fit: d.Fit, Clamped: d.Clamped, Elapsed: d.Elapsed}, nil
}
