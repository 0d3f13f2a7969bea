// Package pdpmvdscli is PDP-MVDS's hand-written commands: `dppub publish
// pdp-mvds` (parties of columns, its key files, protocol report and phase
// table), `dppub keygen` (the Paillier key ceremony) and `dppub link`
// (record linkage and its report).
package pdpmvdscli

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	pdpmvdsspec "github.com/dppub/dppub/method/pdpmvds"

	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/utility"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

type pdpmvdsFlags struct {
	dataset    string
	parties    int
	inputs     []string
	schema, id string
	skip       []string
	budgets    []float64
	keysDir    string
	settings   pdpmvdsspec.Settings
	src        kit.SourceFlags
	gate       kit.GateFlags
	kit.OutputFlags
	protoReport string
	// idColumn is the ID column load aligned the owners' files by ("":
	// by row).
	idColumn string
}

// Command is `dppub publish pdp-mvds`.
func Command() *cobra.Command {
	f := &pdpmvdsFlags{}
	f.settings.SetDefaults()
	cmd := &cobra.Command{
		Use:   "pdp-mvds",
		Short: "Synthetic data from vertically partitioned owners through the PDP-MVDS protocol",
		Long:  publishPDPMVDSLong,
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runPublishPDPMVDS(cmd, f) },
	}
	f.register(cmd.Flags())
	return cmd
}

// register declares the flags of publish pdp-mvds on fs.
func (f *pdpmvdsFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.dataset, "dataset", "", "built-in dataset, split column-wise among --parties owners")
	fs.IntVar(&f.parties, "parties", 3, "number of owners for --dataset (contiguous groups of columns)")
	fs.StringArrayVar(&f.inputs, "input", nil, "CSV/TSV file with a header row holding one owner's columns (and the ID column); repeat once per owner")
	fs.StringVar(&f.schema, "schema", "", "schema JSON describing every owner's columns (kinds and public bounds)")
	fs.StringVar(&f.id, "id", "", "ID column aligning the owners' records (default: the schema's ID; without one, records align by row order); with --link, the column the owners' records are linked by")
	kit.RegisterSkipColumns(fs, &f.skip)
	fs.Float64SliceVar(&f.budgets, "budgets", nil, "zCDP budget ρ_k of every owner, comma-separated (one value: the same for all)")
	kit.BindSettings(fs, &f.settings)
	fs.StringVar(&f.keysDir, "keys", "", "directory of key files from 'dppub keygen' (paillier suite)")
	f.src.Register(fs)
	f.OutputFlags.Register(fs, "output CSV of synthetic rows")
	fs.StringVar(&f.protoReport, "protocol-report", "", "per-phase timing, Paillier operations and traffic JSON (default OUT.protocol.json)")
	f.gate.Register(fs)
}

// publishPDPMVDSLong is the help text of publish pdp-mvds.
const publishPDPMVDSLong = `PDP-MVDS: K owners hold different columns of the same records, each with its
own zCDP budget ρ_k, and a semi-trusted third party S helps. Together they
publish noisy one-way marginals (each owner alone), noisy dependency scores
of attribute pairs (Algorithm 1: secure scalar products of indicator
vectors, aggregation at S, a sign step, distributed noise), select pairs
(Algorithm 2), measure the combined marginals across owners, and one owner
synthesises rows from the noisy marginals (GUM). No owner sees another's
records; every message is marshalled between the roles.

Secure scalar products (--sspp):
  commodity (default)  Du & Atallah: S deals correlated randomness, all on
                       additive shares mod 2^64, no encryption; seconds
  paillier             the paper: Goethals et al. under each owner's own
                       Paillier key, aggregation at S under a shared key
                       split 2-of-2 between every pair of owners; minutes

Noise (--noise):
  insider-safe (default)  every owner and S draw a share; any K of the K+1
                          make up the calibrated noise, so the budget holds
                          against S and against each single owner too
  exact                   the paper's: only the measured owners draw (DLPA
                          for Laplace in the Paillier suite); the budget
                          holds against S and outsiders only

Threat model: semi-honest owners and S; S colludes with no owner; no two
owners collude. The sign step of Algorithm 1 reveals, for every cell of
every cross-owner pair, whether the true joint count is above or below the
product of the noisy one-way counts over n: NOT covered by DP (the report
says so).

The shared Paillier key comes from a key ceremony (dppub keygen, at a dealer
that is neither S nor an owner) given with --keys DIR; without it an
in-process dealer makes one (and the report says so).

Record linkage (--link): when the owners' files hold overlapping sets of
people under an ID column (--id COL or the schema's "id"), --link first
finds the people every owner holds by a multi-party Diffie–Hellman private
set intersection (as 'dppub link'), keeps each owner's rows of those IDs in
ID order and drops the ID column; PDP-MVDS then runs on them unchanged, and
the record count is the intersection's. No budget is spent, but the
linkage reveals to the owners, exactly and NOT under DP, every owner's
number of IDs and the size of every region of their Venn diagram (the
report says so). Without --link, files with IDs must hold the same IDs.
'dppub run pdp-mvds' does the same between machines with link=true.

--gate runs the release gate on the joined records: no owner holds a whole
record, so one pooled check attacks the records every owner's columns make
up, and the records held out (--gate-holdout-share) are the same records
taken from every owner before the protocol runs (with --gate-holdout FILE,
the file holds whole records: every owner's columns).

Examples:
  dppub publish pdp-mvds --dataset adult --parties 3 --budgets 0.5,1,2 --out adult-synth.csv
  dppub publish pdp-mvds --input a.csv --input b.csv --schema s.json --id id \
      --budgets 1,1 --sspp paillier --keys keys/ --out synth.csv
  dppub publish pdp-mvds --input bank.csv --input clinic.csv --input utility.csv --schema s.json \
      --id person --link --budgets 0.5 --out synth.csv`

func runPublishPDPMVDS(cmd *cobra.Command, f *pdpmvdsFlags) error {
	if err := f.Resolve(); err != nil {
		return err
	}
	if f.protoReport == "" {
		f.protoReport = f.Out + ".protocol.json"
	}
	tables, real, err := f.load()
	if err != nil {
		return err
	}
	budgets, err := expandBudgets(f.budgets, len(tables))
	if err != nil {
		return err
	}
	var keys []*pdpmvdsspec.KeyFile
	if f.keysDir != "" {
		if !f.settings.UsesPaillier() {
			return kit.Usagef("--keys is for --sspp paillier")
		}
		if keys, err = pdpmvdsspec.ReadKeyFiles(f.keysDir, len(tables)); err != nil {
			return err
		}
		if f.settings.KeyBits, err = keyFilesBits(cmd, f, keys[0].PublicKey.Bits()); err != nil {
			return err
		}
	}
	stderr := cmd.ErrOrStderr()
	// Before any key is dealt or budget spent (and, with --link, before
	// the linkage: the held-out IDs leave every party's file).
	if tables, real, err = f.gate.HoldOutRecords(stderr, tables, real, f.idColumn, f.skip, f.settings.Link); err != nil {
		return err
	}
	res, err := pdpmvdsspec.Publish(cmd.Context(), pdpmvdsspec.Options{Tables: tables, Budgets: budgets, Keys: keys,
		Settings: f.settings,
		Source:   f.src.Source(cmd.Flags(), stderr), Progress: kit.StageBars(stderr),
	})
	if err != nil {
		return err
	}
	f.gate.Account(res.Report)
	if err := f.gate.Guard(cmd, []*data.Table{real}, res.Synthetic, func() error { return writePDPMVDS(cmd, f, res) }); err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	kit.PrintReport(cmd, w, res.Report)
	fmt.Fprintf(w, "\nWrote %d synthetic rows × %d columns to %s, the privacy report to %s and the protocol report to %s\n",
		res.Synthetic.Len(), len(res.Synthetic.Schema.Attributes), f.Out, f.Report, f.protoReport)
	res.WritePhases(w)
	if l := res.Linkage; l != nil {
		fmt.Fprintf(w, "\nRecord linkage (private set intersection on %q, before any release; no budget spent): %d records every owner holds\n", f.idColumn, l.Common)
		for _, name := range l.Parties {
			fmt.Fprintf(w, "  %s: %d IDs\n", name, l.Records[name])
		}
		fmt.Fprintf(w, "Revealed to the owners exactly, NOT under DP:\n  - %s\n", strings.Join(l.Reveals, "\n  - "))
	}
	fmt.Fprintln(w)
	printJoinedQuality(cmd, w, real, res.Synthetic, f.Out)
	fmt.Fprintf(w, "  %d of %d pairs selected; %d marginals measured\n",
		len(res.Engine.Selection.Chosen), len(res.Engine.Candidates), len(res.Engine.Measured))
	if res.Clamped > 0 {
		fmt.Fprintf(w, "  %d values were clamped to the declared bounds\n", res.Clamped)
	}
	fmt.Fprintf(w, "  total time %v\n", res.Elapsed.Round(time.Millisecond))
	f.gate.Summary(cmd)
	return nil
}

// printJoinedQuality prints the quality of the synthetic table against
// the owners' joined records (this process holds every owner's columns),
// as dppub compare computes it (printQuality), the joined columns taken
// in the synthetic table's order.
func printJoinedQuality(cmd *cobra.Command, w io.Writer, real, syn *data.Table, out string) {
	aligned, err := real.SelectColumns(syn.Schema.Names()...)
	var rc *utility.Joint
	var sc *kit.SynthCounts
	if err == nil {
		rc, err = kit.RealCounts(aligned)
	}
	if err == nil {
		sc, err = kit.TableSynthCounts(syn, out)
	}
	var counted *utility.Joint
	if sc != nil {
		counted = sc.Joint
	}
	kit.PrintQuality(cmd, w, rc, counted, err)
}

// expandBudgets turns --budgets into one ρ per party.
func expandBudgets(b []float64, parties int) ([]float64, error) {
	for k, rho := range b {
		if !(rho > 0) || math.IsInf(rho, 0) {
			return nil, kit.Usagef("--budgets: ρ = %v (value %d) must be positive and finite", rho, k+1)
		}
	}
	switch len(b) {
	case 0:
		return nil, kit.Usagef("--budgets is required: one zCDP ρ per owner (or one for all)")
	case 1:
		out := make([]float64, parties)
		for i := range out {
			out[i] = b[0]
		}
		return out, nil
	case parties:
		return b, nil
	}
	return nil, kit.Usagef("--budgets has %d values for %d owners", len(b), parties)
}

// load returns one table per owner and the joined table (for the local
// utility summary).
func (f *pdpmvdsFlags) load() ([]*data.Table, *data.Table, error) {
	switch {
	case f.dataset != "" && len(f.inputs) > 0:
		return nil, nil, kit.Usagef("give --dataset or --input, not both")
	case f.dataset != "" && f.settings.Link:
		return nil, nil, kit.Usagef("--link links --input files by their ID column; --dataset has none")
	case f.dataset != "":
		if f.parties < 2 {
			return nil, nil, kit.Usagef("--parties must be at least 2, got %d", f.parties)
		}
		t, err := datasets.Load(f.dataset)
		if err != nil {
			return nil, nil, err
		}
		parts, err := data.SplitVerticalEven(t, f.parties)
		if err != nil {
			return nil, nil, err
		}
		return parts, t, nil
	case len(f.inputs) < 2:
		return nil, nil, kit.Usagef("give --dataset NAME, or one --input FILE per owner (at least 2)")
	case f.schema == "":
		return nil, nil, kit.Usagef("--input needs --schema FILE (column kinds and public bounds)")
	}
	if err := kit.CheckDistinctInputs(f.inputs, kit.PartiesOfColumn); err != nil {
		return nil, nil, err
	}
	s, err := data.LoadSchema(f.schema)
	if err != nil {
		return nil, nil, err
	}
	if f.id != "" {
		s.ID = f.id
	}
	f.idColumn = s.ID
	if f.settings.Link && s.ID == "" {
		return nil, nil, kit.Usagef("--link needs the ID column every --input holds: give --id COL or an \"id\" in the schema")
	}
	var tables []*data.Table
	for _, path := range f.inputs {
		t, err := readPart(path, s, f.skip)
		if err != nil {
			return nil, nil, err
		}
		tables = append(tables, t)
	}
	join := joinParts
	if f.settings.Link {
		join = joinCommon
	}
	real, err := join(tables)
	if err != nil {
		return nil, nil, err
	}
	return tables, real, nil
}

// joinCommon joins the owners' columns of the IDs every owner holds, in
// ID order (the order a linked session uses), for the local utility
// summary: this one process reads every owner's file anyway; the session
// itself finds these records by private set intersection.
func joinCommon(ts []*data.Table) (*data.Table, error) {
	ids := data.CommonIDs(ts)
	aligned := make([]*data.Table, len(ts))
	for k, t := range ts {
		pos := make(map[string]int, t.Len())
		for i, id := range t.IDs {
			pos[id] = i
		}
		rows := make([]int, len(ids))
		for j, id := range ids {
			rows[j] = pos[id]
		}
		aligned[k] = t.Subset(rows)
	}
	return joinParts(aligned)
}

// readPart reads one owner's file: the schema's attributes its header
// names, plus the ID column, leaving out the columns in skip.
func readPart(path string, s data.Schema, skip []string) (*data.Table, error) {
	header, err := data.ReadHeader(path)
	if err != nil {
		return nil, err
	}
	var names, ignore []string
	for _, h := range header {
		switch _, err := s.Attribute(h); {
		case h == s.ID && !slices.Contains(skip, h):
		case slices.Contains(skip, h):
			ignore = append(ignore, h)
		case err != nil:
			return nil, &data.UnknownColumnError{Input: path, Line: 1, Column: h}
		default:
			names = append(names, h)
		}
	}
	for _, name := range skip {
		if _, err := s.Attribute(name); err != nil && !slices.Contains(header, name) && name != s.ID {
			return nil, kit.Usagef("--%s: column %q is neither in the header of %s nor in the schema", kit.SkipColumnsFlag, name, path)
		}
	}
	if s.ID != "" && !slices.Contains(header, s.ID) {
		return nil, fmt.Errorf("%s has no ID column %q", path, s.ID)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s has none of the schema's columns", path)
	}
	sub, err := s.Select(names...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if slices.Contains(skip, s.ID) {
		sub.ID = ""
	}
	t, _, err := data.ReadFile(path, sub, data.ReadOptions{Header: true, IgnoreColumns: ignore, MinRows: kit.MinOwnerRows})
	return t, err
}

// joinParts joins the owners' columns (by ID, or row order) for the local
// utility summary.
func joinParts(ts []*data.Table) (*data.Table, error) {
	var s data.Schema
	pos := map[string]int{}
	if ts[0].IDs != nil {
		for i, id := range ts[0].IDs {
			pos[id] = i
		}
	}
	rows := make([][]float64, ts[0].Len())
	for _, t := range ts {
		if t.Len() != len(rows) {
			return nil, fmt.Errorf("owners hold %d and %d records: vertically partitioned files must hold the same records", len(rows), t.Len())
		}
		s.Attributes = append(s.Attributes, t.Schema.Attributes...)
		for i, row := range t.Rows {
			j := i
			if t.IDs != nil {
				var ok bool
				if j, ok = pos[t.IDs[i]]; !ok {
					return nil, fmt.Errorf("ID %q is missing from the first owner's file", t.IDs[i])
				}
			}
			rows[j] = append(rows[j], row...)
		}
	}
	return &data.Table{Schema: s, Rows: rows}, nil
}

// keyFilesBits is the size of the ceremony's key, which the session and
// its report then state: a --key-bits that disagrees is refused, and so is
// a test-size key without --insecure-test-keys.
func keyFilesBits(cmd *cobra.Command, f *pdpmvdsFlags, bits int) (int, error) {
	switch {
	case cmd.Flags().Changed("key-bits") && f.settings.KeyBits != bits:
		return 0, kit.Usagef("--key-bits %d, but the key files in %s hold a %d-bit key", f.settings.KeyBits, f.keysDir, bits)
	case bits < paillier.MinBits && !f.settings.InsecureTestKeys:
		return 0, kit.Usagef("the key files in %s hold an INSECURE %d-bit key; add --insecure-test-keys to use it in a test", f.keysDir, bits)
	}
	return bits, nil
}

// writePDPMVDS writes the synthetic table, the protocol report and then
// the privacy report, which records the digests of both.
func writePDPMVDS(cmd *cobra.Command, f *pdpmvdsFlags, res *pdpmvdsspec.Published) error {
	table, err := kit.TableBytes(f.Out, res.Synthetic)
	if err != nil {
		return fmt.Errorf("writing %s: %w", f.Out, err)
	}
	proto, err := res.ProtocolReportJSON(f.settings)
	if err != nil {
		return err
	}
	return kit.PublishFiles(cmd, nil, res.Report, f.Report, kit.OutputFile{Path: f.Out, Data: table}, kit.OutputFile{Path: f.protoReport, Data: proto})
}
