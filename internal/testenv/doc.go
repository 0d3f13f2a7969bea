// Package testenv helps tests find the module root and the shared
// evaluation datasets, which live in ../shared/data beside the
// repository and may be absent (tests that need them skip).
package testenv
