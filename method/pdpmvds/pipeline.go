package pdpmvds

import (
	"context"
	"fmt"
	"time"

	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/method"
	proto "github.com/dppub/dppub/method/pdpmvds/roles"
	"github.com/dppub/dppub/method/synthesize"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// Options configure a multi-party PDP-MVDS publication in one
// process: K data owners holding different columns of the same records
// and a semi-trusted third party S, every message marshalled, the roles
// sharing no memory.
type Options struct {
	Settings Settings
	// Tables holds one table per party: the same records (aligned by ID
	// when the tables have IDs, by position otherwise), disjoint columns.
	Tables []*data.Table
	// Budgets is every party's zCDP budget ρ_k (Settings.Rho and
	// Settings.Budgets are set from it).
	Budgets []float64
	// Names of the parties (default party-1, …).
	Names []string
	// Keys are the parties' key files from the key ceremony (`dppub
	// keygen`), indexed by party. Empty: an in-process dealer makes them
	// (reported).
	Keys []*proto.KeyFile
	// Source drives noise, masks, keys and post-processing (default
	// randx.NewSecure()).
	Source *randx.Source
	// Progress reports the engine's stages.
	Progress func(stage string, done, total int)
}

// Published is the published table, what it cost, and how.
type Published struct {
	Synthetic *data.Table
	Report    *privacy.Report
	Engine    *marginal.Result
	Domain    *domain.Domain
	Parties   []synthesize.Party
	// Phases are the protocol's per-phase wall time, Paillier operations
	// and bytes sent by every role.
	Phases []proto.Phase
	// Clamped counts values outside their declared bounds (for the
	// parties' eyes only).
	Clamped int
	// KeysDealt says the in-process dealer made the Paillier key.
	KeysDealt bool
	Elapsed   time.Duration
	// Linkage is what the record linkage did and revealed (Settings.Link;
	// nil otherwise): every party's number of IDs, the intersection's
	// size, the traffic. For the parties' eyes: the privacy report says
	// which counts the linkage revealed but does not list the parties'
	// numbers of IDs.
	Linkage *LinkReport
}

// Publish publishes a synthetic table from vertically partitioned data
// through the multi-party protocol of PDP-MVDS: the method's session
// built in one process, its engine's measurements each run as one
// protocol session (timing every phase).
func Publish(ctx context.Context, o Options) (*Published, error) {
	start := time.Now()
	if o.Source == nil {
		o.Source = randx.NewSecure()
	}
	align := alignTables
	if o.Settings.Link {
		align = linkableTables
	}
	tables, err := align(o.Tables)
	if err != nil {
		return nil, err
	}
	lo, err := o.layout(tables)
	if err != nil {
		return nil, err
	}
	// Checked before a key is dealt (BuildLocal checks them again).
	o.Settings.DefaultRecords(smallest(tables))
	if err := o.Settings.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", Name, method.SettingsError{Err: err})
	}
	dealt, err := o.keys(&lo)
	if err != nil {
		return nil, err
	}
	b, err := method.BuildLocal(Spec, &o.Settings, lo)
	if err != nil {
		return nil, err
	}
	sess := b.Session.(*Session)
	var linkage *LinkReport
	var linkPhase []proto.Phase
	if o.Settings.Link {
		began := time.Now()
		ls, stats, err := sess.LinkLocal(ctx, b.Roles)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", Name, err)
		}
		sess = ls
		linkage = &LinkReport{Parties: o.Names, Records: map[string]int{}, Common: ls.Settings.Records, Reveals: linkReveals,
			Assumption: linkAssumption, Randomness: randx.NewSecure().Describe() + " (the linkage keys, also in a seeded run)", InProcess: true,
			Messages: stats.Messages, BytesSent: stats.Bytes, Seconds: time.Since(began).Seconds()}
		for k, t := range tables {
			linkage.Records[o.Names[k]] = t.Len()
		}
		linkPhase = []proto.Phase{{Name: "linkage", Requests: 1, Wall: time.Since(began), Messages: stats.Messages, Bytes: stats.Bytes}}
	}
	out, phases, err := sess.RunMeasured(ctx, b.Roles, b.Accountants, b.Source, Progress(o.Progress), dealt)
	if err != nil {
		return nil, err
	}
	d := out.Detail.(*Result)
	res := &Published{Synthetic: out.Table, Report: out.Report, Engine: d.Engine, Domain: d.Domain, Phases: append(linkPhase, phases...),
		Clamped: b.Facts.Clamped, KeysDealt: dealt, Elapsed: time.Since(start), Linkage: linkage}
	for _, p := range d.Parties {
		res.Parties = append(res.Parties, synthesize.Party(p))
	}
	return res, nil
}

// layout names the parties and gives each its table (without IDs, once
// aligned) and budget.
func (o *Options) layout(tables []*data.Table) (method.LocalOptions, error) {
	k := len(tables)
	if len(o.Budgets) != k {
		return method.LocalOptions{}, fmt.Errorf("publish: %d budgets for %d parties", len(o.Budgets), k)
	}
	if len(o.Names) == 0 {
		for i := range k {
			o.Names = append(o.Names, proto.PartyID(i))
		}
	}
	if len(o.Names) != k {
		return method.LocalOptions{}, fmt.Errorf("publish: %d names for %d parties", len(o.Names), k)
	}
	lo := method.LocalOptions{Coordinator: proto.CoordinatorID, Source: o.Source,
		Members: map[string][]string{RoleThirdParty: {proto.ThirdPartyID}}, Attach: map[string]any{}}
	o.Settings.Budgets = map[string]float64{}
	for i, t := range tables {
		name := o.Names[i]
		if o.Settings.Link {
			lo.AddOwner(name, t) // linked in the session, by its ID column
		} else {
			lo.AddOwner(name, withoutIDs(t))
		}
		o.Settings.Budgets[name] = o.Budgets[i]
	}
	return lo, nil
}

// withoutIDs drops the ID column of an aligned table: the protocol
// aligns rows by position.
func withoutIDs(t *data.Table) *data.Table {
	if t.IDs == nil && t.Schema.ID == "" {
		return t
	}
	c := *t
	c.Schema.ID, c.IDs = "", nil
	return &c
}

// linkableTables checks that every party's table has rows and an ID
// column, for a session that links them (Settings.Link); the IDs
// themselves are checked by each party as it joins.
func linkableTables(ts []*data.Table) ([]*data.Table, error) {
	if len(ts) < 2 {
		return nil, fmt.Errorf("publish: linkage of %d tables: need at least 2", len(ts))
	}
	for k, t := range ts {
		switch {
		case t == nil || t.Len() == 0:
			return nil, fmt.Errorf("publish: party %d's table is empty", k+1)
		case t.Schema.ID == "" || len(t.IDs) != t.Len():
			return nil, fmt.Errorf("publish: party %d's table has no ID column: linkage needs one", k+1)
		}
	}
	return ts, nil
}

// smallest is the smallest table's record count.
func smallest(ts []*data.Table) int {
	n := ts[0].Len()
	for _, t := range ts {
		n = min(n, t.Len())
	}
	return n
}

// alignTables checks that the parties hold the same records and orders
// every table like the first (by ID when they have IDs).
func alignTables(ts []*data.Table) ([]*data.Table, error) {
	n := ts[0].Len()
	for k, t := range ts {
		if t == nil || t.Len() == 0 {
			return nil, fmt.Errorf("publish: party %d's table is empty", k+1)
		}
		if t.Len() != n {
			return nil, fmt.Errorf("publish: party %d holds %d records, party 1 holds %d: vertically partitioned tables must hold the same records", k+1, t.Len(), n)
		}
		if (t.IDs == nil) != (ts[0].IDs == nil) {
			return nil, fmt.Errorf("publish: party %d's table %s IDs but party 1's %s", k+1, has(t.IDs != nil), has(ts[0].IDs != nil))
		}
	}
	if ts[0].IDs == nil {
		return ts, nil
	}
	pos := make(map[string]int, n)
	for i, id := range ts[0].IDs {
		if _, dup := pos[id]; dup {
			return nil, fmt.Errorf("publish: party 1 holds ID %q twice", id)
		}
		pos[id] = i
	}
	out := []*data.Table{ts[0]}
	for k, t := range ts[1:] {
		order := make([]int, n)
		seen := make([]bool, n)
		for i, id := range t.IDs {
			j, ok := pos[id]
			if !ok || seen[j] {
				return nil, fmt.Errorf("publish: party %d's ID %q is not a distinct ID of party 1", k+2, id)
			}
			seen[j] = true
			order[j] = i
		}
		out = append(out, t.Subset(order))
	}
	return out, nil
}

func has(b bool) string {
	if b {
		return "has"
	}
	return "has no"
}

// keys attaches the parties' key files and S's public key (paillier
// suite): given, or dealt in this process (reported as such).
func (o *Options) keys(lo *method.LocalOptions) (bool, error) {
	st := o.Settings
	if st.SSPP != proto.SuitePaillier {
		return false, nil
	}
	parties := len(o.Names)
	files, dealt := o.Keys, false
	if len(files) == 0 {
		deal := proto.DealKeys
		if st.InsecureTestKeys {
			deal = proto.DealInsecureTestKeys
		}
		var err error
		if _, files, err = deal(paillier.NewReader(o.Source.Child()), st.KeyBits, parties); err != nil {
			return false, fmt.Errorf("publish: %w", err)
		}
		dealt = true
	}
	if len(files) != parties {
		return false, fmt.Errorf("publish: %d key files for %d parties", len(files), parties)
	}
	for k, f := range files {
		if f == nil || f.Party != k || f.Parties != parties {
			return false, fmt.Errorf("publish: key file %d is not party %d's of %d", k+1, k+1, parties)
		}
		if err := f.Validate(); err != nil {
			return false, fmt.Errorf("publish: %w", err)
		}
		if !f.PublicKey.Equal(files[0].PublicKey) {
			return false, fmt.Errorf("publish: key files 1 and %d are for different keys", k+1)
		}
		lo.Attach[o.Names[k]] = &Keys{Party: f}
	}
	if bits := files[0].PublicKey.Bits(); bits != st.KeyBits {
		return false, fmt.Errorf("publish: the key files hold a %d-bit key, the settings' key_bits is %d (the report states the settings')", bits, st.KeyBits)
	}
	lo.Attach[proto.ThirdPartyID] = &Keys{Public: files[0].PublicKey}
	return dealt, nil
}
