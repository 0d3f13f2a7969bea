package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/randx"
	"github.com/spf13/cobra"
)

// demoLayout is a ready-to-run consortium: the file, and every file it
// refers to (relative paths).
type demoLayout struct {
	File    consortium.File
	Tables  map[string]*data.Table
	Schemas map[string]data.Schema
	// Summary completes "Wrote consortium.json: consortium "demo" with …".
	Summary string
}

// demoMethodNames are the registered methods with a demo layout.
func demoMethodNames() []string {
	names := method.Names(func(s method.Spec) bool { return s.Demo != nil })
	slices.Sort(names)
	return names
}

func newConsortiumDemoCmd() *cobra.Command {
	var dir, dataset, name string
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
				return kit.Usagef("--owners must be in [1, 50], got %d", owners)
			}
			if rows < 0 {
				return kit.Usagef("--rows must not be negative, got %d", rows)
			}
			if withLDA {
				name = ldaDemoMethod
			}
			if err := checkDemoDir(dir, force); err != nil {
				return err
			}
			src := randx.NewSecure()
			if cmd.Flags().Changed("split-seed") {
				src = randx.NewSeeded(seed)
			}
			return writeDemo(cmd.OutOrStdout(), dir, name, dataset, owners, rows, src)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&dir, "dir", "demo", "directory to write into (new or empty, unless --force)")
	fs.BoolVar(&force, "force", false, "write into a --dir that already holds files, replacing its consortium file, schemas and owners' data (certificates and budget ledgers are kept)")
	fs.StringVar(&name, "method", defaultDemoMethod, "method to lay the consortium out for: "+strings.Join(demoMethodNames(), ", "))
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
		return kit.Usagef("--dir: %v", err)
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
	return kit.Usagef("--dir %s already holds files (%s): a demo would replace its consortium.json, schemas and owners' data; give another --dir, or --force to write over them", dir, strings.Join(names, ", "))
}

// demoHelp lists the layouts registered by other files, for --help.
var demoHelp string

// writeDemo lays a built-in dataset out for a method and writes the files
// of a consortium on this machine.
func writeDemo(w io.Writer, dir, name, dataset string, owners, rows int, src *randx.Source) error {
	spec, err := method.Lookup(name)
	if err != nil || spec.Demo == nil {
		return kit.Usagef("--method %q has no demo layout (want one of %s)", name, strings.Join(demoMethodNames(), ", "))
	}
	t, err := datasets.Load(dataset)
	if err != nil {
		return err
	}
	if rows > 0 && rows < t.Len() {
		t = &data.Table{Schema: t.Schema, Rows: t.Rows[:rows], IDs: idsPrefix(t.IDs, rows)}
	}
	l, err := buildDemo(spec, method.DemoInput{Dataset: dataset, Table: t, Owners: owners, Src: src})
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

// The demo --method gives when none is named, and the one --lda names.
const (
	defaultDemoMethod = "ppca-dp-mh"
	ldaDemoMethod     = "mul-lda-dp"
)

// buildDemo lays the dataset out for spec: its own demo, or the demo it
// extends with its additions. A demo refuses what the command's flags
// asked for (the dataset, the number of owners): a usage error.
func buildDemo(spec method.Spec, in method.DemoInput) (*demoLayout, error) {
	d, err := spec.Demo(in)
	if err != nil {
		return nil, kit.UsageError{Err: err}
	}
	if d.Extends == "" {
		return ownDemoLayout(spec.Name, d, in), nil
	}
	base, err := method.Lookup(d.Extends)
	if err != nil || base.Demo == nil {
		panic(fmt.Sprintf("%s's demo extends %q, which has none", spec.Name, d.Extends))
	}
	l, err := buildDemo(base, in)
	if err != nil {
		return nil, err
	}
	f := &l.File
	for _, m := range d.After {
		f.Members = append(f.Members, demoMember(m, len(f.Members)))
	}
	f.Methods[spec.Name] = d.Settings
	if d.Budget != nil {
		for i := range f.Members {
			if f.Members[i].Budget != nil {
				f.Members[i].Budget = demoBudget(d.Budget)
			}
		}
	}
	l.Summary += d.Summary
	return l, nil
}

// ownDemoLayout is a demo's consortium: the coordinator at port 7400, the
// owners after it, then the members that hold no data.
func ownDemoLayout(name string, d *method.Demo, in method.DemoInput) *demoLayout {
	global := in.SchemaFile()
	f := consortium.File{Name: "demo", Certs: "certs", Limits: consortium.DefaultLimits(),
		Members: []consortium.Member{{Name: d.Coordinator, Role: d.Coordinator, Address: "127.0.0.1:7400"}},
		Methods: map[string]json.RawMessage{name: d.Settings}}
	l := &demoLayout{Tables: map[string]*data.Table{}, Schemas: map[string]data.Schema{global: d.Schema}, Summary: d.Summary}
	for i, part := range d.Owners {
		owner := fmt.Sprintf("%s-%d", d.OwnerPrefix, i+1)
		schemaFile := global
		if d.ByColumns {
			schemaFile = fmt.Sprintf("%s.%s.schema.json", in.Dataset, owner)
			l.Schemas[schemaFile] = part.Schema
		}
		m := demoOwner(owner, method.RoleOwner, in.Dataset, i+1, schemaFile, *demoBudget(d.Budget))
		f.Members = append(f.Members, m)
		l.Tables[m.Dataset.Path] = part
	}
	for _, m := range d.After {
		f.Members = append(f.Members, demoMember(m, len(f.Members)))
	}
	l.File = f
	return l
}

func demoBudget(b *method.DemoBudget) *consortium.Budget {
	return &consortium.Budget{Epsilon: b.Epsilon, Delta: b.Delta, Rho: b.Rho}
}

// demoMember is a member that holds no data, at port 7400+i (the
// members before it hold ports 7400 to 7400+i-1).
func demoMember(m method.DemoMember, i int) consortium.Member {
	return consortium.Member{Name: m.Name, Role: m.Role, Address: fmt.Sprintf("127.0.0.1:%d", 7400+i), PublishingLedger: m.PublishingLedger}
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
