// Package figures lends PrivBayes (Zhang et al., SIGMOD 2014 / TODS 2017)
// to the papers' figures that compare against it (LDA-DP Fig. 1) as a
// baseline; PrivBayes has no paper figures of its own here.
package figures

import (
	"context"
	"fmt"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/eval"
	bnspec "github.com/dppub/dppub/method/privbayes"
)

// Baseline is PrivBayes with its default parameters on one owner's
// training rows.
func Baseline() eval.Baseline {
	return eval.Baseline{Name: bnspec.Name, SingleOwner: true, Synthesize: func(ctx context.Context, p eval.BaselinePoint) (*data.Table, error) {
		if len(p.Owners) != 1 {
			return nil, fmt.Errorf("privbayes: %d owners, want one", len(p.Owners))
		}
		var o bnspec.BayesNetOptions
		o.Epsilon, o.Source = p.Epsilon, p.Source
		res, err := bnspec.Publish(ctx, bnspec.Options{BayesNetOptions: o, Table: p.Owners[0]})
		if err != nil {
			return nil, fmt.Errorf("privbayes ε=%v: %w", p.Epsilon, err)
		}
		return res.Synthetic, nil
	}}
}
