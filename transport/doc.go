// Package transport runs dppub's multi-party methods across machines: the
// same role step objects that protocol.RunLocal drives in one process,
// hosted by one Node per consortium member and connected over HTTP/2 with
// mutual TLS (Connect, gRPC protocol; service in proto/dppub/transport/v1).
//
// Identity. Every member holds a certificate from the consortium's CA
// naming it dppub://<consortium>/<role>/<name> (package consortium). A
// node reads the caller's identity from the verified client certificate,
// refuses callers absent from its consortium file or whose role differs
// from it, and refuses an envelope whose From is not the caller. Clients
// verify that the server's certificate names the member they meant to
// reach.
//
// Sessions. A method's coordinating role (e.g. the PPCA-DP-MH curator)
// starts a session with Node.Run. It proposes the session to every
// participant (TypeOpen); each checks it against its own consortium file,
// its policy (no seeded randomness without consent; method-specific
// checks) and its remaining lifetime budget, builds its role, or refuses
// with a reason that reaches the coordinator. Only when all have accepted
// does the coordinator start them (TypeStart), so no statistic leaves
// anyone for a session that will not run. Envelopes carry a session ID and
// per-(sender, receiver) sequence numbers: a node acknowledges and ignores
// an envelope it already has (a retry or a replay), refuses a gap, and
// never runs a session ID twice. Messages above the size limit are
// refused. Each participant ends with a receipt of what the session
// charged to its budget (TypeReceipt); the coordinator then closes the
// session (TypeEnd) and its method publishes.
//
// Failures. A delivery that fails transiently — the member is not
// listening (restarting), the connection was cut or timed out, the member
// asks to retry — is retried up to the step deadline, and the liveness
// check below decides about a member that stays away. A failure no retry
// can change fails the session at once, with one line per member at
// fault naming it and the reason: a server certificate that does not
// chain to the consortium CA (or has expired), one that names another
// member than the one dialled (an impostor, or a wrong address), a TLS
// handshake the member refused (it does not trust this member's CA), a
// server that does not speak TLS, another transport version
// (ProtocolVersion, sent with every call and answer), and every refusal a
// member states with a connect code (policy, budget, unsound settings,
// authentication, malformed messages).
//
// Deadlines and faults. The coordinator polls every participant (Status)
// and aborts the session, naming the member at fault and publishing
// nothing, when a member reports a failure (TypeAbort or its status), has
// not answered for UnreachableAfter, has spent longer than the step
// deadline on one message, or when the session as a whole makes no
// progress for a step deadline. The coordinator polls a participant from
// the moment it accepts, even while others are still joining, so a
// participant that hears nothing from it for UnreachableAfter plus one
// ping interval takes it for dead (killed, say) and aborts its side.
// Every session also has an overall timeout.
//
// Budgets. A member holding data keeps a budgetstore ledger. Its role
// charges an in-memory privacy.Accountant holding the session's budget;
// after every step the node commits the new charges to the ledger in one
// transaction and only then sends the step's messages, so a crash can lose
// a release but never a recorded spend. Accepting a session reserves its
// budget in the ledger; when the session ends — done, or aborted because
// a member or the coordinator failed — the part it did not charge is
// released and the charges stay spent (they may have reached the
// coordinator); the ledger keeps each reservation with its state and
// reason. A member that starts again releases what its previous process
// left reserved. A ρ-zCDP session comes with its δ (Participant.Delta, the
// δ of the user's --epsilon/--delta), at which a ledger whose lifetime
// budget is (ε, δ) counts the whole session once (budgetstore.ReserveAt);
// without one such a member refuses it.
//
// Methods plug in with Register (see package transport/methods and the
// Example): a Prepare that builds the coordinator's role and the
// participants' setup, and a Join that builds a participant's role from
// its own data.
package transport
