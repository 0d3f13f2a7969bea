package audits

import (
	"context"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method/ppcadpmh"
	"github.com/dppub/dppub/method/ppcadpmh/ppca"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// PipelinePPCA audits PPCA-DP-MH (ppcadpmh.Publish) with three owners of
// rows, the Laplace mechanism at ε = 1 per owner and local noise; the
// canary is in owner 1's rows and the claim is the report's per-owner
// guarantee. Besides the shared variants it takes "paper" (the paper's
// calibration, whose second moment is under-noised) and "paper-latent"
// (the paper's latent codes, projections of real rows: not DP, and the
// report says so, but the audit holds it to the budget to show the leak).
func PipelinePPCA(variant string) (audit.Mechanism, error) {
	var st ppcadpmh.Settings
	switch variant {
	case "paper":
		st.Calibration = ppca.Paper
	case "paper-latent":
		st.PaperLatent = true
	}
	if variant == "paper" || variant == "paper-latent" {
		variant = audit.VariantSound
	}
	return audit.PipelineMechanism(audit.PipelineSpec{Name: "ppca-dp-mh" + labelOf(st), Attrs: audit.PipelineAttrs,
		Claim: func(r *privacy.Report) dp.Guarantee { return r.Claimed },
		Run: func(ctx context.Context, t *data.Table, div float64, src *randx.Source) (*data.Table, *privacy.Report, error) {
			s := st
			s.Epsilon, s.Mechanism, s.K = audit.PipelineEpsilon*div, ppca.Laplace, 2
			res, err := ppcadpmh.Publish(ctx, ppcadpmh.Options{Settings: s, Owners: audit.SplitRows(t, audit.PipelineOwners), Source: src})
			if err != nil {
				return nil, nil, err
			}
			return res.Synthetic, res.Report, nil
		}}, variant)
}

func labelOf(st ppcadpmh.Settings) string {
	switch {
	case st.PaperLatent:
		return " paper-latent"
	case st.Calibration == ppca.Paper:
		return " paper"
	}
	return ""
}
