// Package ppcadpmh defines PPCA-DP-MH (Gu, Zhang, Yang) as a method:
// owners of rows each release DP first and second moments to a curator,
// who fits probabilistic PCA and generates synthetic rows. Its settings,
// its session (the roles of method/ppcadpmh/roles built from it) and its
// privacy report are defined here once, for the one-process run
// (publish) and the networked run (transport) alike.
package ppcadpmh
