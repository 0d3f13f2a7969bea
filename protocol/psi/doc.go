// Package psi runs record linkage between k ≥ 2 parties (the issue's
// target is k ≥ 3) holding records of overlapping sets of people under a
// common ID column: a multi-party Diffie–Hellman private set intersection
// (the steps are in package crypto/psi) that leaves every party with its
// own rows that are in the intersection, in one order common to all
// parties, so that owners of different columns (PDP-MVDS, MP-CRDP) can
// line their common records up by position without an ID leaving anyone.
//
// Rounds, the parties P_1 … P_k in the public ring order of Params:
//
//  1. P_i draws a fresh secret key a_i, hashes its IDs to the group,
//     blinds them (a_i·H(x)), sorts them by the blinded value (so the
//     order says nothing about its rows) and sends them to P_{i+1}.
//  2. Each party re-blinds every set it receives by its own key, keeping
//     the order, and passes it on round the ring; the k−1-th re-blinding
//     is done by P_{i−1}, which then sends the fully blinded set of P_i
//     to every party (and keeps it).
//  3. Once a party holds all k fully blinded sets, it takes the elements
//     present in all of them (crypto/psi.Common), ordered by their value,
//     and maps those of its own set back to its rows.
//
// Every party sends k−1 blinded sets of the others' and its own, and
// broadcasts one full set: k² scalar multiplications per ID in all.
//
// What leaks. Against semi-honest parties, under the DDH assumption in the
// prime-order subgroup of edwards25519 with SHA-512 as a random oracle, no
// party learns any ID it does not hold, and no coalition of k−1 parties
// can test a guessed ID against the remaining party's set. What the run
// does reveal, to every party: the number of IDs every party holds; the
// size of the intersection; and, because every party receives every fully
// blinded set, which fully blinded elements any two or more sets share,
// i.e. the size of every region of the parties' Venn diagram (for
// instance how many IDs P_1 and P_2 hold that P_3 lacks), and, for each of
// its own IDs, which of the other parties hold it (not only whether all
// do). A party learns nothing about IDs it does not hold beyond these
// counts. A variant leaking only the intersection would have the fully
// blinded sets compared by a party that holds none of them (the
// semi-trusted third party of PDP-MVDS, say), which sends each party only
// the positions of its common rows; that is not built here.
//
// In a session. A method whose parties hold columns of overlapping sets
// of people (PDP-MVDS with link set) runs the linkage as its first phase:
// each party's role is a Linking (Party, then the method's role built on
// its common rows), the coordinator's a Counter and a member that does not
// link (PDP-MVDS's third party S) an Awaiting. Over the network every
// member delivers its messages straight to the addressee (package
// transport), so the blinded and fully blinded sets travel between the
// parties only: the coordinator relays none and sees none. Each party
// sends the coordinator one CountMsg, the size of the intersection, which
// the coordinator checks is the same from every party and passes on to
// the members that did not link; the method that follows uses it as its
// public record count. So the coordinator and S learn the size of the
// intersection and nothing else about the parties' sets (not the
// parties' numbers of IDs, not the Venn-region sizes); the parties learn
// what is stated above. Were the sets relayed through the coordinator,
// it would learn every party's number of IDs and, from the fully blinded
// sets, under DDH exactly the Venn-region sizes (which elements any
// subset of the sets share), but no ID; that is not how it runs. None of
// these counts is protected by DP; a method's privacy report must say so.
//
// Messages are checked (sender, origin, hop count, sizes), replays are
// ignored and messages may arrive in any order. A set travels in one
// message of 32 bytes per ID, so one party's set is bounded by
// protocol.MaxPayload (about 8 million IDs).
package psi
