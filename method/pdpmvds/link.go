package pdpmvds

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/protocol/psi"
	"github.com/dppub/dppub/randx"
)

// CommonIDs are the IDs every table holds, in ascending order: the rows
// a linked session keeps, in the order it keeps them.
func CommonIDs(tables []*data.Table) []string {
	count := map[string]int{}
	for _, t := range tables {
		for _, id := range t.IDs {
			count[id]++
		}
	}
	var ids []string
	for id, c := range count {
		if c == len(tables) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// LinkReport says what a record linkage did and what it revealed. It
// holds no ID and no row of anyone.
type LinkReport struct {
	Parties []string `json:"parties"`
	// Records is each party's number of rows (IDs) going in: every party
	// learns them.
	Records map[string]int `json:"records"`
	// Common is the size of the intersection: the rows every linked table
	// keeps, in one order.
	Common int `json:"common"`
	// Reveals lists what every party learns besides its own common rows.
	Reveals []string `json:"reveals"`
	// Assumption is what the protection of the other IDs rests on.
	Assumption string `json:"assumption"`
	// Randomness describes the source of the parties' secret keys.
	Randomness string `json:"randomness"`
	// InProcess says all parties ran in this one process.
	InProcess bool           `json:"in_process"`
	Messages  int            `json:"messages"`
	BytesSent map[string]int `json:"bytes_sent"`
	Seconds   float64        `json:"seconds"`
}

// What a linkage reveals and under which assumption (package protocol/psi
// states it in full).
var (
	linkReveals = []string{
		"every party's number of IDs",
		"the size of the intersection (the records linked)",
		"the size of every region of the parties' Venn diagram (e.g. how many IDs parties 1 and 2 hold that party 3 lacks), since every party receives every fully blinded set",
		"to each party, which of its own IDs are common and, for each of its own IDs, which other parties hold it",
	}
	linkAssumption = "semi-honest parties (each follows the protocol); decisional Diffie–Hellman in the prime-order subgroup of edwards25519, SHA-512 as a random oracle; no party learns an ID it does not hold, and no k−1 parties together can test a guessed ID against the remaining party's set"
)

// Link runs record linkage between parties holding columns of
// overlapping sets of people under a common ID column (multi-party
// Diffie–Hellman PSI, package protocol/psi, every role in this process
// with protocol.RunLocal): it returns each party's table restricted to
// the IDs every party holds, all in one order, with the ID column dropped
// (PDP-MVDS aligns rows by position), and a report of what the linkage
// revealed (LinkReport.Reveals: the intersection size, but also every
// region of the parties' Venn diagram) and under which assumption. No
// privacy budget is spent: the linkage reveals set sizes and, to each
// party, facts about its own IDs, which are outside DP's accounting (a
// later DP release on the linked tables treats their row count as
// public). Every table needs an ID column with distinct, non-empty IDs.
// src (default randx.NewSecure()) draws the parties' secret keys.
func Link(ctx context.Context, tables []*data.Table, src *randx.Source) ([]*data.Table, LinkReport, error) {
	out, _, rep, err := link(ctx, tables, src)
	return out, rep, err
}

// link is Link, also returning each party's common rows (indices into
// its table) in the common order.
func link(ctx context.Context, tables []*data.Table, src *randx.Source) ([]*data.Table, [][]int, LinkReport, error) {
	start := time.Now()
	if src == nil {
		src = randx.NewSecure()
	}
	if len(tables) < 2 {
		return nil, nil, LinkReport{}, fmt.Errorf("publish: linkage of %d tables: need at least 2", len(tables))
	}
	params := psi.Params{Session: fmt.Sprintf("link-%016x", src.Uint64())}
	rep := LinkReport{Records: map[string]int{}, Reveals: linkReveals, Assumption: linkAssumption,
		Randomness: src.Describe(), InProcess: true}
	for k, t := range tables {
		if t == nil || t.Schema.ID == "" || len(t.IDs) != t.Len() {
			return nil, nil, rep, fmt.Errorf("publish: party %d's table has no ID column: linkage needs one", k+1)
		}
		params.Parties = append(params.Parties, fmt.Sprintf("party-%d", k+1))
	}
	rep.Parties = params.Parties
	parties := make([]*psi.Party, len(tables))
	roles := make([]protocol.Role, len(tables))
	for k, t := range tables {
		p, err := psi.NewParty(psi.PartyOptions{ID: params.Parties[k], Params: params, IDs: t.IDs, Source: src.Child()})
		if err != nil {
			return nil, nil, rep, err
		}
		parties[k], roles[k] = p, p
	}
	stats, err := protocol.RunLocal(ctx, roles...)
	if err != nil {
		return nil, nil, rep, fmt.Errorf("publish: linkage: %w", err)
	}
	rep.Messages, rep.BytesSent = stats.Messages, stats.Bytes
	out := make([]*data.Table, len(tables))
	rows := make([][]int, len(tables))
	for k, p := range parties {
		res, err := p.Result()
		if err != nil {
			return nil, nil, rep, err
		}
		rows[k] = res.Rows
		rep.Records[params.Parties[k]] = tables[k].Len()
		linked := tables[k].Subset(res.Rows)
		linked.Schema.ID, linked.IDs = "", nil
		out[k] = linked
	}
	rep.Common = len(rows[0])
	rep.Seconds = time.Since(start).Seconds()
	return out, rows, rep, nil
}
