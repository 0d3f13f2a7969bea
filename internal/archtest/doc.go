// Package archtest holds the test that keeps docs/ARCHITECTURE.md true: it
// reads the layer table of that file and the module's import graph
// (`go list -json ./...`) and fails when a package imports one listed
// later in the table, or when a package is missing from the table.
package archtest
