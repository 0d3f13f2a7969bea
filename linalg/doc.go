// Package linalg holds the few linear-algebra helpers dppub needs on top of
// gonum: moment accumulation, sorted symmetric eigendecomposition, and
// projection of a noisy symmetric matrix onto the PSD cone.
package linalg
