// Package consortium describes a group of dppub members that run
// multi-party methods together over the network: the consortium file
// (members, their roles and addresses, each data owner's dataset, budget
// and ledger, transport limits, and default settings per method), the
// consortium's certificate authority and one certificate and key per
// member.
//
// A member's identity is its certificate's only dppub URI SAN,
// dppub://<consortium>/<role>/<name>: the transport reads who is calling
// from the verified certificate, never from a message.
//
// The file is JSON (encoding/json, no dependency): the dataset schemas
// dppub reads are JSON already, and the file is small and written once.
package consortium
