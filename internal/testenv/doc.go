// Package testenv helps tests find the module root and the shared
// evaluation datasets, which live in ../shared/data beside the
// repository and may be absent (tests that need them skip), and holds
// what tests of several packages share: the KS distance, gzipped files,
// and messages' pinned wire bytes (CheckPinned).
package testenv
