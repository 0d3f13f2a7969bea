// Package protocol holds what every multi-party method shares: the message
// envelope, a small binary codec for message bodies, the Role interface of
// a protocol participant, and the in-process runner.
//
// A Role is a local step object with no I/O: it is started, handed
// envelopes, and returns the envelopes it wants sent. Envelopes carry only
// bytes, so the same role code runs in one process (RunLocal, which
// marshals every message and shares no memory between roles) and across
// processes (a transport moves the same bytes).
package protocol
