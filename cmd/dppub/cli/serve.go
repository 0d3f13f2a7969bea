package cli

import (
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/dppub/dppub/budgetstore"
	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/internal/fsutil"
	"github.com/dppub/dppub/transport"
	_ "github.com/dppub/dppub/transport/methods" // registers the networked methods
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

type serveFlags struct {
	config, member, listen, ready string
	acceptSeed                    bool
	handleDelay                   time.Duration
	latency                       time.Duration
	transportVersion              int
	verbose                       bool
}

// register declares the command's flags into f.
func (f *serveFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.config, "config", "", "consortium file (required)")
	fs.StringVar(&f.member, "member", "", "member to serve (required)")
	fs.StringVar(&f.listen, "listen", "", "address to listen on (default: the member's address; port 0 picks a free port)")
	fs.StringVar(&f.ready, "ready-file", "", "write the bound address to this file once listening")
	fs.BoolVar(&f.acceptSeed, "insecure-accept-seed", false, "INSECURE: accept a seed from the coordinator (reproducible runs for tests; no privacy guarantee)")
	fs.BoolVar(&f.verbose, "verbose", false, "log every delivery attempt")
	fs.DurationVar(&f.handleDelay, "fault-handle-delay", 0, "fault injection for tests: delay every message the role handles")
	_ = fs.MarkHidden("fault-handle-delay")
	fs.DurationVar(&f.latency, "fault-latency", 0, "fault injection for benchmarks: hold every message from another member until this long after it arrived (a one-way network latency)")
	_ = fs.MarkHidden("fault-latency")
	fs.IntVar(&f.transportVersion, "fault-transport-version", 0, "fault injection for tests: speak this transport version instead of this build's")
	_ = fs.MarkHidden("fault-transport-version")
}

func newServeCmd() *cobra.Command {
	return kit.NewCommand(&cobra.Command{
		Use:   "serve ROLE",
		Short: "Serve one member of a consortium (e.g. a data owner) over mutual TLS",
		Long: `Runs one member's node: it listens on the member's address, accepts sessions
proposed by the consortium's coordinator (its certificate must carry the
method's coordinating role), runs the member's role with its own data, and
records every privacy spend in its budget ledger before the noisy statistic
leaves. It refuses a session that would exceed the dataset's lifetime budget
and tells the coordinator why. Stop it with Ctrl-C.

ROLE must be the member's role in the consortium file (a check against
starting the wrong member). Methods that run over the network: ` + fmt.Sprint(transport.Methods()) + `

Example:
  dppub serve owner --config demo/consortium.json --member owner-1`,
		Args: cobra.ExactArgs(1),
	}, (*serveFlags).register, runServe)
}

func newLogger(w io.Writer, verbose bool) *slog.Logger {
	level := slog.LevelInfo
	if verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

// checkMemberData checks, before the member serves, the files its
// sessions will read: they exist and can be read, and its schema is
// valid. (Its rows are read and checked against the schema when a
// session needs them.)
func checkMemberData(file *consortium.File, m consortium.Member) error {
	if err := file.CheckDataset(m); err != nil {
		return err
	}
	if m.Dataset == nil {
		return nil
	}
	if _, err := data.LoadSchema(file.Path(m.Dataset.Schema)); err != nil {
		return fmt.Errorf("member %q's dataset schema: %w", m.Name, err)
	}
	return nil
}

func runServe(cmd *cobra.Command, f *serveFlags, args []string) error {
	role := args[0]
	if f.config == "" || f.member == "" {
		return kit.Usagef("--config FILE and --member NAME are required")
	}
	file, err := consortium.Load(f.config)
	if err != nil {
		return err
	}
	m, err := file.Member(f.member)
	if err != nil {
		return err
	}
	if m.Role != role {
		return kit.Usagef("member %q has role %q in %s, not %q", m.Name, m.Role, f.config, role)
	}
	if err := checkMemberData(file, m); err != nil {
		return err // before the ledger is opened (or created)
	}
	creds, err := consortium.LoadCredentials(file, m.Name)
	if err != nil {
		return err // likewise
	}
	var ledger *budgetstore.Store
	if m.Dataset != nil {
		if ledger, err = budgetstore.Open(budgetstore.Options{Path: file.LedgerPath(m)}); err != nil {
			return err
		}
		defer ledger.Close()
	}
	node, err := transport.NewNode(transport.NodeOptions{Consortium: file, Member: m.Name, Credentials: creds, Listen: f.listen, Ledger: ledger,
		AcceptSeed: f.acceptSeed, HandleDelay: f.handleDelay, Latency: f.latency, ProtocolVersion: f.transportVersion, Logger: newLogger(cmd.ErrOrStderr(), f.verbose)})
	if err != nil {
		return err
	}
	if f.acceptSeed {
		fmt.Fprintln(cmd.ErrOrStderr(), "WARNING: --insecure-accept-seed lets the coordinator predict this member's noise: no privacy guarantee")
	}
	if err := node.Start(); err != nil {
		return err
	}
	ctx, stop := fsutil.NotifyContext(cmd.Context()) // the command stops cleanly on SIGINT and SIGTERM
	defer stop()
	if f.ready != "" {
		if err := fsutil.WriteFileAtomic(f.ready, 0o644, func(w io.Writer) error {
			_, err := fmt.Fprintln(w, node.Addr())
			return err
		}); err != nil {
			node.Close()
			return err
		}
	}
	if ledger != nil {
		if bal, err := ledger.Balance(m.DatasetName()); err == nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "%s serving %s as %s on %s; dataset %s: spent %v of %v, remaining %v\n",
				m.Name, file.Name, m.Role, node.Addr(), bal.Dataset, bal.Spent, bal.Lifetime, bal.Remaining)
		}
	} else {
		fmt.Fprintf(cmd.ErrOrStderr(), "%s serving %s as %s on %s\n", m.Name, file.Name, m.Role, node.Addr())
	}
	<-ctx.Done()
	fmt.Fprintf(cmd.ErrOrStderr(), "%s stopping\n", m.Name)
	return node.Close()
}
