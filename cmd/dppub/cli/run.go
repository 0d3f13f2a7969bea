package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/internal/fsutil"
	"github.com/dppub/dppub/ledger"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/transport"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

type runFlags struct {
	config, member, settings, listen string
	set, peers                       []string
	out, report, ledgerDir           string
	src                              kit.SourceFlags
	verbose                          bool
}

// register declares the command's flags into f.
func (f *runFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.config, "config", "", "consortium file (required)")
	fs.StringVar(&f.member, "member", "", "coordinating member (default: the only member with the method's coordinating role)")
	fs.StringVar(&f.settings, "settings", "", "method settings JSON file (default: the consortium file's methods section)")
	fs.StringArrayVar(&f.set, "set", nil, "override one setting, KEY=VALUE (repeatable)")
	fs.StringVar(&f.listen, "listen", "", "address to listen on for the members' replies (default: the member's address)")
	fs.StringArrayVar(&f.peers, "peer", nil, "override a member's address, NAME=HOST:PORT (repeatable)")
	fs.StringVar(&f.out, "out", "", "output file to write (required)")
	fs.StringVar(&f.report, "report", "", "privacy report JSON (default <out>.privacy.json)")
	fs.Bool("force", false, "replace outputs that already exist")
	fs.StringVar(&f.ledgerDir, "ledger", "", "publishing ledger directory to record the session in (default: the member's publishing_ledger)")
	fs.BoolVar(&f.verbose, "verbose", false, "log the session's progress on stderr")
	f.src.Register(fs)
}

func newRunCmd() *cobra.Command {
	return kit.NewCommand(&cobra.Command{
		Use:   "run METHOD",
		Short: "Run a multi-party method across the consortium's members and publish the result",
		Long: `Starts a session as the method's coordinating member (for ppca-dp-mh, the
curator), with the members serving (` + "`dppub serve`" + `) on their machines. Every
member is first asked to join, and may refuse (e.g. when the session would
exceed its lifetime budget); only when all have accepted does any of them
release a statistic. The session is aborted, naming the member at fault,
when a member fails, stops answering, or exceeds the step deadline; then
nothing is published. On success the output and its privacy report are
written exactly as ` + "`dppub publish`" + ` writes them: a synthetic table as CSV,
or Parquet for a .parquet --out; ppca-dp-mh's rows are written as they
come (the coordinator never holds them whole), also to standard output
with --out - (and --report FILE).

Settings come from the consortium file's "methods" section, or --settings
FILE, with --set KEY=VALUE on top (KEY=auto removes the key, for the
method's default; VALUE is read as JSON when it parses,
else as a string). Methods: ` + fmt.Sprint(transport.Methods()) + `

With --ledger DIR (default: the coordinating member's publishing_ledger in
the consortium file), every session is recorded in the shared publishing
ledger (see dppub ledger --help), signed by the coordinator: a published
session with the SHA-256 of every file written and each participant's
receipted spend; an aborted one with the reason. Published files are
removed again if the record cannot be written, so nothing is published
unrecorded.

Examples:
  dppub run ppca-dp-mh --config demo/consortium.json --set epsilon=0.5 --out synth.csv
  # parties of columns holding overlapping records under an ID column (each
  # schema's "id"): linked first by private set intersection
  dppub run pdp-mvds --config c.json --set link=true --set delta=1e-10 --out synth.csv`,
		Args: cobra.ExactArgs(1),
	}, (*runFlags).register, runRun)
}

func runRun(cmd *cobra.Command, f *runFlags, args []string) error {
	method := args[0]
	m, err := f.check(method)
	if err != nil {
		return err
	}
	file, err := consortium.Load(f.config)
	if err != nil {
		return err
	}
	self, err := coordinatorMember(file, m, f.member)
	if err != nil {
		return err
	}
	settings, err := runSettings(file, method, f.settings, f.set)
	if err != nil {
		return err
	}
	if err := checkRunSettings(method, settings); err != nil {
		return err // before the ledger is opened: a mistake records nothing
	}
	peers, err := parsePeers(f.peers)
	if err != nil {
		return err
	}
	node, err := startCoordinator(cmd, f, file, self)
	if err != nil {
		return err
	}
	defer node.Close()
	ctx, stop := fsutil.NotifyContext(cmd.Context()) // the command stops cleanly on SIGINT and SIGTERM
	defer stop()
	rec, err := openSessionLedger(file, self, f.ledgerDir)
	if err != nil {
		return err
	}
	defer rec.close()
	opts := transport.RunOptions{Method: method, Settings: settings,
		Source: f.src.Source(cmd.Flags(), cmd.ErrOrStderr()), Addresses: peers, Progress: runProgress(cmd)}
	var (
		res      *transport.Result
		streamed *streamedRows // the rows went to f.out as they came
	)
	if streamsRows(method) {
		if res, streamed, err = runStreamingRows(ctx, cmd, node, opts, f.out); err != nil && res != nil {
			return stdoutIncomplete(err, f.out, streamed) // the session succeeded, its output could not be written
		}
	} else {
		res, err = node.Run(ctx, opts)
	}
	if err != nil {
		return stdoutIncomplete(errors.Join(err, rec.record(transport.AbortedRecord(err, self, settings, method))), f.out, streamed)
	}
	if err := publishSession(cmd, f, method, self, settings, rec, res, streamed); err != nil {
		return err
	}
	kit.NoteReport(cmd, res.Report)
	kit.NoteQuality(cmd, "summary", res.Summary)
	printOutcome(cmd.OutOrStdout(), f, res, streamed)
	if rec != nil {
		fmt.Fprintf(cmd.OutOrStdout(), "  recorded in the publishing ledger %s (entry %d)\n", rec.dir, rec.last)
	}
	return nil
}

// check refuses a run without --config or --out, of an unknown method,
// of files to standard output, or to Parquet in a build without it,
// before any budget is spent, and fills the default --report. It
// returns the method.
func (f *runFlags) check(method string) (transport.Method, error) {
	if f.config == "" || f.out == "" {
		return transport.Method{}, kit.Usagef("--config FILE and --out FILE are required")
	}
	if f.report == "" {
		f.report = f.out + ".privacy.json"
	}
	m, err := transport.Lookup(method)
	if err != nil {
		return transport.Method{}, kit.Usagef("%v", err)
	}
	if f.out == kit.StdoutPath && !streamsRows(method) {
		// Its outcome may hold further files named after --out.
		return transport.Method{}, kit.Usagef("--out - (standard output) is for %s's synthetic rows; %s writes files (--out FILE)", streamingMethods(), method)
	}
	if data.IsParquetPath(f.out) {
		// A build without Parquet refuses before any budget is spent.
		if _, err := data.NewParquetWriter(io.Discard, parquetProbe); err != nil {
			return transport.Method{}, fmt.Errorf("--out %s: %w", f.out, err)
		}
	}
	return m, nil
}

// startCoordinator starts the node of the coordinating member self,
// logging to standard error with --verbose.
func startCoordinator(cmd *cobra.Command, f *runFlags, file *consortium.File, self string) (*transport.Node, error) {
	logw := io.Discard
	if f.verbose {
		logw = cmd.ErrOrStderr()
	}
	node, err := transport.NewNode(transport.NodeOptions{Consortium: file, Member: self, Listen: f.listen, Logger: newLogger(logw, f.verbose)})
	if err != nil {
		return nil, err
	}
	if err := node.Start(); err != nil {
		return nil, err
	}
	return node, nil
}

// publishSession writes a successful session's outcome (the rows already
// streamed, when streamed is set) and records it in the ledger with the
// digest of every file written; if the record fails, the files are
// removed again, so nothing is published unrecorded.
func publishSession(cmd *cobra.Command, f *runFlags, method, self string, settings json.RawMessage, rec *sessionLedger, res *transport.Result, streamed *streamedRows) error {
	var err error
	if streamed != nil {
		err = writeStreamedOutcome(cmd, runParameters(method, settings), f.out, f.report, res.Outcome, streamed)
	} else {
		err = writeOutcome(cmd, runParameters(method, settings), f.out, f.report, res.Outcome)
	}
	if err != nil {
		return err
	}
	written := outcomeFiles(f.out, f.report, res.Outcome)
	var digests map[string]string
	if streamed != nil {
		digests, err = streamedDigests(written, f.out, streamed)
	} else {
		digests, err = digestFiles(written)
	}
	if err == nil {
		err = rec.record(transport.PublishedRecord(res, self, settings, method, digests))
	}
	if err != nil {
		kit.RemoveAll(slices.DeleteFunc(written, func(p string) bool { return p == kit.StdoutPath }))
		if f.out == kit.StdoutPath {
			return fmt.Errorf("nothing published: %w; the rows written to %s are unpublished: discard them", err, kit.StdoutName)
		}
		return fmt.Errorf("nothing published: %w", err)
	}
	return nil
}

// runProgress prints on stderr, one line each, whom the session waits
// for (a member that does not answer, retried until unreachable_after or
// step_timeout), unless --quiet.
func runProgress(cmd *cobra.Command) func(string) {
	if kit.InheritedBool(cmd, kit.QuietFlag) {
		return nil
	}
	w := cmd.ErrOrStderr()
	return func(msg string) { fmt.Fprintf(w, "dppub run: %s\n", msg) }
}

// parquetProbe is a schema to ask data.NewParquetWriter whether this
// build writes Parquet at all, before the session's own schema is known.
var parquetProbe = data.Schema{Attributes: []data.Attribute{{Name: "x", Kind: data.Numeric, Max: 1}}}

// runParameters are the session's method and merged settings (one entry
// per setting, its value as JSON) for the report, beside the flags.
func runParameters(method string, settings json.RawMessage) map[string]string {
	params := map[string]string{"method": method}
	var obj map[string]json.RawMessage
	if json.Unmarshal(settings, &obj) != nil {
		params["settings"] = string(settings)
		return params
	}
	for k, v := range obj {
		params["settings."+k] = string(v)
	}
	return params
}

// sessionLedger is the publishing ledger a coordinator records its
// sessions in; a nil *sessionLedger records nothing.
type sessionLedger struct {
	dir  string
	l    *ledger.FileLedger
	id   *ledger.Identity
	last uint64
}

// openSessionLedger opens the coordinator's publishing ledger, before the
// session starts, so that a ledger that cannot be written stops the
// session before anyone spends budget.
func openSessionLedger(file *consortium.File, self, dir string) (*sessionLedger, error) {
	if dir == "" {
		m, err := file.Member(self)
		if err != nil {
			return nil, err
		}
		dir = file.Path(m.PublishingLedger)
	}
	if dir == "" {
		return nil, nil
	}
	setup, l, err := kit.OpenLedgerDirAs(dir, self, []string{self})
	if err != nil {
		return nil, fmt.Errorf("publishing ledger %s: %w", dir, err)
	}
	return &sessionLedger{dir: dir, l: l, id: setup.Identities[self]}, nil
}

func (s *sessionLedger) record(r transport.SessionRecord) error {
	if s == nil {
		return nil
	}
	i, err := transport.Record(s.l, s.id, r, time.Now())
	s.last = i
	return err
}

func (s *sessionLedger) close() {
	if s != nil {
		s.l.Close()
	}
}

// outcomeFiles lists the files writeOutcome wrote.
func outcomeFiles(out, report string, o *transport.Outcome) []string {
	files := []string{out, report}
	for _, f := range o.Files {
		files = append(files, out+f.Suffix)
	}
	return files
}

// digestFiles maps each file's base name to the SHA-256 of its bytes.
func digestFiles(paths []string) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		out[filepath.Base(p)] = transport.FileDigest(b)
	}
	return out, nil
}

// coordinatorMember is the member that coordinates m's session: --member
// when given, which must have m's coordinating role (checked before
// anything else about the member: an owner named by mistake is told so,
// not that it lacks a ledger), else the only member with that role.
func coordinatorMember(file *consortium.File, m transport.Method, name string) (string, error) {
	cands := file.WithRole(m.CoordinatorRole)
	if name != "" {
		member, err := file.Member(name)
		if err != nil {
			return "", kit.UsageError{Err: err}
		}
		if member.Role != m.CoordinatorRole {
			return "", kit.Usagef("--member %s cannot coordinate %s: it has role %q, and %s sessions are coordinated by the %q role (%s)", name, m.Name, member.Role, m.Name, m.CoordinatorRole, memberNames(cands))
		}
		return name, nil
	}
	if len(cands) != 1 {
		return "", kit.Usagef("%d members have the %q role that coordinates %s; choose one with --member", len(cands), m.CoordinatorRole, m.Name)
	}
	return cands[0].Name, nil
}

// memberNames lists members for a message.
func memberNames(ms []consortium.Member) string {
	if len(ms) == 0 {
		return "no member of the consortium has it"
	}
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.Name
	}
	return "members with it: " + strings.Join(names, ", ")
}

// runSettings merges the method's settings: file or consortium section,
// then --set overrides.
func runSettings(file *consortium.File, method, path string, set []string) (json.RawMessage, error) {
	raw := file.Methods[method]
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("--settings: %w", err)
		}
		raw = b
	}
	if len(set) == 0 {
		return raw, nil
	}
	obj := map[string]json.RawMessage{}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, fmt.Errorf("settings of %s are not a JSON object: %w", method, err)
		}
	}
	for _, kv := range set {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, kit.Usagef("--set %q: want KEY=VALUE", kv)
		}
		if v == kit.AutoWord || v == "null" {
			// auto (or null) takes the setting out: the method's default,
			// or nothing where the other form of the budget is given.
			delete(obj, k)
		} else if json.Valid([]byte(v)) {
			obj[k] = json.RawMessage(v)
		} else {
			b, _ := json.Marshal(v)
			obj[k] = b
		}
	}
	return json.Marshal(obj)
}

// checkRunSettings decodes and validates the merged settings as the
// coordinator's session will (method.Spec.Settings), naming the setting
// at fault in the words of the command line.
func checkRunSettings(name string, raw json.RawMessage) error {
	spec, err := method.Lookup(name)
	if err != nil || len(bytes.TrimSpace(raw)) == 0 {
		return nil // a transport-only method, or no settings: the session says
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return kit.Usagef("settings of %s are not a JSON object: %v", name, err)
	}
	if spec.Split == method.Rows {
		delete(obj, "schema") // the owners' shared schema file, not a setting
	}
	rest, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	if _, err := spec.Settings(rest); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return kit.Usagef("setting %s of %s must be %s, got %s", typeErr.Field, name, jsonKind(typeErr.Type), obj[typeErr.Field])
		}
		if msg, ok := strings.CutPrefix(errorText(err), "json: unknown field "); ok {
			return kit.Usagef("%s has no setting %s (see dppub publish %s --help: its flags are its settings)", name, msg, name)
		}
		return kit.UsageError{Err: err}
	}
	return nil
}

// jsonKind names what a setting of Go type t takes.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "a list"
	}
	return "an object"
}

// errorText is the innermost error's text.
func errorText(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

func parsePeers(peers []string) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range peers {
		name, addr, ok := strings.Cut(p, "=")
		if !ok || name == "" || !strings.Contains(addr, ":") {
			return nil, kit.Usagef("--peer %q: want NAME=HOST:PORT", p)
		}
		out[name] = addr
	}
	return out, nil
}

// writeOutcome writes the published artifact and its extra files, then
// the report, which records their digests, as publish does: atomically,
// and nothing if any of them cannot be written.
func writeOutcome(cmd *cobra.Command, params map[string]string, out, report string, o *transport.Outcome) error {
	main, err := mainOutput(out, o)
	if err != nil {
		return err
	}
	outs := []kit.OutputFile{{Path: out, Data: main}}
	for _, f := range o.Files {
		outs = append(outs, kit.OutputFile{Path: out + f.Suffix, Data: f.Data})
	}
	return kit.PublishFiles(cmd, params, o.Report, report, outs...)
}

// mainOutput is the bytes of the main published file out: the synthetic
// table as CSV (Parquet for a .parquet path), the method's own bytes, or
// its artifact as JSON.
func mainOutput(out string, o *transport.Outcome) ([]byte, error) {
	if o.Table != nil {
		return kit.TableBytes(out, o.Table)
	}
	if o.Data != nil {
		return o.Data, nil
	}
	b, err := json.MarshalIndent(o.Artifact, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

func printOutcome(w io.Writer, f *runFlags, res *transport.Result, streamed *streamedRows) {
	fmt.Fprint(w, res.Report.Summary())
	if streamed != nil {
		fmt.Fprintf(w, "\nWrote %d rows × %d columns to %s and the report to %s\n", streamed.rows, streamed.cols, kit.DisplayPath(f.out, kit.StdoutName), f.report)
	} else if res.Table != nil {
		fmt.Fprintf(w, "\nWrote %d rows × %d columns to %s and the report to %s\n", res.Table.Len(), len(res.Table.Schema.Attributes), f.out, f.report)
	} else {
		fmt.Fprintf(w, "\nWrote %s and the report to %s\n", f.out, f.report)
	}
	for _, file := range res.Files {
		fmt.Fprintf(w, "Wrote %s\n", f.out+file.Suffix)
	}
	if res.Summary != "" {
		fmt.Fprintf(w, "  %s\n", res.Summary)
	}
	fmt.Fprintf(w, "  session %s: %d messages, %.1f MB sent by the coordinator, %v\n", res.Session, res.Messages, float64(res.BytesSent)/1e6, res.Elapsed.Round(1e6))
	names := make([]string, 0, len(res.Receipts))
	for n := range res.Receipts {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if r := res.Receipts[n]; r.Remaining != nil {
			fmt.Fprintf(w, "  %s: lifetime budget %v, remaining %v\n", n, *r.Lifetime, *r.Remaining)
		}
	}
}
