// Package ledger is the tamper-evident publishing ledger shared by the data
// owners and the publisher of a multi-party release: the "blockchain" of the
// LDA-DP / Mul-LDA-DP paper (see docs/errata.md#mul-lda-dp-blockchain),
// reduced to the properties the paper relies on. It is append-only, every
// entry is signed by its sender, and any party can audit what was published.
//
// Every Entry (noisy statistics submitted, direction computed, artifact
// published, budget spent, ...) carries its sequence number, its sender's
// name, the session, a time, the canonical bytes of its content and
// PrevHash, the hash of the previous entry. The sender signs all of it with
// Ed25519, so a signature also vouches for the whole history the sender saw.
//
// The hash of an entry is the RFC 6962 leaf hash of its canonical encoding
// (tlog.RecordHash); the same hashes are the leaves of a Merkle tree
// (golang.org/x/mod/sumdb/tlog). The log operator (the publisher) signs tree
// heads as checkpoints (golang.org/x/mod/sumdb/note), in the text form
//
//	<origin>
//	<size>
//	<base64 root hash>
//
// An owner who keeps the checkpoints it saw can then check, without
// downloading the log, that one entry is in it (VerifyInclusion) and that a
// later checkpoint extends an earlier one (VerifyConsistency): history
// cannot be rewritten between two checkpoints without detection. Verify
// walks a whole log: signatures, chain, sequence numbers, and the Merkle
// root against a signed checkpoint.
//
// Backends sit behind the Ledger interface: Memory for tests and FileLedger,
// an append-only file of checksummed records that is fsynced on every
// append and that survives a crash at any point (a torn final record is cut
// off and reported on Open; corruption anywhere else is an error).
//
// Threat model: the checksums only catch accidents; tampering is caught by
// the signatures, the chain and the Merkle tree. A dishonest operator can
// refuse appends or show different logs to different parties (a fork); the
// owners detect a fork only by comparing the checkpoints they hold (gossip),
// which this package makes cheap but does not do for them.
package ledger
