package marginal

import "github.com/dppub/dppub/dp"

// The engine's typed words that Options.validate checks, each declared
// once beside the others (the words themselves are documented where they
// are defined).
var (
	scoreKinds  = dp.NewWords("score", IInDif, InDif).In("marginal")
	methods     = dp.NewWords("method", MethodPaper, MethodAdaptive).In("marginal")
	inferences  = dp.NewWords("inference", InferenceGUM, InferencePGM).In("marginal")
	refinements = dp.NewWords("refinement", RefineMeasured, RefineDecoded)
)
