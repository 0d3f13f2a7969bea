package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/dppub/dppub/budgetstore"
	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/internal/fsutil"
	"github.com/spf13/cobra"
)

func newConsortiumCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "consortium",
		Short: "Set up the members who run methods together over the network",
		Long: `A consortium file (JSON) lists the members: each one's name, role (e.g. owner,
curator), address, and for data owners the dataset, its schema, the lifetime
privacy budget and the ledger file. The README's "Running a method across machines"
walks through it; dppub consortium demo --method M writes one for each method.`,
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
		Example: `  dppub consortium demo --method ppca-dp-mh --dir demo
  dppub consortium init --config demo/consortium.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if config == "" {
				return kit.Usagef("--config FILE is required")
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

func newConsortiumBudgetCmd() *cobra.Command {
	var config, member string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "budget",
		Short: "Show and verify an owner's privacy-budget ledger",
		Long: `Prints the lifetime budget, what is spent and what remains for the member's
dataset, and every recorded charge, after checking the ledger's consistency.
The member's server must be stopped: a ledger is used by one process at a time.`,
		Example: `  dppub consortium budget --config demo/consortium.json --member owner-1
  dppub consortium budget --config demo/consortium.json --member owner-1 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if config == "" || member == "" {
				return kit.Usagef("--config FILE and --member NAME are required")
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
		return printJSON(w, struct {
			Balance budgetstore.Balance `json:"balance"`
			Entries []budgetstore.Entry `json:"entries"`
		}{bal, entries})
	}
	fmt.Fprintf(w, "Dataset %s (ledger %s, consistent)\n", dataset, store.Path())
	fmt.Fprintf(w, "  lifetime budget: %v\n  spent:           %v in %d charges over %d sessions\n  remaining:       %v\n",
		bal.Lifetime, bal.Spent, bal.Entries, bal.Sessions, bal.Remaining)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if len(bal.Converted) > 0 {
		// The entries of these sessions are ρ; what the lifetime budget
		// counts is each session's sum, converted once.
		fmt.Fprintf(w, "  zCDP sessions, each counted once as the (ε, δ) its charged ρ gives at the session's δ:\n")
		for _, c := range bal.Converted {
			fmt.Fprintf(tw, "    %s\tρ=%.4g of ρ=%.4g\tat δ=%.3g\t→ %v\t%s\n", c.Session, c.Charged, c.Budget, c.Delta, c.Counted, c.State)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, e := range entries {
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%v\n", e.Seq, e.Time.Format(time.RFC3339), e.Session, e.Charge.Purpose, e.Charge.Spec.Guarantee)
	}
	return tw.Flush()
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
