package transport_test

import "testing"

// A 3-owner DP-SUBN3 session between real processes publishes, for the
// same seed, byte for byte the table of `dppub publish dp-subn3` in one
// process on the owners' files, and its privacy report but for the run
// record.
func TestDPSUBN3NetworkMatchesOneProcess(t *testing.T) {
	matchRows(t, "dp-subn3", 3, 4000,
		[]string{"--seed", "11", "--set", "epsilon=0.5", "--set", "k=2"},
		[]string{"--epsilon", "0.5", "--k", "2", "--seed", "11"})
}
