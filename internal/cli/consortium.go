package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/dppub/dppub/budgetstore"
	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/internal/fsutil"
	"github.com/dppub/dppub/randx"
	"github.com/spf13/cobra"
)

func init() {
	topCommands = append(topCommands, newConsortiumCmd, newServeCmd, newRunCmd)
}

func newConsortiumCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "consortium",
		Short: "Set up the members who run methods together over the network",
		Long: `A consortium file (JSON) lists the members: each one's name, role (e.g. owner,
curator), address, and for data owners the dataset, its schema, the lifetime
privacy budget and the ledger file. See transport/README.md for a walkthrough.`,
	}
	cmd.AddCommand(newConsortiumInitCmd(), newConsortiumDemoCmd(), newConsortiumBudgetCmd())
	return cmd
}

func newConsortiumInitCmd() *cobra.Command {
	var config string
	var validity time.Duration
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Create the consortium CA and a certificate and key per member",
		Long: `Creates the consortium's certificate authority (unless it exists) and, for
every member without one, a certificate naming it dppub://<consortium>/<role>/<name>
and its private key, in the file's certs directory. Run it again after adding
members: existing certificates are kept and checked.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if config == "" {
				return usagef("--config FILE is required")
			}
			f, err := consortium.Load(config)
			if err != nil {
				return err
			}
			res, err := consortium.Init(f, consortium.InitOptions{Validity: validity})
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			dir := f.Path(f.Certs)
			if res.CreatedCA {
				fmt.Fprintf(w, "Created the CA of consortium %q in %s\n", f.Name, dir)
			}
			for _, n := range res.Issued {
				fmt.Fprintf(w, "Issued %s and its key %s\n", f.CertFile(n), f.KeyFile(n))
			}
			for _, n := range res.Kept {
				fmt.Fprintf(w, "Kept the existing certificate of %s\n", n)
			}
			fmt.Fprintf(w, "Keep %s secret: whoever holds it can certify new members.\n", filepath.Join(dir, consortium.CAKeyFile))
			return nil
		},
	}
	cmd.Flags().StringVar(&config, "config", "", "consortium file (required)")
	cmd.Flags().DurationVar(&validity, "validity", 365*24*time.Hour, "validity of new member certificates")
	return cmd
}

func newConsortiumDemoCmd() *cobra.Command {
	var dir, dataset string
	var owners, rows int
	var seed uint64
	var withLDA bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Write a ready-to-run consortium on this machine from a built-in dataset",
		Long: `Writes DIR/consortium.json (a curator and --owners owners on 127.0.0.1 ports
7400, 7401, ...), the dataset's schema, and one CSV per owner holding a
random, disjoint share of the dataset's rows. Then run
  dppub consortium init --config DIR/consortium.json
and follow transport/README.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if owners < 1 || owners > 50 {
				return usagef("--owners must be in [1, 50], got %d", owners)
			}
			if rows < 0 {
				return usagef("--rows must not be negative, got %d", rows)
			}
			src := randx.NewSecure()
			if cmd.Flags().Changed("split-seed") {
				src = randx.NewSeeded(seed)
			}
			return writeDemo(cmd.OutOrStdout(), dir, dataset, owners, rows, withLDA, src)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&dir, "dir", "demo", "directory to write into")
	fs.StringVar(&dataset, "dataset", "adult", "built-in dataset to split among the owners")
	fs.IntVar(&owners, "owners", 3, "number of data owners")
	fs.IntVar(&rows, "rows", 0, "use only the first N rows of the dataset (0: all)")
	fs.BoolVar(&withLDA, "lda", false, "also add a publisher and a noise dealer for mul-lda-dp (label: the dataset's)")
	fs.Uint64Var(&seed, "split-seed", 0, "seed the random split among owners (reproducible files; the split is not a privacy mechanism)")
	return cmd
}

// writeDemo splits a built-in dataset among owners and writes the files
// of a consortium on this machine.
func writeDemo(w io.Writer, dir, dataset string, owners, rows int, withLDA bool, src *randx.Source) error {
	t, err := datasets.Load(dataset)
	if err != nil {
		return err
	}
	if rows > 0 && rows < t.Len() {
		t = &data.Table{Schema: t.Schema, Rows: t.Rows[:rows]}
	}
	parts := []*data.Table{t}
	if owners > 1 {
		if parts, err = data.SplitHorizontal(t, owners, nil, src); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		return err
	}
	schemaFile := dataset + ".schema.json"
	if err := writeJSONFile(filepath.Join(dir, schemaFile), t.Schema); err != nil {
		return err
	}
	f := demoConsortium(dataset, owners, schemaFile)
	if withLDA {
		label := ldaDatasetLabel(dataset)
		if label == "" {
			return usagef("dataset %q has no default label for mul-lda-dp", dataset)
		}
		addLDAMembers(&f, owners, schemaFile, label)
	}
	for i, part := range parts {
		if err := writeTableFile(filepath.Join(dir, f.Members[i+1].Dataset.Path), part); err != nil {
			return err
		}
	}
	path := filepath.Join(dir, "consortium.json")
	if err := writeJSONFile(path, f); err != nil {
		return err
	}
	fmt.Fprintf(w, "Wrote %s: consortium %q with a curator and %d owners of %s (%d rows in all)\n", path, f.Name, owners, dataset, t.Len())
	fmt.Fprintf(w, "Next: dppub consortium init --config %s\n", path)
	return nil
}

func newConsortiumBudgetCmd() *cobra.Command {
	var config, member string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "budget",
		Short: "Show and verify an owner's privacy-budget ledger",
		Long: `Prints the lifetime budget, what is spent and what remains for the member's
dataset, and every recorded charge, after checking the ledger's consistency.
The member's server must be stopped: a ledger is used by one process at a time.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if config == "" || member == "" {
				return usagef("--config FILE and --member NAME are required")
			}
			f, err := consortium.Load(config)
			if err != nil {
				return err
			}
			m, err := f.Member(member)
			if err != nil {
				return err
			}
			if m.Dataset == nil {
				return fmt.Errorf("member %q holds no dataset and has no budget ledger", member)
			}
			store, err := budgetstore.Open(budgetstore.Options{Path: f.LedgerPath(m)})
			if err != nil {
				return err
			}
			defer store.Close()
			return printBudget(cmd.OutOrStdout(), store, m.DatasetName(), asJSON)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&config, "config", "", "consortium file (required)")
	fs.StringVar(&member, "member", "", "member whose ledger to show (required)")
	fs.BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func printBudget(w io.Writer, store *budgetstore.Store, dataset string, asJSON bool) error {
	if err := store.Verify(); err != nil {
		return err
	}
	bal, err := store.Balance(dataset)
	if err != nil {
		return err
	}
	entries, err := store.Entries(dataset)
	if err != nil {
		return err
	}
	if asJSON {
		b, err := json.MarshalIndent(struct {
			Balance budgetstore.Balance `json:"balance"`
			Entries []budgetstore.Entry `json:"entries"`
		}{bal, entries}, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	fmt.Fprintf(w, "Dataset %s (ledger %s, consistent)\n", dataset, store.Path())
	fmt.Fprintf(w, "  lifetime budget: %v\n  spent:           %v in %d charges over %d sessions\n  remaining:       %v\n",
		bal.Lifetime, bal.Spent, bal.Entries, bal.Sessions, bal.Remaining)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, e := range entries {
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%v\n", e.Seq, e.Time.Format(time.RFC3339), e.Session, e.Charge.Purpose, e.Charge.Spec.Guarantee)
	}
	return tw.Flush()
}

// demoConsortium is the consortium file the demo command writes.
func demoConsortium(dataset string, owners int, schemaFile string) consortium.File {
	f := consortium.File{Name: "demo", Certs: "certs", Limits: consortium.DefaultLimits(),
		Members: []consortium.Member{{Name: "curator", Role: "curator", Address: "127.0.0.1:7400"}},
		Methods: map[string]json.RawMessage{
			"ppca-dp-mh": json.RawMessage(fmt.Sprintf(`{"schema": %q, "epsilon": 1, "mechanism": "laplace", "noise": "local"}`, schemaFile)),
		}}
	for i := 1; i <= owners; i++ {
		name := fmt.Sprintf("owner-%d", i)
		f.Members = append(f.Members, consortium.Member{
			Name: name, Role: "owner", Address: fmt.Sprintf("127.0.0.1:%d", 7400+i),
			Dataset: &consortium.Dataset{Name: dataset + "-" + name, Path: filepath.Join("data", name+".csv"), Schema: schemaFile},
			Budget:  &consortium.Budget{Epsilon: 3, Delta: 1e-5},
			Ledger:  name + ".budget.db",
		})
	}
	return f
}

// addLDAMembers adds a publisher and a noise dealer, and default
// mul-lda-dp settings.
func addLDAMembers(f *consortium.File, owners int, schemaFile, label string) {
	f.Members = append(f.Members,
		consortium.Member{Name: "publisher", Role: "publisher", Address: fmt.Sprintf("127.0.0.1:%d", 7401+owners)},
		consortium.Member{Name: "dealer", Role: "dealer", Address: fmt.Sprintf("127.0.0.1:%d", 7402+owners)})
	f.Methods["mul-lda-dp"] = json.RawMessage(fmt.Sprintf(`{"schema": %q, "label": %q, "epsilon": 1, "delta": 1e-06}`, schemaFile, label))
}

func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(path, 0o644, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}

func writeTableFile(path string, t *data.Table) error {
	return fsutil.WriteFileAtomic(path, 0o644, func(w io.Writer) error { return data.WriteCSV(w, t) })
}
