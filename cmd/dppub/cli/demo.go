package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	dpsubn3spec "github.com/dppub/dppub/method/dpsubn3"
	mpcrdpspec "github.com/dppub/dppub/method/mpcrdp"
	mulldaspec "github.com/dppub/dppub/method/mullda"
	pdpmvdsspec "github.com/dppub/dppub/method/pdpmvds"
	ppcaspec "github.com/dppub/dppub/method/ppcadpmh"
	rowsynthspec "github.com/dppub/dppub/method/rowsynth"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/randx"
	"github.com/spf13/cobra"
)

// demoInput is what a method's demo layout is built from.
type demoInput struct {
	Dataset string
	Table   *data.Table
	Owners  int
	// Src draws the split of records (or columns) among owners; the split
	// is not a privacy mechanism.
	Src *randx.Source
}

// demoLayout is a ready-to-run consortium: the file, and every file it
// refers to (relative paths).
type demoLayout struct {
	File    consortium.File
	Tables  map[string]*data.Table
	Schemas map[string]data.Schema
	// Summary completes "Wrote consortium.json: consortium "demo" with …".
	Summary string
}

// demoMethods builds each method's demo layout; methods register theirs
// from init functions.
var demoMethods = map[string]func(demoInput) (*demoLayout, error){
	ppcaspec.Name:        horizontalDemo,
	mulldaspec.NameMulti: ldaDemo,
	dpsubn3spec.Name:     dpsubn3Demo,
	mpcrdpspec.Name:      mpcrdpDemo,
	pdpmvdsspec.Name:     pdpmvdsDemo,
	rowsynthspec.Name:    rowsynthDemo,
}

func demoMethodNames() []string {
	var names []string
	for n := range demoMethods {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func newConsortiumDemoCmd() *cobra.Command {
	var dir, dataset, method string
	var owners, rows int
	var seed uint64
	var withLDA, force bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Write a ready-to-run consortium on this machine from a built-in dataset",
		Long: `Writes DIR/consortium.json (members on 127.0.0.1 ports 7400, 7401, ...), the
schemas, and one CSV per data owner, for the method chosen by --method:
  ppca-dp-mh   a curator and --owners owners, each holding a random disjoint
               share of the dataset's rows (horizontal split)
  mul-lda-dp   the same owners plus a publisher and a noise dealer
  dp-subn3     the same curator and owners, with dp-subn3 settings
  synthesize-rows
               the same curator (runs the marginal engine) and owners,
               with synthesize-rows settings and lifetime budgets ρ = 1
  mp-crdp      a trusted server and --owners parties, each holding a
               consecutive group of the features of every record, with an
               ID column to join on (party 1 also holds the label); adult
               or wdbc; also writes the global schema for dppub publish
  pdp-mvds     a synthesizer (runs the engine), --owners parties holding
               contiguous groups of columns of the same rows (same order,
               no ID) and the third party S; also the global schema
` + demoHelp + `Then run
  dppub consortium init --config DIR/consortium.json
and follow the README's multi-machine walkthrough.`,
		Example: `  dppub consortium demo --method mul-lda-dp --dataset nltcs --owners 3 --dir demo-lda
  dppub consortium demo --method pdp-mvds --dataset adult --owners 2 --rows 2000 --dir demo-pdp`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if owners < 1 || owners > 50 {
				return usagef("--owners must be in [1, 50], got %d", owners)
			}
			if rows < 0 {
				return usagef("--rows must not be negative, got %d", rows)
			}
			if withLDA {
				method = mulldaspec.NameMulti
			}
			if err := checkDemoDir(dir, force); err != nil {
				return err
			}
			src := randx.NewSecure()
			if cmd.Flags().Changed("split-seed") {
				src = randx.NewSeeded(seed)
			}
			return writeDemo(cmd.OutOrStdout(), dir, method, dataset, owners, rows, src)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&dir, "dir", "demo", "directory to write into (new or empty, unless --force)")
	fs.BoolVar(&force, "force", false, "write into a --dir that already holds files, replacing its consortium file, schemas and owners' data (certificates and budget ledgers are kept)")
	fs.StringVar(&method, "method", ppcaspec.Name, "method to lay the consortium out for: "+strings.Join(demoMethodNames(), ", "))
	fs.StringVar(&dataset, "dataset", "adult", "built-in dataset to split among the owners")
	fs.IntVar(&owners, "owners", 3, "number of data owners")
	fs.IntVar(&rows, "rows", 0, "use only the first N rows of the dataset (0: all)")
	fs.BoolVar(&withLDA, "lda", false, "same as --method mul-lda-dp (the curator stays, so ppca-dp-mh runs too)")
	fs.Uint64Var(&seed, "split-seed", 0, "seed the random split among owners (reproducible files; the split is not a privacy mechanism)")
	return cmd
}

// checkDemoDir refuses, without --force, a directory that already holds
// files: a demo written there would replace a consortium's file and its
// owners' data.
func checkDemoDir(dir string, force bool) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return usagef("--dir: %v", err)
	case len(entries) == 0 || force:
		return nil
	}
	names := make([]string, 0, 3)
	for _, e := range entries[:min(len(entries), 3)] {
		names = append(names, e.Name())
	}
	if len(entries) > 3 {
		names = append(names, fmt.Sprintf("and %d more", len(entries)-3))
	}
	return usagef("--dir %s already holds files (%s): a demo would replace its consortium.json, schemas and owners' data; give another --dir, or --force to write over them", dir, strings.Join(names, ", "))
}

// demoHelp lists the layouts registered by other files, for --help.
var demoHelp string

// writeDemo lays a built-in dataset out for a method and writes the files
// of a consortium on this machine.
func writeDemo(w io.Writer, dir, method, dataset string, owners, rows int, src *randx.Source) error {
	build, ok := demoMethods[method]
	if !ok {
		return usagef("--method %q has no demo layout (want one of %s)", method, strings.Join(demoMethodNames(), ", "))
	}
	t, err := datasets.Load(dataset)
	if err != nil {
		return err
	}
	if rows > 0 && rows < t.Len() {
		t = &data.Table{Schema: t.Schema, Rows: t.Rows[:rows], IDs: idsPrefix(t.IDs, rows)}
	}
	l, err := build(demoInput{Dataset: dataset, Table: t, Owners: owners, Src: src})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, s := range l.Schemas {
		if err := writeJSONFile(filepath.Join(dir, name), s); err != nil {
			return err
		}
	}
	for name, part := range l.Tables {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			return err
		}
		if err := writeTableFile(filepath.Join(dir, name), part); err != nil {
			return err
		}
	}
	path := filepath.Join(dir, "consortium.json")
	if err := writeJSONFile(path, l.File); err != nil {
		return err
	}
	fmt.Fprintf(w, "Wrote %s: consortium %q with %s\n", path, l.File.Name, l.Summary)
	fmt.Fprintf(w, "Next: dppub consortium init --config %s\n", path)
	return nil
}

func idsPrefix(ids []string, n int) []string {
	if ids == nil {
		return nil
	}
	return ids[:n]
}

// demoOwner is a data owner of a demo consortium, at port 7400+i.
func demoOwner(name, role, dataset string, i int, schemaFile string, budget consortium.Budget) consortium.Member {
	return consortium.Member{
		Name: name, Role: role, Address: fmt.Sprintf("127.0.0.1:%d", 7400+i),
		Dataset: &consortium.Dataset{Name: dataset + "-" + name, Path: filepath.Join("data", name+".csv"), Schema: schemaFile},
		Budget:  &budget,
		Ledger:  name + ".budget.db",
	}
}

// horizontalDemo is a curator and owners holding random disjoint shares
// of the rows.
func horizontalDemo(in demoInput) (*demoLayout, error) {
	parts := []*data.Table{in.Table}
	if in.Owners > 1 {
		var err error
		if parts, err = data.SplitHorizontal(in.Table, in.Owners, nil, in.Src); err != nil {
			return nil, err
		}
	}
	schemaFile := in.Dataset + ".schema.json"
	f := consortium.File{Name: "demo", Certs: "certs", Limits: consortium.DefaultLimits(),
		Members: []consortium.Member{{Name: "curator", Role: "curator", Address: "127.0.0.1:7400"}},
		Methods: map[string]json.RawMessage{
			ppcaspec.Name: json.RawMessage(fmt.Sprintf(`{"schema": %q, "epsilon": 1, "mechanism": "laplace", "noise": "local"}`, schemaFile)),
		}}
	l := &demoLayout{Tables: map[string]*data.Table{}, Schemas: map[string]data.Schema{schemaFile: in.Table.Schema},
		Summary: fmt.Sprintf("a curator and %d owners of %s (%d rows in all)", in.Owners, in.Dataset, in.Table.Len())}
	for i, part := range parts {
		m := demoOwner(fmt.Sprintf("owner-%d", i+1), "owner", in.Dataset, i+1, schemaFile, consortium.Budget{Epsilon: 3, Delta: 1e-5})
		f.Members = append(f.Members, m)
		l.Tables[m.Dataset.Path] = part
	}
	l.File = f
	return l, nil
}

// ldaDemo adds a publisher and a noise dealer, and default mul-lda-dp
// settings, to the horizontal layout.
func ldaDemo(in demoInput) (*demoLayout, error) {
	label := ldaDatasetLabel(in.Dataset)
	if label == "" {
		return nil, usagef("dataset %q has no default label for mul-lda-dp", in.Dataset)
	}
	l, err := horizontalDemo(in)
	if err != nil {
		return nil, err
	}
	f := &l.File
	f.Members = append(f.Members,
		consortium.Member{Name: "publisher", Role: "publisher", Address: fmt.Sprintf("127.0.0.1:%d", 7401+in.Owners),
			PublishingLedger: "publishing-ledger"},
		consortium.Member{Name: "dealer", Role: "dealer", Address: fmt.Sprintf("127.0.0.1:%d", 7402+in.Owners)})
	f.Methods[mulldaspec.NameMulti] = json.RawMessage(fmt.Sprintf(`{"schema": %q, "label": %q, "epsilon": 1, "delta": 1e-06}`, in.Dataset+".schema.json", label))
	l.Summary += ", a publisher (recording every session in publishing-ledger/) and a noise dealer"
	return l, nil
}

// dpsubn3Demo is the horizontal layout with default dp-subn3 settings: the
// owners take their turns in file order, the curator relays and samples.
func dpsubn3Demo(in demoInput) (*demoLayout, error) {
	l, err := horizontalDemo(in)
	if err != nil {
		return nil, err
	}
	l.File.Methods[dpsubn3spec.Name] = json.RawMessage(fmt.Sprintf(`{"schema": %q, "epsilon": 1}`, in.Dataset+".schema.json"))
	return l, nil
}

// rowsynthDemo is the horizontal layout with synthesize-rows settings:
// the curator runs the engine over the owners' secure aggregates.
func rowsynthDemo(in demoInput) (*demoLayout, error) {
	l, err := horizontalDemo(in)
	if err != nil {
		return nil, err
	}
	l.File.Methods[rowsynthspec.Name] = json.RawMessage(fmt.Sprintf(`{"schema": %q, "epsilon": 1, "delta": 1e-05}`, in.Dataset+".schema.json"))
	// The engine spends ρ-zCDP; an owner's (ε, δ) lifetime budget counts
	// each session once, as the (ε, δ) its ρ converts to at the session's
	// δ (package budgetstore). Every session then takes its whole δ, so the
	// lifetime δ is three sessions' worth, as its ε: three sessions at
	// ε = 1, δ = 1e-5 fit.
	for i := range l.File.Members {
		if l.File.Members[i].Budget != nil {
			l.File.Members[i].Budget = &consortium.Budget{Epsilon: 3, Delta: 3e-5}
		}
	}
	return l, nil
}

// mpcrdpDemo splits the dataset by columns as the paper's §6 does (see
// mpcrdpspec.SplitFeatures), with a trusted server and standard-DP settings.
func mpcrdpDemo(in demoInput) (*demoLayout, error) {
	var features []string
	label, b := "", 2
	switch in.Dataset {
	case "adult":
		features, label = mpcrdpspec.AdultFeatures, "income"
	case "wdbc":
		label, b = "diagnosis", 4
		features = slices.DeleteFunc(in.Table.Schema.Names(), func(s string) bool { return s == label })
	default:
		return nil, usagef("mp-crdp's demo splits adult or wdbc, not %q", in.Dataset)
	}
	t, err := in.Table.SelectColumns(append(slices.Clone(features), label)...)
	if err != nil {
		return nil, err
	}
	if t.Schema.ID == "" {
		t.Schema.ID = "id"
		t.IDs = make([]string, t.Len())
		for i := range t.IDs {
			t.IDs[i] = strconv.Itoa(i + 1)
		}
	}
	parts, err := mpcrdpspec.SplitFeatures(t, features, label, in.Owners)
	if err != nil {
		return nil, usageError{err}
	}
	global := in.Dataset + ".schema.json"
	f := consortium.File{Name: "demo", Certs: "certs", Limits: consortium.DefaultLimits(),
		Members: []consortium.Member{{Name: "server", Role: "server", Address: "127.0.0.1:7400"}},
		Methods: map[string]json.RawMessage{
			mpcrdpspec.Name: json.RawMessage(fmt.Sprintf(`{"label": %q, "epsilon": 1, "notion": "standard", "b": %d}`, label, b)),
		}}
	l := &demoLayout{Tables: map[string]*data.Table{}, Schemas: map[string]data.Schema{global: t.Schema},
		Summary: fmt.Sprintf("a trusted server and %d parties holding the columns of %d %s records (global schema %s)", in.Owners, t.Len(), in.Dataset, global)}
	for i, part := range parts {
		name := mpcrdpspec.PartyName(i + 1)
		schemaFile := fmt.Sprintf("%s.%s.schema.json", in.Dataset, name)
		m := demoOwner(name, "owner", in.Dataset, i+1, schemaFile, consortium.Budget{Epsilon: 3})
		f.Members = append(f.Members, m)
		l.Tables[m.Dataset.Path], l.Schemas[schemaFile] = part, part.Schema
	}
	l.File = f
	return l, nil
}

// pdpmvdsDemo splits the dataset by columns among the parties (see
// data.SplitVerticalEven), with a synthesizer and the third party S.
func pdpmvdsDemo(in demoInput) (*demoLayout, error) {
	if in.Owners < 2 {
		return nil, usagef("pdp-mvds needs at least 2 owners, got %d", in.Owners)
	}
	t := &data.Table{Schema: in.Table.Schema, Rows: in.Table.Rows}
	t.Schema.ID = ""
	parts, err := data.SplitVerticalEven(t, in.Owners)
	if err != nil {
		return nil, usageError{err}
	}
	global := in.Dataset + ".schema.json"
	f := consortium.File{Name: "demo", Certs: "certs", Limits: consortium.DefaultLimits(),
		Members: []consortium.Member{{Name: "synthesizer", Role: "synthesizer", Address: "127.0.0.1:7400"}},
		Methods: map[string]json.RawMessage{
			pdpmvdsspec.Name: json.RawMessage(fmt.Sprintf(`{"records": %d, "rho": 0.5}`, t.Len())),
		}}
	l := &demoLayout{Tables: map[string]*data.Table{}, Schemas: map[string]data.Schema{global: t.Schema},
		Summary: fmt.Sprintf("a synthesizer, %d parties holding the columns of %d %s records and the third party S (global schema %s)", in.Owners, t.Len(), in.Dataset, global)}
	for i, part := range parts {
		name := fmt.Sprintf("party-%d", i+1)
		schemaFile := fmt.Sprintf("%s.%s.schema.json", in.Dataset, name)
		m := demoOwner(name, "owner", in.Dataset, i+1, schemaFile, consortium.Budget{Rho: 5})
		f.Members = append(f.Members, m)
		l.Tables[m.Dataset.Path], l.Schemas[schemaFile] = part, part.Schema
	}
	f.Members = append(f.Members, consortium.Member{Name: "third-party", Role: "third-party", Address: fmt.Sprintf("127.0.0.1:%d", 7401+in.Owners)})
	l.File = f
	return l, nil
}
