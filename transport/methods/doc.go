// Package methods registers dppub's multi-party methods with the
// transport, so that `dppub serve` and `dppub run` can run them across
// machines. Each method is one file: a Prepare that builds the
// coordinator's role and the participants' setup from the consortium file
// and the method's settings, a Join that builds a participant's role from
// its own data, and a Finish that publishes what the one-process pipeline
// in package publish publishes, with the same privacy report.
//
// Adding a method: write its Prepare/Join over the role constructors of
// protocol/<method>, call transport.Register from an init function, and
// check in a test that a seeded run gives the one-process output.
package methods
