package audits

import (
	"context"
	"fmt"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/method/rowsynth"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// addPipeline adds the whole-session audit.
func addPipeline(fam *audit.Family) {
	fam.Add(audit.PipelineMethod("pipeline-"+rowsynth.Name, fmt.Sprintf("the whole synthesize-rows session (%d owners of rows, ρ = %g each, secure aggregation with distributed noise; --mechanism exact for the exact noise mode) on a canary pair in owner 1's rows",
		audit.PipelineOwners, audit.PipelineRho),
		func(o audit.MethodOptions) (audit.Mechanism, error) { return PipelineRows(o.Calibration, o.Mechanism) }),
		audit.Case{Method: "pipeline-" + rowsynth.Name, Expect: audit.Pass},
		audit.Case{Method: "pipeline-" + rowsynth.Name, Options: audit.MethodOptions{Mechanism: string(rowsynth.NoiseExact)}, Expect: audit.Pass, Long: true})
}

// PipelineRows audits synthesize-rows (method.RunLocal of rowsynth.Spec:
// every role, message and share of the protocol in one process) with
// three owners of rows at ρ = 0.04 each, in the noise mode named by mode
// ("" for the default, insider-safe). The canary is in owner 1's rows and
// the claim is the report's per-owner guarantee.
func PipelineRows(variant, mode string) (audit.Mechanism, error) {
	if err := checkNoiseMode("pipeline", mode); err != nil {
		return audit.Mechanism{}, err
	}
	return audit.PipelineMechanism(audit.PipelineSpec{Name: rowsynth.Name, Attrs: audit.PipelineAttrs,
		Run: func(ctx context.Context, t *data.Table, div float64, src *randx.Source) (*data.Table, *privacy.Report, error) {
			lo := method.LocalOwners(audit.SplitRows(t, audit.PipelineOwners), src)
			st := &rowsynth.Settings{Rho: audit.PipelineRho * div * div, Noise: rowsynth.NoiseMode(mode)}
			run, err := method.RunLocal(ctx, rowsynth.Spec, st, lo)
			if err != nil {
				return nil, nil, err
			}
			return run.Outcome.Table, run.Outcome.Report, nil
		}}, variant)
}
