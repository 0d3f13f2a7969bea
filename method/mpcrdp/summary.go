package mpcrdp

import (
	"fmt"
	"io"

	"github.com/dppub/dppub/learn"
	algo "github.com/dppub/dppub/method/mpcrdp/crdp"
)

// WriteSummary tells the owner who ran the release in one process what it
// did, for the owner's eyes only (not published unless the report says
// so): the selection, each party's sensitivity analysis of its real data,
// what each notion would give for this release, the release's accuracy on
// the joined records or the queries' error, and the protocol's traffic.
func (res *Result) WriteSummary(w io.Writer, cfg algo.Config, parties int) error {
	r := res.Result
	fmt.Fprintf(w, "Published selection: best β = %v\n  adjusted α = %v\n", r.Best, r.Adjusted)
	if r.Chosen >= 0 {
		fmt.Fprintf(w, "  MP-OP chose %v among %d candidate groups (utility %s)\n", r.Candidates[r.Chosen], len(r.Candidates), cfg.Utility)
	}
	fmt.Fprintf(w, "  final features (%d): %v\n", len(r.Final), r.Final)
	fmt.Fprintf(w, "Computed from your real data, for your eyes only (not published unless the report says so):\n")
	for _, a := range r.Analyses {
		fmt.Fprintf(w, "  %s: ΔCS_n = %g, K_n = %d, ΔCS_n/K_n = %.4f at w0 = %g\n", a.Party, a.Sensitivity, a.K, a.MeanDegree, cfg.InitialThreshold)
	}
	s := r.Sensitivities
	fmt.Fprintf(w, "  MCD = %.4f; final features: ΔGS = %d, ΔCS = %g (K = %d) at w0 = %g, ΔCS_p = %g (K = %d) at w0 = MCD\n",
		r.MCD, s.GroupSensitivity, s.Sensitivity, s.K, cfg.InitialThreshold, s.SensitivityP, s.KP)
	fmt.Fprintf(w, "  what each notion would give for this release:\n")
	for _, line := range NotionTable(cfg, parties, s) {
		fmt.Fprintf(w, "    %s\n", line)
	}
	if out := r.Output; out != nil {
		switch out.Kind {
		case algo.Queries:
			fmt.Fprintf(w, "  %d queries answered (%d skipped: other features), Laplace scale %.4g, MAE %.4g\n",
				len(out.Answers), out.Skipped, out.NoiseScale, out.MAE)
		default:
			pred, err := res.Model.Apply(res.Merged)
			if err != nil {
				return err
			}
			truth, _, err := res.Model.Truth(res.Merged)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "  training accuracy of the published %s: %.4f on %d records\n", out.Kind, learn.Accuracy(pred, truth), len(truth))
		}
	}
	if res.Dropped > 0 {
		fmt.Fprintf(w, "  %d IDs were missing from some party and left out\n", res.Dropped)
	}
	fmt.Fprintf(w, "  protocol: %d messages, %.1f MB, %v\n", res.Traffic.Messages, float64(totalBytes(res.Traffic.Bytes))/1e6, res.Elapsed.Round(1e6))
	return nil
}

// ReleasesQueries says the settings release count queries (not a
// classifier).
func (s Settings) ReleasesQueries() bool { return s.Release == algo.Queries }

func totalBytes(m map[string]int) int {
	s := 0
	for _, v := range m {
		s += v
	}
	return s
}
