package audits

import (
	"context"
	"fmt"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/method/synthesize"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// addPipelines adds the whole-pipeline audits.
func addPipelines(fam *audit.Family) {
	fam.Add(audit.PipelineMethod(pipelineSynthesize, fmt.Sprintf("the whole `%s` pipeline (one owner, ρ = %g, %d records × %d attributes) on a canary pair; --mechanism picks its selection or inference option (%s)",
		synthesize.Name, audit.PipelineRho, audit.CanaryRecords, audit.PipelineAttrs, synthesizeOptionNames()),
		func(o audit.MethodOptions) (audit.Mechanism, error) {
			return PipelineSynthesize(o.Calibration, o.Mechanism)
		}),
		synthesizeCases()...)
}

// pipelineSynthesize is the audit of the whole synthesize pipeline.
const pipelineSynthesize = "pipeline-" + synthesize.Name

// synthesizeOptions are the selection and inference options
// synthesize.Options exposes, by the name --mechanism takes ("" is
// the default pipeline).
var synthesizeOptions = []struct {
	name string
	set  func(*synthesize.Options)
}{
	{"", func(*synthesize.Options) {}},
	// The default, auto, runs the adaptive method on the canary tables'
	// few attributes; the paper method is audited by name, and its
	// options with it (the adaptive method has no pair score or one-way
	// noise to choose).
	{"indif", func(o *synthesize.Options) { o.Method, o.Score = marginal.MethodPaper, measurement.InDif }},
	{"laplace-one-way", func(o *synthesize.Options) {
		o.Method, o.OneWayNoise = marginal.MethodPaper, measurement.Laplace
	}},
	{"paper", func(o *synthesize.Options) { o.Method = marginal.MethodPaper }},
}

// synthesizeOption is the setter of the option named option ("" for the
// default), or an error naming audit and the options there are.
func synthesizeOption(audit, option string) (func(*synthesize.Options), error) {
	for _, o := range synthesizeOptions {
		if o.name == option {
			return o.set, nil
		}
	}
	return nil, fmt.Errorf("audit: %s has no option %q (want one of %s)", audit, option, synthesizeOptionNames())
}

func synthesizeOptionNames() string {
	names := []string{"default"}
	for _, s := range synthesizeOptions[1:] {
		names = append(names, s.name)
	}
	return fmt.Sprint(names)
}

// synthesizeCases are the suite's cases: every option of the sound
// pipeline; the default in fast mode, the others in long mode.
func synthesizeCases() []audit.Case {
	var cases []audit.Case
	for i, s := range synthesizeOptions {
		cases = append(cases, audit.Case{Method: pipelineSynthesize, Options: audit.MethodOptions{Mechanism: s.name}, Expect: audit.Pass, Long: i > 0})
	}
	return cases
}

// PipelineSynthesize audits `synthesize` (synthesize.Publish, one owner
// holding every column, ρ = 0.04) with the selection or inference option
// named by option ("" for the default). The claim is the report's ρ at
// δ = 1/n².
func PipelineSynthesize(variant, option string) (audit.Mechanism, error) {
	set, err := synthesizeOption(pipelineSynthesize, option)
	if err != nil {
		return audit.Mechanism{}, err
	}
	name := synthesize.Name
	if option != "" {
		name += " " + option
	}
	return audit.PipelineMechanism(audit.PipelineSpec{Name: name, Attrs: audit.PipelineAttrs,
		Run: func(ctx context.Context, t *data.Table, div float64, src *randx.Source) (*data.Table, *privacy.Report, error) {
			o := synthesize.Options{Table: t, Rho: audit.PipelineRho * div * div, Source: src}
			set(&o)
			res, err := synthesize.Publish(ctx, o)
			if err != nil {
				return nil, nil, err
			}
			return res.Synthetic, res.Report, nil
		}}, variant)
}
