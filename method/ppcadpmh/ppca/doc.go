// Package ppca is the mathematics of PPCA-DP-MH (Gu, Zhang, Yang:
// "Multi-party high-dimensional related data publishing via probabilistic
// principal component analysis and differential privacy"; see
// ../shared/papers/ppca-dp-mh.txt and docs/errata.md#ppca-dp-mh):
// sensitivities of the moment sums, the noise plan for each calibration,
// aggregation of the owners' noisy moments, the PPCA model of the paper's
// Theorem 3, and sampling from it. It has no roles and no I/O; package
// method/ppcadpmh/roles runs it between owners and a curator.
package ppca
