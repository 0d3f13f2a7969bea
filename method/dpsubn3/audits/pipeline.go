package audits

import (
	"context"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method/dpsubn3"
	bn "github.com/dppub/dppub/method/privbayes"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// PipelineDPSUBN3 audits DP-SUBN3 (dpsubn3.Publish) with three owners of
// rows at ε = 1 each; the canary is in owner 1's rows.
func PipelineDPSUBN3(variant string) (audit.Mechanism, error) {
	return audit.PipelineMechanism(audit.PipelineSpec{Name: "dp-subn3", Attrs: audit.PipelineAttrs,
		Run: func(ctx context.Context, t *data.Table, div float64, src *randx.Source) (*data.Table, *privacy.Report, error) {
			st := dpsubn3.Settings{Settings: bn.Settings{Epsilon: audit.PipelineEpsilon * div}}
			res, err := dpsubn3.Publish(ctx, dpsubn3.Options{Settings: st, Owners: audit.SplitRows(t, audit.PipelineOwners), Source: src})
			if err != nil {
				return nil, nil, err
			}
			return res.Synthetic, res.Report, nil
		}}, variant)
}
