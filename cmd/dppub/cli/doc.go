// Package cli implements the dppub command line. Commands only parse flags,
// load inputs, call the library (package publish and friends) and write
// outputs atomically; every error is one clear line and a non-zero exit.
package cli
