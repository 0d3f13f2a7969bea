// Package eval is the harness of the experiments that reproduce the
// papers' figures; each method's own experiments live in its folder
// (method/<name>/figures) and the registry eval/all lists them.
//
// Every experiment writes its results in one long-form CSV (Row, WriteCSV;
// columns: experiment, dataset, task, method, calibration, noise, epsilon,
// delta, parties, k, reps, metric, mean, std) and PNG plots (WritePNG,
// WritePanels). Accuracy is always measured the papers' way (Task,
// Split80, SVMAccuracy, NoPrivacy): train a linear SVM on the (synthetic
// or private) training output, test it on the real held-out 20%. A
// comparison with another method's synthetic data (Comparison, Baseline,
// BaselineRows) runs that method by name through the registry, so a
// method's figures import no other method. An Experiment is what
// `dppub eval <name>` runs: its flags, its run and its files (FigureFlags,
// WriteFiles, WriteFigure).
package eval
