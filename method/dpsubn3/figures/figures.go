// Package figures lends DP-SUBN3 (Cheng et al., TKDE 2020; our
// reconstruction) to the papers' figures that compare against it
// (PPCA-DP-MH Figs. 3 and 4, LDA-DP Figs. 2 and 3) as a baseline; DP-SUBN3
// has no paper figures of its own here.
package figures

import (
	"context"
	"fmt"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/eval"
	"github.com/dppub/dppub/method/dpsubn3"
	bnspec "github.com/dppub/dppub/method/privbayes"
)

// Baseline is DP-SUBN3 with its default parameters (the frontier width
// from the point) on the owners' rows.
func Baseline() eval.Baseline {
	return eval.Baseline{Name: dpsubn3.Name, Synthesize: func(ctx context.Context, p eval.BaselinePoint) (*data.Table, error) {
		var st bnspec.Settings
		st.Epsilon = p.Epsilon
		res, err := dpsubn3.Publish(ctx, dpsubn3.Options{Owners: p.Owners, Source: p.Source,
			Settings: dpsubn3.Settings{Settings: st, Frontier: p.Frontier}})
		if err != nil {
			return nil, fmt.Errorf("dp-subn3 ε=%v m=%d: %w", p.Epsilon, len(p.Owners), err)
		}
		return res.Synthetic, nil
	}}
}
