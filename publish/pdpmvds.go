package publish

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/dppub/dppub/algo/marginal"
	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol/pdpmvds"
	"github.com/dppub/dppub/randx"
)

// PDPMVDSOptions configure a multi-party PDP-MVDS publication: K data
// owners holding different columns of the same records and a
// semi-trusted third party S, run in one process through the protocol
// (every message marshalled, the roles sharing no memory).
type PDPMVDSOptions struct {
	// Tables holds one table per party: the same records (aligned by ID
	// when the tables have IDs, by position otherwise), disjoint columns.
	Tables []*data.Table
	// Budgets is every party's zCDP budget ρ_k.
	Budgets []float64
	// Names of the parties (default party-1, …).
	Names []string
	// Suite is the secure-computation suite (default commodity).
	Suite pdpmvds.Suite
	// Noise is the noise mode (default insider-safe).
	Noise pdpmvds.NoiseMode
	// Mechanism of the pair scores and the selected marginals (default
	// Gaussian; Laplace with the exact noise mode uses DLPA in the
	// Paillier suite, as the paper).
	Mechanism marginal.Mechanism
	// KeyBits sizes every Paillier key (default 2048); InsecureTestKeys
	// allows smaller, INSECURE keys (tests only).
	KeyBits          int
	InsecureTestKeys bool
	// Keys are the parties' key files from the key ceremony (`dppub
	// keygen`), indexed by party. Empty: an in-process dealer makes them
	// (reported).
	Keys []*pdpmvds.KeyFile
	// Bins and BinsFor discretise numeric attributes over their declared
	// bounds (default marginal.DefaultBins).
	Bins    int
	BinsFor map[string]int
	// Split of every ρ_k (default 0.1 / 0.1 / 0.8).
	Split marginal.Split
	// Combine configures marginal combination.
	Combine marginal.CombineOptions
	// Rounds of GUM (default 30) and Rows of synthetic data (default n).
	Rounds, Rows int
	// Delta states each party's zCDP spend as (ε, δ)-DP too (default 1/n²).
	Delta float64
	// Workers bounds each role's parallelism (0: GOMAXPROCS).
	Workers int
	// Source drives noise, masks, keys and post-processing (default
	// randx.NewSecure()).
	Source *randx.Source
	// Progress reports the engine's stages.
	Progress func(stage string, done, total int)
}

// PDPMVDSResult is the published table, what it cost, and how.
type PDPMVDSResult struct {
	Synthetic *data.Table
	Report    *privacy.Report
	Engine    *marginal.Result
	Domain    *marginal.Domain
	Parties   []SynthesizeParty
	// Phases are the protocol's per-phase wall time, Paillier operations
	// and bytes sent by every role.
	Phases []pdpmvds.Phase
	// Clamped counts, per party, values outside their declared bounds
	// (for that party's eyes only).
	Clamped []int
	// KeysDealt says the in-process dealer made the Paillier key.
	KeysDealt bool
	Elapsed   time.Duration
}

// VerticalSplit gives each of parties owners a contiguous group of t's
// columns (near-equal sizes), every owner keeping all records: the
// `--dataset NAME --parties K` column split.
func VerticalSplit(t *data.Table, parties int) ([]*data.Table, error) {
	ps, err := EvenParties(t.Schema, make([]float64, parties))
	if err != nil {
		return nil, err
	}
	groups := make([][]string, len(ps))
	for k, p := range ps {
		groups[k] = p.Attributes
	}
	return data.SplitVertical(t, groups)
}

// PDPMVDS publishes a synthetic table from vertically partitioned data
// through the multi-party protocol of PDP-MVDS.
func PDPMVDS(ctx context.Context, o PDPMVDSOptions) (*PDPMVDSResult, error) {
	start := time.Now()
	if err := o.defaults(); err != nil {
		return nil, err
	}
	tables, err := alignTables(o.Tables)
	if err != nil {
		return nil, err
	}
	n := tables[0].Len()
	if o.Delta == 0 {
		o.Delta = dp.DefaultDelta(n)
	}
	if !(o.Delta > 0 && o.Delta < 1) {
		return nil, fmt.Errorf("publish: delta %v must be in (0, 1)", o.Delta)
	}
	schema, owners, err := globalSchema(tables)
	if err != nil {
		return nil, err
	}
	dom, err := marginal.NewDomain(schema, marginal.DomainOptions{Bins: o.Bins, BinsFor: o.BinsFor})
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	session := pdpmvds.Session{Parties: len(tables), Records: n, Sizes: dom.Sizes(), Owners: owners,
		Suite: o.Suite, Noise: o.Noise, KeyBits: o.KeyBits, InsecureTestKeys: o.InsecureTestKeys}
	if err := session.Validate(); err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	res := &PDPMVDSResult{Domain: dom}
	keys, pk, err := o.keys(session, res)
	if err != nil {
		return nil, err
	}
	m, accts, err := o.roles(session, dom, tables, keys, pk, res)
	if err != nil {
		return nil, err
	}
	var eo marginal.Options
	eo, res.Parties = o.engineOptions(dom, owners, n)
	eo.Source = o.Source.Child()
	eng, err := marginal.Synthesize(ctx, m, eo)
	res.Phases = m.Phases()
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	res.Engine = eng
	if res.Synthetic, err = dom.Decode(eng.Data, o.Source.Child()); err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	if res.Report, err = pdpmvdsReport(o, session, eng, accts, n, res.KeysDealt); err != nil {
		return nil, err
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

func (o *PDPMVDSOptions) defaults() error {
	k := len(o.Tables)
	if k < 2 {
		return fmt.Errorf("publish: pdp-mvds needs at least 2 parties' tables, got %d", k)
	}
	if len(o.Budgets) != k {
		return fmt.Errorf("publish: %d budgets for %d parties", len(o.Budgets), k)
	}
	for i, b := range o.Budgets {
		if !(b > 0) || math.IsInf(b, 0) {
			return fmt.Errorf("publish: party %d needs a positive finite rho, got %v", i+1, b)
		}
	}
	if len(o.Names) == 0 {
		for i := range k {
			o.Names = append(o.Names, pdpmvds.PartyID(i))
		}
	}
	if len(o.Names) != k {
		return fmt.Errorf("publish: %d names for %d parties", len(o.Names), k)
	}
	if o.Mechanism == "" {
		o.Mechanism = marginal.Gaussian
	}
	if o.Mechanism != marginal.Gaussian && o.Mechanism != marginal.Laplace {
		return fmt.Errorf("publish: unknown mechanism %q (want gaussian or laplace)", o.Mechanism)
	}
	if o.Suite == "" {
		o.Suite = pdpmvds.SuiteCommodity
	}
	if o.Noise == "" {
		o.Noise = pdpmvds.NoiseInsiderSafe
	}
	if o.KeyBits == 0 {
		o.KeyBits = pdpmvds.DefaultKeyBits
	}
	if o.Source == nil {
		o.Source = randx.NewSecure()
	}
	return nil
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

// globalSchema concatenates the parties' attributes (party order) and
// returns the owner of each.
func globalSchema(ts []*data.Table) (data.Schema, []int, error) {
	var s data.Schema
	var owners []int
	seen := map[string]int{}
	for k, t := range ts {
		for _, a := range t.Schema.Attributes {
			if o, dup := seen[a.Name]; dup {
				return data.Schema{}, nil, fmt.Errorf("publish: attribute %q is held by parties %d and %d; vertical parts must be disjoint", a.Name, o+1, k+1)
			}
			seen[a.Name] = k
			s.Attributes = append(s.Attributes, a)
			owners = append(owners, k)
		}
	}
	return s, owners, nil
}

// keys returns the parties' key files: given, or dealt in process.
func (o *PDPMVDSOptions) keys(s pdpmvds.Session, res *PDPMVDSResult) ([]*pdpmvds.KeyFile, *paillier.PublicKey, error) {
	if s.Suite != pdpmvds.SuitePaillier {
		return nil, nil, nil
	}
	if len(o.Keys) > 0 {
		if len(o.Keys) != s.Parties {
			return nil, nil, fmt.Errorf("publish: %d key files for %d parties", len(o.Keys), s.Parties)
		}
		for k, f := range o.Keys {
			if f == nil || f.Party != k || f.Parties != s.Parties {
				return nil, nil, fmt.Errorf("publish: key file %d is not party %d's of %d", k+1, k+1, s.Parties)
			}
			if err := f.Validate(); err != nil {
				return nil, nil, fmt.Errorf("publish: %w", err)
			}
			if !f.PublicKey.Equal(o.Keys[0].PublicKey) {
				return nil, nil, fmt.Errorf("publish: key files 1 and %d are for different keys", k+1)
			}
		}
		return o.Keys, o.Keys[0].PublicKey, nil
	}
	r := paillier.NewReader(o.Source.Child())
	deal := pdpmvds.DealKeys
	if o.InsecureTestKeys {
		deal = pdpmvds.DealInsecureTestKeys
	}
	pk, files, err := deal(r, o.KeyBits, s.Parties)
	if err != nil {
		return nil, nil, fmt.Errorf("publish: %w", err)
	}
	res.KeysDealt = true
	return files, pk, nil
}

// roles builds the parties (with their discretised columns and
// accountants), S and the measurer.
func (o *PDPMVDSOptions) roles(s pdpmvds.Session, dom *marginal.Domain, ts []*data.Table, keys []*pdpmvds.KeyFile, pk *paillier.PublicKey, res *PDPMVDSResult) (*pdpmvds.Measurer, []*privacy.Accountant, error) {
	var parties []*pdpmvds.Party
	var accts []*privacy.Accountant
	g := 0
	for k, t := range ts {
		cols, clamped := PDPMVDSColumns(dom, t, g)
		g += len(t.Schema.Attributes)
		res.Clamped = append(res.Clamped, clamped)
		a, err := privacy.NewAccountant(privacy.AccountantOptions{Party: o.Names[k], Budget: dp.Concentrated(o.Budgets[k])})
		if err != nil {
			return nil, nil, fmt.Errorf("publish: %w", err)
		}
		po := pdpmvds.PartyOptions{Session: s, Index: k, Columns: cols, Accountant: a, Source: o.Source.Child(), Workers: o.Workers}
		if keys != nil {
			po.Keys = keys[k]
		}
		p, err := pdpmvds.NewParty(po)
		if err != nil {
			return nil, nil, fmt.Errorf("publish: %w", err)
		}
		parties = append(parties, p)
		accts = append(accts, a)
	}
	third, err := pdpmvds.NewThirdParty(pdpmvds.ThirdPartyOptions{Session: s, PublicKey: pk, Source: o.Source.Child(), Workers: o.Workers})
	if err != nil {
		return nil, nil, fmt.Errorf("publish: %w", err)
	}
	m, err := pdpmvds.NewMeasurer(pdpmvds.MeasurerOptions{Parties: parties, ThirdParty: third})
	if err != nil {
		return nil, nil, fmt.Errorf("publish: %w", err)
	}
	return m, accts, nil
}

// signStepThreat is what a malicious coordinator could learn through the
// sign step: it chooses every score request's reference counts (RefA,
// RefB) and budget ρ, and the parties check neither against the published
// one-way counts (only that the noise matches the ρ asked for).
const signStepThreat = "a MALICIOUS coordinator is not covered: it chooses the reference one-way counts and the ρ of every pair-score request, and the parties check only that the noise matches that ρ, so for a pair with one of its own attributes it can send score requests at a negligible ρ with reference counts of its choosing; the sign step (Algorithm 1, step 5) then tells it, for every cell, whether the true joint count lies above the threshold it chose, and about log₂ n such requests reveal the exact joint counts of its attributes with the partner's (the signs of a pair it is not part of go to that pair, and to S in the Paillier suite)"

func pdpmvdsReport(o PDPMVDSOptions, s pdpmvds.Session, eng *marginal.Result, accts []*privacy.Accountant, n int, dealt bool) (*privacy.Report, error) {
	records := map[string]int{}
	for _, a := range accts {
		records[a.Party()] = n
	}
	ro := privacy.ReportOptions{
		Method:       fmt.Sprintf("pdp-mvds multi-party protocol (Algorithms 1-3 as in docs/errata.md#pdp-mvds-algorithms; %s suite, %s noise)", s.Suite, s.Noise),
		Calibration:  "sound",
		Randomness:   o.Source.Describe(),
		Seeded:       !o.Source.IsSecure(),
		Composition:  privacy.PersonalisedPerParty,
		Accountants:  accts,
		Records:      records,
		DeltaForZCDP: o.Delta,
		Assumptions: []string{
			fmt.Sprintf("the record count n = %d is public (replace-one neighbours share it) and is used without noise", n),
			"the parties hold the same records and have aligned them beforehand (by ID or row order); which records are in the data set is not protected",
			"numeric attributes are clamped to the bounds declared in the schema and cut into equal-width bins over them; bounds, bins and categories are public and do not depend on the data",
			fmt.Sprintf("sensitivities under replace-one: a count vector moves by L1 %g / L2 %.4g; the IInDif pair score by %g", marginal.CountL1, marginal.CountL2, marginal.IInDifSensitivity),
			"Laplace releases are charged ε²/2 in zCDP (Bun & Steinke 2016); each party's spend is also stated as (ε, δ)-DP at δ = " + fmt.Sprintf("%.3g", o.Delta),
			"personalised budgets: each party's guarantee covers a change of one record's values in that party's columns; a release over columns of several parties satisfies the strictest of their budgets and is charged to each",
			"noise shares are drawn in floating point and rounded to fixed point before they are combined, like DLPA; not the hardened single-party samplers",
		},
		Covered: []string{
			"the noisy one-way marginals, the noisy pair scores and the noisy selected marginals, which the coordinating party (the one that runs the engine) receives",
			"everything derived from them: the pair selection (Algorithm 2), the combined attribute sets, the post-processed marginals and the synthetic rows (GUM and the uniform draw of numeric values inside their bins are post-processing)",
		},
		NotCovered: []string{
			fmt.Sprintf("the record count n = %d", n),
			"Algorithm 1, step 5 (the sign step) reveals to the two parties of every cross-party attribute pair (a, b), for every cell (i, j), the sign of N*_{a=i}·N*_{b=j} − n·N_{a=i,b=j}, i.e. whether the true joint count lies below or above the product of the published noisy one-way counts divided by n: exact, noiseless information about the other party's data",
		},
		ThreatModel: []string{
			"semi-honest parties and semi-honest third party S: everyone follows the protocol; S holds no data",
			"S colludes with no party, and no two parties collude",
			"the channels between roles are private and authenticated",
			"the coordinating party receives every noisy release (covered by DP) and runs the post-processing and GUM",
			signStepThreat,
		},
	}
	switch s.Suite {
	case pdpmvds.SuitePaillier:
		ro.NotCovered = append(ro.NotCovered, fmt.Sprintf(
			"in the Paillier suite the decrypting party of each pair also learns t·r + r' per cell (t the value above in fixed point, r < 2^%d and r' < r random), i.e. |t| up to an unknown factor; S learns the signs", s.StatBits))
		ro.ThreatModel = append(ro.ThreatModel,
			"Paillier suite: Goethals et al.'s scalar products under each party's own key; aggregation under one shared key whose decryption exponent is split 2-of-2 between every pair of parties, so any two parties together could decrypt everything S handles",
			fmt.Sprintf("Paillier keys of %d bits; encryption uses the short-exponent randomness of Damgård, Jurik & Nielsen (an extra indistinguishability assumption); masks hide with statistical distance 2^-%d", s.KeyBits, s.StatBits))
		ro.Assumptions = append(ro.Assumptions,
			"Paillier suite, Laplace releases: the noise is DLPA (Rastogi & Nath 2010) on integer shares drawn 2^16 times finer than the grid; its law is not exactly discrete Laplace, and the excess privacy loss per release is estimated numerically at about 2·10⁻⁵ in ε, not proven (docs/privacy-design.md); the commodity suite's Pólya shares are exact")
		if dealt {
			ro.ThreatModel = append(ro.ThreatModel, "the shared key was dealt in this process (the dealer knew the factorisation and could decrypt everything); in a deployment run `dppub keygen` at a dealer that is neither S nor a party, and have it erase the key")
		} else {
			ro.ThreatModel = append(ro.ThreatModel, "the shared key came from a key ceremony (`dppub keygen`): its dealer knew the factorisation, must be neither S nor a party, and must have erased the key")
		}
	default:
		ro.NotCovered = append(ro.NotCovered,
			fmt.Sprintf("in the commodity suite S learns |t·r + r'| per cell of every cross-party pair (t as above in fixed point, r < 2^%d and r' < r drawn by the pair), i.e. |t| up to an unknown factor", 15))
		ro.ThreatModel = append(ro.ThreatModel,
			"commodity suite: Du & Atallah's commodity-server scalar products mod 2^64 (S deals correlated randomness and sees no data), the rest of Algorithm 1 on additive shares with S's help; no Paillier encryption")
	}
	if s.Noise == pdpmvds.NoiseInsiderSafe {
		ro.Covered = append(ro.Covered, "every release spanning parties is protected at its charged budget against outsiders, S, and each single party: every party and S draw a noise share, and any K of the K+1 shares already make up the calibrated noise (the total noise variance is (K+1)/K times the calibrated one)")
	} else {
		ro.Warnings = append(ro.Warnings,
			"exact noise mode (the paper's): only the measured parties draw noise shares, which sum to exactly the calibrated noise; the charged guarantee holds against outsiders and S, but a party knows its own share, so against a fellow party a Gaussian release is only ρ·m/(m−1)-zCDP (m parties measured) and a DLPA Laplace release has no quantified guarantee")
	}
	if len(accts) > 1 {
		whole := dp.Concentrated(totalRho(eng))
		ro.WholeRecord = &whole
		ro.Warnings = append(ro.Warnings, wholeRecordWarning(whole))
	}
	if s.KeyBits < paillier.MinBits && s.Suite == pdpmvds.SuitePaillier {
		ro.Warnings = append(ro.Warnings, fmt.Sprintf("INSECURE %d-bit Paillier keys: for tests only; the cryptographic protection is void", s.KeyBits))
	}
	r, err := privacy.NewReport(ro)
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	return r, nil
}
