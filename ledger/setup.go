package ledger

import "golang.org/x/mod/sumdb/note"

// Setup connects a publication to a publishing ledger: the log, the
// identities that sign each party's entries, and who operates it. The log's
// checkpoints must be signed with the operator's identity.
type Setup struct {
	Log Ledger
	// Identities sign each party's entries, by role name.
	Identities map[string]*Identity
	// Keyring lists every member whose entries the log holds (it may
	// include parties of earlier sessions).
	Keyring Keyring
	// Operator verifies the operator's checkpoints.
	Operator note.Verifier
}
