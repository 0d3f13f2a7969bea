// Package utility measures how close a synthetic table is to the real one.
// These measurements read the real data: they are for the data owner's own
// eyes (or for experiments) and are never part of a published artifact.
package utility
