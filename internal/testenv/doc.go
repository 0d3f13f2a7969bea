// Package testenv helps tests find the module root and the shared
// evaluation datasets, which live in ../shared/data beside the
// repository and may be absent (tests that need them skip), and holds
// what tests of several packages share: the KS distance, gzipped files,
// messages' pinned wire bytes (CheckPinned), the check of a table
// case's error (ErrorCase) and the process CPU time of benchmarks that
// time two configurations against each other (CPUSeconds, BenchPair).
package testenv
