package transport

import "testing"

// SkipFaultsInShort skips, under -short, a test that makes a fault
// happen between real processes and waits for its effect (seconds
// each). This package's tests and the integration tests of
// transport_test share it, so that -short leaves out the same kind of
// test with the same reason everywhere.
func SkipFaultsInShort(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("a fault between real processes (seconds); runs without -short")
	}
}
