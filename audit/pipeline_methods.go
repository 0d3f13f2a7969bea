package audit

import (
	"context"
	"fmt"
	"slices"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/method/dpsubn3"
	pdpmvdsspec "github.com/dppub/dppub/method/pdpmvds"
	"github.com/dppub/dppub/method/ppcadpmh"
	"github.com/dppub/dppub/method/ppcadpmh/ppca"
	bn "github.com/dppub/dppub/method/privbayes"
	"github.com/dppub/dppub/method/synthesize"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// The pipeline audits registered here, with their budgets: small enough
// that the claimed ε (about 1 to 1.5 at δ = 1/n²) lies well below the
// ceiling of their run counts (PipelinePower), so that a leak would show.
const (
	pipelineRho     = 0.04 // synthesize, per party for pdp-mvds (zCDP)
	pipelineEpsilon = 1.0  // ppca-dp-mh and dp-subn3, per owner (pure DP)
	pipelineOwners  = 3
	pipelineAttrs   = 3
	// pipelineParties of columns for pdp-mvds: party 1 holds a1, party 2
	// a2 and a3 (two parties cost 6 ms a run, three 10 ms).
	pipelineParties = 2
)

func init() {
	variants := func(extra ...string) []string { return append(slices.Clone(pipelineVariants), extra...) }
	register(Method{Name: pipelineSynthesize, Summary: fmt.Sprintf("the whole `%s` pipeline (one owner, ρ = %g, %d records × %d attributes) on a canary pair; --mechanism picks its selection or inference option (%s)",
		synthesize.Name, pipelineRho, canaryRecords, pipelineAttrs, synthesizeOptionNames()),
		Calibrations: variants(), FastRuns: 1_000, LongRuns: 10_000,
		build: func(o MethodOptions) (Mechanism, error) { return PipelineSynthesize(o.Calibration, o.Mechanism) }},
		synthesizeCases()...)
	register(Method{Name: "pipeline-ppca-dp-mh", Summary: fmt.Sprintf("the whole PPCA-DP-MH pipeline (%d owners of rows, ε = %g each, Laplace, local noise) on a canary pair in owner 1's rows; also the paper calibration and --paper-latent",
		pipelineOwners, pipelineEpsilon),
		Calibrations: variants("paper", "paper-latent"), FastRuns: 1_000, LongRuns: 10_000,
		build: func(o MethodOptions) (Mechanism, error) { return PipelinePPCA(o.Calibration) }},
		Case{Method: "pipeline-ppca-dp-mh", Expect: Pass})
	register(Method{Name: "pipeline-dp-subn3", Summary: fmt.Sprintf("the whole DP-SUBN3 pipeline (%d owners of rows taking turns, ε = %g each) on a canary pair in owner 1's rows",
		pipelineOwners, pipelineEpsilon),
		Calibrations: variants(), FastRuns: 1_000, LongRuns: 10_000,
		build: func(o MethodOptions) (Mechanism, error) { return PipelineDPSUBN3(o.Calibration) }},
		Case{Method: "pipeline-dp-subn3", Expect: Pass})
	register(Method{Name: "pipeline-pdp-mvds", Summary: fmt.Sprintf("the whole PDP-MVDS protocol run (%d parties of columns, ρ = %g each, commodity suite) on a canary pair; claim: the report's whole-record guarantee",
		pipelineParties, pipelineRho),
		Calibrations: variants(), FastRuns: 1_000, LongRuns: 10_000,
		build: func(o MethodOptions) (Mechanism, error) { return PipelinePDPMVDS(o.Calibration) }},
		Case{Method: "pipeline-pdp-mvds", Expect: Pass})
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
	{"indif", func(o *synthesize.Options) { o.Method, o.Score = marginal.MethodPaper, marginal.InDif }},
	{"laplace-one-way", func(o *synthesize.Options) {
		o.Method, o.OneWayNoise = marginal.MethodPaper, marginal.Laplace
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
func synthesizeCases() []Case {
	var cases []Case
	for i, s := range synthesizeOptions {
		cases = append(cases, Case{Method: pipelineSynthesize, Options: MethodOptions{Mechanism: s.name}, Expect: Pass, Long: i > 0})
	}
	return cases
}

// PipelineSynthesize audits `synthesize` (synthesize.Publish, one owner
// holding every column, ρ = 0.04) with the selection or inference option
// named by option ("" for the default). The claim is the report's ρ at
// δ = 1/n².
func PipelineSynthesize(variant, option string) (Mechanism, error) {
	set, err := synthesizeOption(pipelineSynthesize, option)
	if err != nil {
		return Mechanism{}, err
	}
	name := synthesize.Name
	if option != "" {
		name += " " + option
	}
	return pipelineMechanism(pipelineSpec{name: name, attrs: pipelineAttrs,
		run: func(ctx context.Context, t *data.Table, div float64, src *randx.Source) (*data.Table, *privacy.Report, error) {
			o := synthesize.Options{Table: t, Rho: pipelineRho * div * div, Source: src}
			set(&o)
			res, err := synthesize.Publish(ctx, o)
			if err != nil {
				return nil, nil, err
			}
			return res.Synthetic, res.Report, nil
		}}, variant)
}

// splitRows gives each of k owners a contiguous block of t's records, the
// first owner the first block (which holds the canary record 0).
func splitRows(t *data.Table, k int) []*data.Table {
	n := t.Len()
	out := make([]*data.Table, k)
	for i := range k {
		rows := make([]int, 0, n/k+1)
		for r := i * n / k; r < (i+1)*n/k; r++ {
			rows = append(rows, r)
		}
		out[i] = t.Subset(rows)
	}
	return out
}

// PipelinePPCA audits PPCA-DP-MH (ppcadpmh.Publish) with three owners of
// rows, the Laplace mechanism at ε = 1 per owner and local noise; the
// canary is in owner 1's rows and the claim is the report's per-owner
// guarantee. Besides the shared variants it takes "paper" (the paper's
// calibration, whose second moment is under-noised) and "paper-latent"
// (the paper's latent codes, projections of real rows: not DP, and the
// report says so, but the audit holds it to the budget to show the leak).
func PipelinePPCA(variant string) (Mechanism, error) {
	var st ppcadpmh.Settings
	switch variant {
	case "paper":
		st.Calibration = ppca.Paper
	case "paper-latent":
		st.PaperLatent = true
	}
	if variant == "paper" || variant == "paper-latent" {
		variant = VariantSound
	}
	return pipelineMechanism(pipelineSpec{name: "ppca-dp-mh" + labelOf(st), attrs: pipelineAttrs,
		claim: func(r *privacy.Report) dp.Guarantee { return r.Claimed },
		run: func(ctx context.Context, t *data.Table, div float64, src *randx.Source) (*data.Table, *privacy.Report, error) {
			s := st
			s.Epsilon, s.Mechanism, s.K = pipelineEpsilon*div, ppca.Laplace, 2
			res, err := ppcadpmh.Publish(ctx, ppcadpmh.Options{Settings: s, Owners: splitRows(t, pipelineOwners), Source: src})
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

// PipelineDPSUBN3 audits DP-SUBN3 (dpsubn3.Publish) with three owners of
// rows at ε = 1 each; the canary is in owner 1's rows.
func PipelineDPSUBN3(variant string) (Mechanism, error) {
	return pipelineMechanism(pipelineSpec{name: "dp-subn3", attrs: pipelineAttrs,
		run: func(ctx context.Context, t *data.Table, div float64, src *randx.Source) (*data.Table, *privacy.Report, error) {
			st := dpsubn3.Settings{Settings: bn.Settings{Epsilon: pipelineEpsilon * div}}
			res, err := dpsubn3.Publish(ctx, dpsubn3.Options{Settings: st, Owners: splitRows(t, pipelineOwners), Source: src})
			if err != nil {
				return nil, nil, err
			}
			return res.Synthetic, res.Report, nil
		}}, variant)
}

// PipelinePDPMVDS audits the PDP-MVDS protocol (pdpmvdsspec.Publish, default
// commodity suite and insider-safe noise) with two parties of columns
// (a1 | a2, a3) at ρ = 0.04 each. The canary changes every party's column, so
// the claim is the report's whole-record guarantee.
func PipelinePDPMVDS(variant string) (Mechanism, error) {
	return pipelineMechanism(pipelineSpec{name: "pdp-mvds", attrs: pipelineAttrs,
		claim: func(r *privacy.Report) dp.Guarantee {
			if r.WholeRecord != nil {
				return *r.WholeRecord
			}
			return r.Claimed
		},
		run: func(ctx context.Context, t *data.Table, div float64, src *randx.Source) (*data.Table, *privacy.Report, error) {
			tables, err := synthesize.VerticalSplit(t, pipelineParties)
			if err != nil {
				return nil, nil, err
			}
			budgets := make([]float64, len(tables))
			for i := range budgets {
				budgets[i] = pipelineRho * div * div
			}
			res, err := pdpmvdsspec.Publish(ctx, pdpmvdsspec.Options{Tables: tables, Budgets: budgets, Source: src})
			if err != nil {
				return nil, nil, err
			}
			return res.Synthetic, res.Report, nil
		}}, variant)
}
