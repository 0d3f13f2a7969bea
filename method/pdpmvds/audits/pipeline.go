package audits

import (
	"context"

	pdpspec "github.com/dppub/dppub/method/pdpmvds"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method/synthesize"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// PipelinePDPMVDS audits the PDP-MVDS protocol (pdpspec.Publish, default
// commodity suite and insider-safe noise) with two parties of columns
// (a1 | a2, a3) at ρ = 0.04 each. The canary changes every party's column, so
// the claim is the report's whole-record guarantee.
func PipelinePDPMVDS(variant string) (audit.Mechanism, error) {
	return audit.PipelineMechanism(audit.PipelineSpec{Name: "pdp-mvds", Attrs: audit.PipelineAttrs,
		Claim: func(r *privacy.Report) dp.Guarantee {
			if r.WholeRecord != nil {
				return *r.WholeRecord
			}
			return r.Claimed
		},
		Run: func(ctx context.Context, t *data.Table, div float64, src *randx.Source) (*data.Table, *privacy.Report, error) {
			tables, err := synthesize.VerticalSplit(t, audit.PipelineParties)
			if err != nil {
				return nil, nil, err
			}
			budgets := make([]float64, len(tables))
			for i := range budgets {
				budgets[i] = audit.PipelineRho * div * div
			}
			res, err := pdpspec.Publish(ctx, pdpspec.Options{Tables: tables, Budgets: budgets, Source: src})
			if err != nil {
				return nil, nil, err
			}
			return res.Synthetic, res.Report, nil
		}}, variant)
}
