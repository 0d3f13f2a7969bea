package mullda

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/ledger"
	"github.com/dppub/dppub/method"
	proto "github.com/dppub/dppub/method/mullda/roles"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// Parties lists the parties that sign ledger entries in a publication
// with m owners: the owners, then the publisher (the dealer writes none).
func Parties(m int) []string {
	out := make([]string, 0, m+1)
	for i := 1; i <= m; i++ {
		out = append(out, method.OwnerName(i))
	}
	return append(out, RolePublisher)
}

// LedgerSetup connects a publication to a publishing ledger, the
// publisher operating it (Identities by role name: Parties).
type LedgerSetup = ledger.Setup

// NewMemoryLedger returns an in-memory ledger with fresh identities for the
// parties (keys drawn from random; nil means crypto/rand). The party named
// RolePublisher, which must be among them, operates it.
func NewMemoryLedger(parties []string, random io.Reader) (*LedgerSetup, error) {
	if !slices.Contains(parties, RolePublisher) {
		return nil, fmt.Errorf("publish: the ledger's parties %v do not include the %s", parties, RolePublisher)
	}
	ids := map[string]*ledger.Identity{}
	var members []ledger.Member
	for _, name := range parties {
		id, err := ledger.NewIdentity(random, name)
		if err != nil {
			return nil, fmt.Errorf("publish: %w", err)
		}
		ids[name] = id
		members = append(members, id.Member())
	}
	ring, err := ledger.NewKeyring(members...)
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	signer, err := ids[RolePublisher].NoteSigner()
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	verifier, err := ids[RolePublisher].Member().NoteVerifier()
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	log, err := ledger.NewMemory(ledger.Options{Keyring: ring, Signer: signer, Origin: "dppub/lda"})
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	return &LedgerSetup{Log: log, Identities: ids, Keyring: ring, Operator: verifier}, nil
}

// ledgerHandle is the ledger party name writes to in a session with s (nil
// without a ledger).
func ledgerHandle(s *LedgerSetup, name string) (*proto.Ledger, error) {
	if s == nil {
		return nil, nil
	}
	id, ok := s.Identities[name]
	if !ok {
		return nil, fmt.Errorf("publish: no ledger identity for %s", name)
	}
	return &proto.Ledger{Log: s.Log, Identity: id, Keyring: s.Keyring, Operator: s.Operator}, nil
}

// Options configure an LDA-DP or Mul-LDA-DP publication in one process.
type Options struct {
	Settings Settings
	// Owners are the owners' tables, all with the same schema.
	Owners []*data.Table
	// Ledger, if set, receives every party's entries and is verified at
	// the end.
	Ledger *LedgerSetup
	Source *randx.Source
}

// Published is the published output and what it cost.
type Published struct {
	*Result
	// Published holds the labelled projections: columns z1..zd in [−1, 1]
	// and the label.
	Published *data.Table
	Report    *privacy.Report
	// Model is the published model file's bytes.
	Model []byte
	// Ledger is the final verification of the ledger (nil without one).
	Ledger  *ledger.Report
	Clamped int // values clamped to declared bounds (not private: local use only)
	Traffic *protocol.Stats
	Elapsed time.Duration
}

// LDADP publishes with one owner (the paper's Algorithm 1).
func PublishSingle(ctx context.Context, o Options) (*Published, error) {
	return runLDA(ctx, o, Single)
}

// MulLDADP publishes with M ≥ 1 owners and, by default, the paper's
// correlated noise (Algorithm 2).
func PublishMulti(ctx context.Context, o Options) (*Published, error) {
	return runLDA(ctx, o, Multi)
}

func runLDA(ctx context.Context, o Options, spec method.Spec) (*Published, error) {
	lo := method.OwnersLocal(o.Owners, o.Source, RoleDealer)
	if o.Ledger != nil {
		lo.Attach = map[string]any{}
		for _, name := range Parties(len(o.Owners)) {
			h, err := ledgerHandle(o.Ledger, name)
			if err != nil {
				return nil, err
			}
			lo.Attach[name] = h
		}
	}
	start := time.Now()
	run, err := method.RunLocal(ctx, spec, &o.Settings, lo)
	if err != nil {
		return nil, err
	}
	out := &Published{Result: run.Outcome.Detail.(*Result), Published: run.Outcome.Table, Report: run.Outcome.Report,
		Model: run.Outcome.Files[0].Data, Clamped: run.Facts.Clamped, Traffic: run.Traffic}
	if o.Ledger != nil {
		if out.Ledger, err = verifyLedger(o.Ledger); err != nil {
			return nil, err
		}
	}
	out.Elapsed = time.Since(start)
	return out, nil
}

// verifyLedger audits the whole ledger against a fresh signed checkpoint.
func verifyLedger(s *LedgerSetup) (*ledger.Report, error) {
	cp, err := s.Log.Checkpoint()
	if err != nil {
		return nil, fmt.Errorf("publish: ledger checkpoint: %w", err)
	}
	rep, err := ledger.Verify(s.Log, s.Keyring, cp, s.Operator)
	if err != nil {
		return nil, fmt.Errorf("publish: the ledger does not verify: %w", err)
	}
	return rep, nil
}
