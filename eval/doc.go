// Package eval reproduces the papers' experiments. Every experiment writes
// its results in one long-form CSV (columns: experiment, dataset, task,
// method, calibration, noise, epsilon, delta, parties, k, reps, metric,
// mean, std) and a PNG plot per figure. Accuracy is always measured the
// papers' way: train a linear SVM on the (synthetic or private) training
// output, test it on the real held-out 20%.
package eval
