package kit

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/gate"
	"github.com/dppub/dppub/internal/fsutil"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func markOwnerOnly(fs *pflag.FlagSet, names ...string) {
	for _, n := range names {
		_ = fs.SetAnnotation(n, OwnerOnlyKey, []string{"true"})
	}
}

// The gate's flags mean the same in check, compare, synthesize and
// publish: one help text each, registered here.
const (
	maxAdvantageHelp = "largest attack advantage (2·AUC − 1) accepted, in (0, 1)"
	HoldoutFileHelp  = "CSV of held-out rows of the same population, never given to the generator"
	GateQueriesHelp  = "members and non-members scored at most (drawn at random); the attacks cost queries × synthetic rows"
	// DefaultGateQueries is gate.Options' default MaxQueries.
	DefaultGateQueries = 1000
)

// RegisterMaxAdvantage adds --max-advantage (default 0.1, as gate.Options).
func RegisterMaxAdvantage(fs *pflag.FlagSet, v *float64) {
	fs.Float64Var(v, "max-advantage", 0.1, maxAdvantageHelp)
	markOwnerOnly(fs, "max-advantage")
}

// CheckMaxAdvantage refuses an advantage outside (0, 1).
func CheckMaxAdvantage(v float64) error {
	if !(v > 0 && v < 1) {
		return Usagef("--max-advantage must be in (0, 1), got %v", v)
	}
	return nil
}

// GateFlags are the release gate of a command that writes a synthetic
// table: --gate runs the membership-inference attacks of `dppub check` on
// the table about to be written, each owner's rows against held-out
// rows, and refuses to write it when an attack's advantage exceeds
// --max-advantage.
type GateFlags struct {
	On           bool
	holdout      string
	share        float64
	out          string
	maxAdvantage float64
	queries      int

	// Set by holdOut: each owner's non-members and where they came from.
	held   []*data.Table
	source string
	// Set by holdOutRecords: one pooled check of the joined records,
	// under this owner's name, and why it is pooled (nil and "": one
	// check per owner, named by method.OwnerName).
	names  []string
	pooled string
	// Set by checkSample on a pass (pending), and by guard or
	// PublishStreamed once the release is written (result), for the
	// summary line.
	pending, result *gate.Release
}

const defaultHoldoutShare = 0.2

// minGateQueries is the fewest queries gate.Check accepts.
const minGateQueries = 10

// Register adds the gate's flags: the one registration for every
// command that writes a synthetic table.
func (g *GateFlags) Register(fs *pflag.FlagSet) {
	fs.BoolVar(&g.On, "gate", false, fmt.Sprintf("release gate (owner only): before publishing, try to tell the owner's rows from held-out rows using the synthetic rows (as `dppub check`; a table of more than %d rows is checked on a uniform random sample of %d of them, and the result says how many of how many), and publish nothing if an attack's advantage exceeds --max-advantage; the result goes to --gate-out, never into the privacy report. The decision is not DP: the report records the gate and states the weaker guarantee (ε, δ + e^ε·P[refuse]) that holds, with P[refuse] bounded by %s", GateSampleRows, GateSampleRows, gateRefusalHelp()))
	fs.StringVar(&g.holdout, "gate-holdout", "", HoldoutFileHelp+" (with --gate; default: set --gate-holdout-share of the input rows aside)")
	fs.Float64Var(&g.share, "gate-holdout-share", defaultHoldoutShare, "with --gate and no --gate-holdout: share of each owner's rows set aside at random before synthesis, never given to the generator (the privacy report counts only the rows used)")
	fs.StringVar(&g.out, "gate-out", "", "the release gate's result for the owner, JSON (default <out>.gate.json; never published)")
	// Not --queries: mp-crdp's publish command has that for its input.
	fs.IntVar(&g.queries, "gate-queries", DefaultGateQueries, "with --gate: "+GateQueriesHelp+", as `dppub check --queries`")
	RegisterMaxAdvantage(fs, &g.maxAdvantage)
	markOwnerOnly(fs, "gate", "gate-holdout", "gate-holdout-share", "gate-out", "gate-queries")
}

// gateRefusalHelp states the measured false refusal rates for --gate's help.
func gateRefusalHelp() string {
	var parts []string
	for _, m := range gate.Measured {
		parts = append(parts, fmt.Sprintf("%s %d of %d (≤ %.2g)", m.Dataset, m.Refusals, m.Runs, m.Upper(gate.RefusalConfidence)))
	}
	return fmt.Sprintf("the default gate's false refusals measured with 'dppub synthesize --dataset D --gate' (%g%% upper bounds): %s, times the number of owners; at other gate settings no bound is known (P ≤ 1)", 100*gate.RefusalConfidence, strings.Join(parts, ", "))
}

// CheckGateFlags runs from checkOutputsFirst, before any data is read
// or budget spent, on every command that has --gate. Flags of the gate
// without --gate would look like a check that never ran.
func CheckGateFlags(fs *pflag.FlagSet) error {
	if fs.Lookup("gate") == nil {
		return nil
	}
	if FlagValue(fs, "gate") != "true" {
		for _, n := range []string{"gate-holdout", "gate-holdout-share", "gate-out", "gate-queries", "max-advantage"} {
			if fs.Changed(n) {
				return Usagef("--%s takes effect only with --gate", n)
			}
		}
		return nil
	}
	maxAdv, _ := fs.GetFloat64("max-advantage")
	if err := CheckMaxAdvantage(maxAdv); err != nil {
		return err
	}
	holdout := FlagValue(fs, "gate-holdout")
	if holdout != "" && fs.Changed("gate-holdout-share") {
		return Usagef("give --gate-holdout FILE or --gate-holdout-share, not both")
	}
	if share, _ := fs.GetFloat64("gate-holdout-share"); !(share > 0 && share < 1) {
		return Usagef("--gate-holdout-share must be in (0, 1), got %v", share)
	}
	if q, _ := fs.GetInt("gate-queries"); q < minGateQueries {
		return Usagef("--gate-queries must be at least %d, got %d", minGateQueries, q)
	}
	if holdout == StdinPath {
		return Usagef("--gate-holdout - is not supported: give the held-out rows as a file")
	}
	// Held-out rows that the generator was given are members, and the
	// gate would compare the owner's rows with themselves.
	for _, in := range FlagValues(fs, "input") {
		if holdout != "" && filepath.Clean(in) == filepath.Clean(holdout) {
			return Usagef("--gate-holdout %s is also an --input: the held-out rows must never be given to the generator", holdout)
		}
	}
	return nil
}

// GatePath is where the gate's result goes: --gate-out, else beside
// --out ("" when the gate is off). With --out - there is no "beside".
func GatePath(fs *pflag.FlagSet) (string, error) {
	if FlagValue(fs, "gate") != "true" {
		return "", nil
	}
	if p := FlagValue(fs, "gate-out"); p != "" {
		return p, nil
	}
	out := FlagValue(fs, "out")
	if out == StdoutPath {
		return "", Usagef("--gate with --out - needs --gate-out FILE for the gate's result")
	}
	return out + ".gate.json", nil
}

// holdOut returns the owners' rows the generator may use. With
// --gate-holdout every owner's non-members are that file's rows; else
// --gate-holdout-share of each owner's rows are set aside and never given
// to the generator. Either way every owner must keep enough rows for the
// gate, checked here, before any budget is spent.
func (g *GateFlags) HoldOut(notes io.Writer, owners []*data.Table, skip []string) ([]*data.Table, error) {
	if !g.On {
		return owners, nil
	}
	if len(owners) == 0 {
		return nil, fmt.Errorf("release gate: no owner's rows to hold out from")
	}
	if g.holdout != "" {
		h, _, err := ReadTable(notes, g.holdout, owners[0].Schema, skip)
		if err != nil {
			return nil, fmt.Errorf("--gate-holdout %s: %w", g.holdout, err)
		}
		if h.Len() < gate.MinHoldout {
			return nil, Usagef("--gate-holdout %s has %d rows; the release gate needs at least %d", g.holdout, h.Len(), gate.MinHoldout)
		}
		for i, t := range owners {
			if t.Len() < gate.MinMembers {
				return nil, Usagef("%s has %d rows; the release gate needs at least %d", method.OwnerName(i+1), t.Len(), gate.MinMembers)
			}
			g.held = append(g.held, h)
		}
		g.source = fmt.Sprintf("%d rows of %s", h.Len(), g.holdout)
		return owners, nil
	}
	// Which rows were held out tells who is in the published table's
	// input, so the split is drawn from the operating system's CSPRNG
	// even under --seed, whose value is written into the report.
	src := randx.NewSecure()
	kept := make([]*data.Table, len(owners))
	for i, t := range owners {
		n := int(math.Round(g.share * float64(t.Len())))
		if n < gate.MinHoldout || t.Len()-n < gate.MinMembers {
			return nil, Usagef("--gate-holdout-share %v of %s's %d rows holds out %d and keeps %d; the release gate needs at least %d held out and %d kept (give more rows, a larger share or --gate-holdout FILE)",
				g.share, method.OwnerName(i+1), t.Len(), n, t.Len()-n, gate.MinHoldout, gate.MinMembers)
		}
		perm := src.Perm(t.Len())
		g.held = append(g.held, t.Subset(slices.Sorted(slices.Values(perm[:n]))))
		kept[i] = t.Subset(slices.Sorted(slices.Values(perm[n:])))
	}
	g.source = fmt.Sprintf("a random %g of each owner's rows, set aside before synthesis", g.share)
	return kept, nil
}

// PooledOwner names the one check of a run whose owners hold columns.
const PooledOwner = "all parties (joined records)"

// holdOutRecords is holdOut for owners of columns (PDP-MVDS): parts are
// the parties' tables, aligned by ID when they have IDs (id names the
// column), by row otherwise, and joined their records in the first
// party's order. The attacks need whole records and no party holds one,
// so the gate runs one pooled check of the joined records, which the
// run in one process holds. With --gate-holdout the file holds whole
// records (every party's columns, the ID column optional); else the same
// records, a random --gate-holdout-share of them, are taken from every
// party before synthesis, so that no party gives any of them to the
// protocol. It returns the parties' tables and the joined records kept.
func (g *GateFlags) HoldOutRecords(notes io.Writer, parts []*data.Table, joined *data.Table, id string, skip []string, link bool) ([]*data.Table, *data.Table, error) {
	if !g.On {
		return parts, joined, nil
	}
	g.names = []string{PooledOwner}
	g.pooled = "one pooled check of the joined records: the parties hold different columns of the same records, the attacks need whole records, and only the run in one process holds them"
	n := joined.Len()
	if g.holdout != "" {
		hs := joined.Schema
		hs.ID = id // read and dropped when the file has it, as the owners' files may
		h, _, err := readOptionalID(notes, g.holdout, hs, skip)
		if err != nil {
			return nil, nil, fmt.Errorf("--gate-holdout %s (whole records: every party's columns): %w", g.holdout, err)
		}
		h.Schema.ID, h.IDs = joined.Schema.ID, nil
		if h.Len() < gate.MinHoldout {
			return nil, nil, Usagef("--gate-holdout %s has %d rows; the release gate needs at least %d", g.holdout, h.Len(), gate.MinHoldout)
		}
		if n < gate.MinMembers {
			return nil, nil, Usagef("the parties hold %d records; the release gate needs at least %d", n, gate.MinMembers)
		}
		g.held = []*data.Table{h}
		g.source = fmt.Sprintf("%d records of %s", h.Len(), g.holdout)
		return parts, joined, nil
	}
	k := int(math.Round(g.share * float64(n)))
	if k < gate.MinHoldout || n-k < gate.MinMembers {
		return nil, nil, Usagef("--gate-holdout-share %v of the parties' %d records holds out %d and keeps %d; the release gate needs at least %d held out and %d kept (give more records, a larger share or --gate-holdout FILE)",
			g.share, n, k, n-k, gate.MinHoldout, gate.MinMembers)
	}
	// From the operating system's CSPRNG even under --seed, as holdOut.
	perm := randx.NewSecure().Perm(n)
	heldRows := slices.Sorted(slices.Values(perm[:k]))
	keptRows := slices.Sorted(slices.Values(perm[k:]))
	kept := make([]*data.Table, len(parts))
	if parts[0].IDs == nil {
		for p, t := range parts {
			kept[p] = t.Subset(keptRows)
		}
	} else {
		// Each party's rows may be in its own order, and with --link
		// hold records of other people too: the held-out records are
		// the same IDs everywhere, removed before the linkage, which
		// then finds the other common records.
		ids := joinedIDs(parts, link)
		held := make(map[string]bool, k)
		for _, i := range heldRows {
			held[ids[i]] = true
		}
		for p, t := range parts {
			var rows []int
			for i, rid := range t.IDs {
				if !held[rid] {
					rows = append(rows, i)
				}
			}
			kept[p] = t.Subset(rows)
		}
	}
	g.held = []*data.Table{joined.Subset(heldRows)}
	g.source = fmt.Sprintf("a random %g of the records, the same records set aside from every party before synthesis", g.share)
	return kept, joined.Subset(keptRows), nil
}

// check runs the gate on each owner's rows (the members) against that
// owner's held-out rows, the owners at once (each check also uses every
// core; together they keep the cores busy through each check's serial
// parts). On a refusal it prints every owner's check and returns an
// error saying which attack refused and that the budget was spent on a
// release that was not written.
func (g *GateFlags) check(w io.Writer, owners []*data.Table, synth *data.Table) (*gate.Release, error) {
	if synth == nil || !synth.Schema.EqualAttributes(owners[0].Schema) {
		return nil, fmt.Errorf("release gate: this method's output is not a table of the owners' columns, so the gate cannot attack it; nothing was written, but the budget was charged (run without --gate)")
	}
	results := make([]gate.OwnerResult, len(owners))
	errs := make([]error, len(owners))
	var wg sync.WaitGroup
	for i, t := range owners {
		results[i].Owner = method.OwnerName(i + 1)
		if g.names != nil {
			results[i].Owner = g.names[i]
		}
		wg.Go(func() {
			res, err := gate.Check(gate.Options{Real: t, Holdout: g.held[i], Synthetic: synth,
				MaxAdvantage: g.maxAdvantage, MaxQueries: g.queries, Source: randx.NewSecure()})
			if res != nil {
				results[i].Result = *res
			}
			errs[i] = err
		})
	}
	wg.Wait()
	var refusals []error
	for i, err := range errs {
		switch {
		case err == nil:
		case !results[i].Refused:
			return nil, fmt.Errorf("release gate on %s's rows: %w", results[i].Owner, err)
		default:
			refusals = append(refusals, fmt.Errorf("%s: %w", results[i].Owner, err))
		}
	}
	rel := gate.NewRelease(g.source, results)
	rel.Pooled = g.pooled
	if !rel.Refused {
		return rel, nil
	}
	for _, o := range rel.Owners {
		if len(rel.Owners) > 1 {
			fmt.Fprintf(w, "%s: ", o.Owner)
		}
		PrintCheck(w, &o.Result)
	}
	// The first refusal is wrapped (errors.Is gate.ErrRefused); the
	// others are named in the text.
	err := refusals[0]
	for _, e := range refusals[1:] {
		err = fmt.Errorf("%w; %s", err, e)
	}
	return rel, fmt.Errorf("%w; the privacy budget was charged, but nothing was written or published", err)
}

// guard runs the gate (when on) on the table about to be written (a
// uniform sample of gateSampleRows of its rows when it has more), then
// write: the gate's file is written first, owner-only and atomically, and
// removed again if write fails, so the owner never holds a gate result
// for a release that was not made, nor a release without its result.
func (g *GateFlags) Guard(cmd *cobra.Command, owners []*data.Table, synth *data.Table, write func() error) error {
	if !g.On {
		return write()
	}
	sample, total := synth, 0
	if synth != nil {
		total = synth.Len()
		if total > GateSampleRows {
			r := &reservoir{max: GateSampleRows}
			r.add(synth)
			sample = r.table()
		}
	}
	path, err := g.checkSample(cmd, owners, sample, total)
	if err != nil {
		return err
	}
	if err := write(); err != nil {
		os.Remove(path)
		return err
	}
	g.result = g.pending
	return nil
}

// checkSample runs the gate on sample, the synthetic table's rows or a
// uniform sample of them (of total in all), and on a pass writes its
// result, owner-only and atomically, where gatePath says, and returns
// that path; the result is recorded in it (how many synthetic rows were
// checked, of how many) and kept for summary once the release is made.
func (g *GateFlags) checkSample(cmd *cobra.Command, owners []*data.Table, sample *data.Table, total int) (string, error) {
	w := cmd.OutOrStdout()
	rel, err := g.check(w, owners, sample)
	if rel != nil {
		rel.SyntheticRows, rel.SyntheticChecked = total, sample.Len()
		if s := rel.Sampled(); s != "" {
			fmt.Fprintf(w, "Release gate: %s\n", s)
		}
	}
	if err != nil {
		return "", err
	}
	path, err := GatePath(cmd.Flags())
	if err != nil {
		return "", err
	}
	js, err := rel.JSON()
	if err != nil {
		return "", err
	}
	if err := fsutil.WriteFileAtomic(path, 0o600, func(w io.Writer) error { _, err := w.Write(js); return err }); err != nil {
		return "", fmt.Errorf("writing the gate's result %s: %w", path, err)
	}
	g.pending = rel
	return path, nil
}

// account records in r, before it is written, that its output is
// published only because the gate passes: the gate's settings and the
// weaker guarantee that then holds (privacy.Report.ConditionOnGate, with
// the refusal rate measured at the defaults: gate.RefusalBound). Nothing
// when the gate is off.
func (g *GateFlags) Account(r *privacy.Report) {
	if !g.On || r == nil || r.Gate != nil {
		return
	}
	p, source := gate.RefusalBound(gate.DefaultSettings(g.maxAdvantage, g.queries, g.share, g.holdout != ""), len(g.held))
	r.ConditionOnGate(privacy.GateCondition{
		Test:          fmt.Sprintf("the owner's release gate (membership-inference attacks on the real, held-out and synthetic rows; refused above advantage %g)", g.maxAdvantage),
		Settings:      g.settings(),
		RefusalBound:  p,
		RefusalSource: source,
	})
}

// settings are the gate's settings as the report records them: never the
// held-out file's or the gate result's path.
func (g *GateFlags) settings() map[string]string {
	s := map[string]string{
		"gate":          "true",
		"max-advantage": fmt.Sprint(g.maxAdvantage),
		"gate-queries":  fmt.Sprint(g.queries),
	}
	if g.holdout != "" {
		s["gate-holdout"] = "a file of held-out rows (path not recorded)"
	} else {
		s["gate-holdout-share"] = fmt.Sprint(g.share)
	}
	return s
}

// summary prints the gate's line of the terminal summary, and puts its
// verdict in --json's owner-side quality summary (nothing when the gate
// did not run).
func (g *GateFlags) Summary(cmd *cobra.Command) {
	if g.result == nil {
		return
	}
	NoteQuality(cmd, "release_gate", g.result.Verdict())
	path, _ := GatePath(cmd.Flags())
	fmt.Fprintf(cmd.OutOrStdout(), "Release gate (owner only, not published): %s; result in %s (a pass is not a privacy guarantee)\n", g.result.Verdict(), path)
}

// PublishTable is outputFlags.PublishTable behind the gate: the command's
// one call that writes its synthetic table, its report and the gate's
// result, and prints the summary.
func (g *GateFlags) PublishTable(cmd *cobra.Command, o *OutputFlags, owners []*data.Table, t *data.Table, r *privacy.Report) error {
	g.Account(r)
	if err := g.Guard(cmd, owners, t, func() error { return o.PublishTable(cmd, t, r) }); err != nil {
		return err
	}
	g.Summary(cmd)
	return nil
}

// holdOutTable is holdOut for a command with one owner's table.
func (g *GateFlags) HoldOutTable(notes io.Writer, t *data.Table, skip []string) (*data.Table, error) {
	kept, err := g.HoldOut(notes, []*data.Table{t}, skip)
	if err != nil {
		return nil, err
	}
	return kept[0], nil
}

// PrintCheck prints the release gate's result for the owner.
func PrintCheck(w io.Writer, r *gate.Result) {
	fmt.Fprintf(w, "Release gate (owner only): %d of the owner's rows vs %d held-out rows\n", r.Members, r.NonMembers)
	for _, a := range r.Attacks {
		fmt.Fprintf(w, "  %-27s advantage %6.3f  (%g%% interval %.3f to %.3f)\n", a.Name, a.Advantage, 100*r.Confidence, a.Lower, a.Upper)
		fmt.Fprintf(w, "    %s\n", a.Detail)
	}
	if r.Refused {
		fmt.Fprintf(w, "  verdict: REFUSED (an advantage above %.3g at %g%% confidence; largest %.3f)\n", r.MaxAdvantage, 100*r.Confidence, r.Advantage)
		return
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "  note: %s\n", warn)
	}
	fmt.Fprintf(w, "  verdict: PASS (no advantage shown above %.3g; largest %.3f: no membership signal found by these attacks; not a privacy guarantee)\n", r.MaxAdvantage, r.Advantage)
}

// joinedIDs are the IDs of the joined table's rows: the first owner's
// order (joinParts), or with link the IDs every owner holds in ID order
// (joinCommon).
func joinedIDs(ts []*data.Table, link bool) []string {
	if !link {
		return ts[0].IDs
	}
	return data.CommonIDs(ts)
}
