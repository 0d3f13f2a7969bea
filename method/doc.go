// Package method defines what a publishing method is, once: its settings
// (JSON tags, defaults, validation), the session its coordinator opens
// (the members, their roles and budgets) and the roles and the published
// outcome built from that session. Every way of running a method builds
// it through this package — publish in one process (RunLocal), transport
// across processes, the CLI, eval, audit and the demo — so a seeded
// networked run equals the one-process run by construction: the session
// ID and every member's randomness are drawn here, in one order.
//
// Each method's definition lives in its own package under method/ and
// registers itself in Registry with one line (method/registry).
package method
