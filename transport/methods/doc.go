// Package methods puts every multi-party method of package method on the
// network, so that `dppub serve` and `dppub run` can run them across
// machines. There is one adapter for all of them (Adapt): the coordinator
// opens the method's session exactly as a one-process run does
// (method.RunLocal), hands each member its seed when the run is seeded,
// and publishes the method's outcome from the members' receipts; each
// member decodes the session, checks it against its own policy, budget
// and data, and builds its role with the method's own Join.
//
// Adding a method needs nothing here: register its spec in
// method/registry.
package methods
