package dppcasvm

import "fmt"

// Warnings that a release is mostly noise are computed from public
// quantities only, so they go into the published privacy report
// (dppca.NoiseWarning, through this method's report). ClassifierWarning,
// computed from the owner's rows, is for the owner's terminal only.

// ClassifierWarning says when a published classifier does no better than
// always predicting the most common class on the owner's own rows
// (accuracy at most the majority rate plus half a point). Both rates come
// from the private rows: print it on the owner's terminal, never in the
// published report.
func ClassifierWarning(accuracy, majority float64) string {
	if accuracy > majority+0.005 {
		return ""
	}
	return fmt.Sprintf("the classifier does no better than always predicting the most common class (%.1f%% of your rows right, against %.1f%% for the most common class): at this budget it has learnt nothing useful; a larger ε, more rows, or fewer columns would do better",
		100*accuracy, 100*majority)
}
