package marginal

import (
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/measurement"
)

// The engine's typed words (those Options.validate checks, and those the
// settings parse), each declared
// once beside the others (the words themselves are documented where they
// are defined).
var (
	scoreKinds = dp.NewWords("score", measurement.IInDif, measurement.InDif).In("marginal")
	methods    = dp.NewWords("method", MethodPaper, MethodAdaptive).In("marginal")
	inferences = dp.NewWords("inference", InferenceGUM, InferencePGM).In("marginal")
	optimizers = dp.NewWords("optimizer", OptimizerAuto, OptimizerMirrorDescent, OptimizerMomentum)
	penalties  = dp.NewWords("penalty", PenaltyAIM, PenaltyClipped)
)
