package transport_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/dppub/dppub/budgetstore"
	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/internal/testenv"
	"github.com/dppub/dppub/ledger"
	"github.com/dppub/dppub/transport"
	"github.com/dppub/dppub/transport/gen/transportv1"
	"github.com/dppub/dppub/transport/gen/transportv1/transportv1connect"
)

// dppubBin is the dppub binary, built once for the tests that run real
// processes on loopback.
var dppubBin string

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "dppub-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	root, err := testenv.ModuleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	dppubBin = filepath.Join(dir, "dppub")
	build := exec.Command("go", "build", "-o", dppubBin, "./cmd/dppub")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building dppub: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// cluster is a consortium of real dppub processes on loopback: a curator
// (started per session by `dppub run`) and owners (`dppub serve`), every
// port chosen by the kernel.
type cluster struct {
	t      *testing.T
	dir    string
	config string
	file   *consortium.File
	procs  map[string]*exec.Cmd
	addrs  map[string]string
}

func newCluster(t *testing.T, owners, rows int, limits func(*consortium.Limits), demoFlags ...string) *cluster {
	t.Helper()
	c := &cluster{t: t, dir: t.TempDir(), procs: map[string]*exec.Cmd{}, addrs: map[string]string{}}
	args := append([]string{"consortium", "demo", "--dir", c.dir, "--owners", fmt.Sprint(owners), "--split-seed", "1"}, demoFlags...)
	if rows > 0 {
		args = append(args, "--rows", fmt.Sprint(rows))
	}
	c.dppub(args...)
	c.config = filepath.Join(c.dir, "consortium.json")
	f := c.readConfig()
	f.Limits.PingInterval.Duration = 100 * time.Millisecond
	f.Limits.UnreachableAfter.Duration = 1500 * time.Millisecond
	f.Limits.StepTimeout.Duration = 10 * time.Second
	if limits != nil {
		limits(&f.Limits)
	}
	for i := range f.Members {
		f.Members[i].Address = "127.0.0.1:0"
	}
	c.writeJSON(c.config, f)
	c.dppub("consortium", "init", "--config", c.config)
	c.reload()
	return c
}

// servingCluster is newCluster laid out for method with every owner
// serving and accepting the coordinator's seed: what a test comparing a
// seeded session with the one-process run needs.
func servingCluster(t *testing.T, method string, owners, rows int) *cluster {
	t.Helper()
	c := newCluster(t, owners, rows, nil, "--method", method)
	c.serveAll("--insecure-accept-seed")
	return c
}

// setBudget gives every owner the lifetime budget b; before any member
// serves (a ledger keeps the budget its dataset was first defined with).
func (c *cluster) setBudget(b consortium.Budget) {
	c.t.Helper()
	c.editMembers(func(m *consortium.Member) {
		if m.Budget != nil {
			m.Budget = &b
		}
	})
}

// dppub runs a short command that must succeed.
func (c *cluster) dppub(args ...string) string {
	c.t.Helper()
	out, err := exec.Command(dppubBin, args...).CombinedOutput()
	if err != nil {
		c.t.Fatalf("dppub %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// serve starts a member (an owner, or a dealer) and waits for its ready
// file.
func (c *cluster) serve(name string, extra ...string) {
	c.t.Helper()
	m, err := c.file.Member(name)
	if err != nil {
		c.t.Fatal(err)
	}
	ready := filepath.Join(c.dir, name+".addr")
	os.Remove(ready)
	logf, err := os.OpenFile(filepath.Join(c.dir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		c.t.Fatal(err)
	}
	args := append(append([]string{"serve", m.Role, "--member", name, "--ready-file", ready},
		defaults(extra, "--config", c.config, "--listen", "127.0.0.1:0")...), extra...)
	cmd := exec.Command(dppubBin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	c.procs[name] = cmd
	c.t.Cleanup(func() { c.stop(name); logf.Close() })
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(ready); err == nil && len(b) > 0 {
			c.addrs[name] = strings.TrimSpace(string(b))
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("%s did not become ready:\n%s", name, c.log(name))
		}
	}
}

// defaults returns the flag-value pairs of flagValues that extra does not
// give: dppub refuses a flag given twice.
func defaults(extra []string, flagValues ...string) []string {
	var out []string
	for i := 0; i+1 < len(flagValues); i += 2 {
		if !slices.Contains(extra, flagValues[i]) {
			out = append(out, flagValues[i], flagValues[i+1])
		}
	}
	return out
}

func (c *cluster) serveAll(extra ...string) {
	for _, m := range c.file.WithRole("owner") {
		c.serve(m.Name, extra...)
	}
}

func (c *cluster) logs() string {
	var b strings.Builder
	for _, m := range c.file.WithRole("owner") {
		fmt.Fprintf(&b, "--- %s:\n%s", m.Name, c.log(m.Name))
	}
	return b.String()
}

// matchCSV is matchOneProcess into net.csv and local.csv in the
// cluster's directory.
func (c *cluster) matchCSV(t *testing.T, method string, run, publish []string, also ...string) runResult {
	t.Helper()
	return c.matchOneProcess(t, method, filepath.Join(c.dir, "net.csv"), filepath.Join(c.dir, "local.csv"), run, publish, also...)
}

// matchRows starts a cluster of owners on rows of Adult laid out for
// method, checks with matchCSV that a seeded session publishes what the
// one-process run does, and that it wrote every row, and logs its time.
func matchRows(t *testing.T, method string, owners, rows int, run, publish []string) {
	t.Helper()
	c := servingCluster(t, method, owners, rows)
	r := c.matchCSV(t, method, run, publish)
	if !strings.Contains(r.stdout, fmt.Sprintf("Wrote %d rows", rows)) {
		t.Fatalf("unexpected output:\n%s", r.stdout)
	}
	logSession(t, fmt.Sprintf("%d-owner Adult (%d rows), %s", owners, rows, method), r)
}

// logSession logs what ran over loopback mTLS, its time and the session's
// own summary line.
func logSession(t *testing.T, what string, r runResult) {
	t.Helper()
	t.Logf("%s over loopback mTLS: %v (%s)", what, r.took.Round(1e6), grab(r.stdout, `session \S+: (.*)`))
}

// matchOneProcess runs method between the running members into net with
// the run's arguments, publishes it in one process on the owners' files
// into local with publish's flags (the schema, the output and the inputs
// added), and checks that the outputs are the same bytes and the privacy
// reports the same but for the run record. A failed run shows the logs
// of the owners and of the members named in also. It returns the run.
func (c *cluster) matchOneProcess(t *testing.T, method, net, local string, run, publish []string, also ...string) runResult {
	t.Helper()
	r := wait(c.runMethodCmd(method, net, run...))
	if r.err != nil {
		logs := c.logs()
		for _, name := range also {
			logs += fmt.Sprintf("\n--- %s:\n%s", name, c.log(name))
		}
		t.Fatalf("run: %v\n%s%s\n%s", r.err, r.stdout, r.stderr, logs)
	}
	args := append([]string{"publish", method, "--schema", filepath.Join(c.dir, "adult.schema.json")}, publish...)
	c.dppub(append(append(args, "--out", local), c.ownerInputs()...)...)
	sameFile(t, net, local)
	sameReport(t, net, local)
	return r
}

func (c *cluster) log(name string) string {
	b, _ := os.ReadFile(filepath.Join(c.dir, name+".log"))
	return string(b)
}

// stop ends an owner with SIGTERM (a clean stop), if it is running.
func (c *cluster) stop(name string) {
	cmd := c.procs[name]
	if cmd == nil {
		return
	}
	delete(c.procs, name)
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

// kill ends an owner with SIGKILL: a crash, no clean-up.
func (c *cluster) kill(name string) {
	cmd := c.procs[name]
	delete(c.procs, name)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
}

type runResult struct {
	stdout, stderr string
	err            error
	took           time.Duration
}

type sessionEntry struct {
	kind string
	rec  transport.SessionRecord
}

// sessions verifies the publishing ledger in dir with `dppub ledger
// verify` and returns its session records.
func (c *cluster) sessions(dir string) []sessionEntry {
	c.t.Helper()
	if out := c.dppub("ledger", "verify", dir); !strings.Contains(out, "ledger OK") {
		c.t.Fatalf("ledger verify: %s", out)
	}
	l, err := ledger.Open(dir, ledger.Options{ReadOnly: true, Origin: "dppub-publishing-ledger"})
	if err != nil {
		c.t.Fatal(err)
	}
	defer l.Close()
	var out []sessionEntry
	for i := range l.Len() {
		e, err := l.Entry(i)
		if err != nil {
			c.t.Fatal(err)
		}
		var r transport.SessionRecord
		if err := json.Unmarshal(e.Payload, &r); err != nil {
			c.t.Fatal(err)
		}
		out = append(out, sessionEntry{kind: e.Kind, rec: r})
	}
	return out
}

// ownerInputs are the --input flags of the owners' files, in file order,
// for the one-process `dppub publish` that a networked run must match.
func (c *cluster) ownerInputs() []string {
	var inputs []string
	for _, m := range c.file.WithRole("owner") {
		inputs = append(inputs, "--input", c.file.Path(m.Dataset.Path))
	}
	return inputs
}

// runCmd builds `dppub run ppca-dp-mh` against the running members.
func (c *cluster) runCmd(out string, extra ...string) *exec.Cmd {
	return c.runMethodCmd("ppca-dp-mh", out, extra...)
}

func (c *cluster) runMethodCmd(method, out string, extra ...string) *exec.Cmd {
	args := append([]string{"run", method, "--out", out}, defaults(extra, "--config", c.config, "--listen", "127.0.0.1:0")...)
	for name, addr := range c.addrs {
		args = append(args, "--peer", name+"="+addr)
	}
	return exec.Command(dppubBin, append(args, extra...)...)
}

func (c *cluster) run(out string, extra ...string) runResult {
	return wait(c.runCmd(out, extra...))
}

func wait(cmd *exec.Cmd) runResult {
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	start := time.Now()
	err := cmd.Run()
	return runResult{stdout: so.String(), stderr: se.String(), err: err, took: time.Since(start)}
}

// store opens a stopped member's budget ledger; the caller closes it.
func (c *cluster) store(name string) (*budgetstore.Store, consortium.Member) {
	c.t.Helper()
	m, err := c.file.Member(name)
	if err != nil {
		c.t.Fatal(err)
	}
	st, err := budgetstore.Open(budgetstore.Options{Path: c.file.LedgerPath(m)})
	if err != nil {
		c.t.Fatal(err)
	}
	return st, m
}

func (c *cluster) ledger(name string) budgetstore.Balance {
	c.t.Helper()
	st, m := c.store(name)
	defer st.Close()
	if err := st.Verify(); err != nil {
		c.t.Fatal(err)
	}
	b, err := st.Balance(m.DatasetName())
	if err != nil {
		c.t.Fatal(err)
	}
	return b
}

func sameFile(t *testing.T, a, b string) {
	t.Helper()
	x, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(x, y) {
		t.Fatalf("%s (%d bytes) differs from %s (%d bytes)", a, len(x), b, len(y))
	}
}

// sameReport checks that the privacy reports beside two outputs agree but
// for their run records (publication time, parameters, digests keyed by
// file name), and that both record the same digest of their output.
func sameReport(t *testing.T, a, b string) {
	t.Helper()
	ra, rb := readReport(t, a), readReport(t, b)
	da, _ := ra["output_sha256"].(map[string]any)
	db, _ := rb["output_sha256"].(map[string]any)
	ka, kb := da[filepath.Base(a)], db[filepath.Base(b)]
	if ka == nil && kb == nil {
		ka, kb = da["standard output"], db["standard output"] // both written to standard output
	}
	if ka == nil || ka != kb {
		t.Fatalf("reports record the outputs' digests %v and %v", ka, kb)
	}
	for _, r := range []map[string]any{ra, rb} {
		delete(r, "created")
		delete(r, "parameters")
		delete(r, "output_sha256")
	}
	x, _ := json.Marshal(ra)
	y, _ := json.Marshal(rb)
	if !bytes.Equal(x, y) {
		t.Fatalf("%s's report differs from %s's beyond the run record:\n%s\n%s", a, b, x, y)
	}
}

func readReport(t *testing.T, out string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(out + ".privacy.json")
	if err != nil {
		t.Fatal(err)
	}
	var r map[string]any
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func absent(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s was written by a failed session", p)
		}
	}
}

// A 3-owner Adult session over mutual TLS between real processes gives,
// for the same seed, byte for byte the outputs of `dppub publish` in one
// process, and its privacy report but for the run record (publication
// time, parameters, digests keyed by file name): PPCA-DP-MH with local Laplace noise (the
// paper's setting) and with secure-aggregate Gaussian noise, its rows
// streamed by the curator to a CSV file, a Parquet file and standard
// output (the owners scan their files for their statistics, the
// one-process publish reads the tables), and Mul-LDA-DP with the paper's
// correlated noise through a noise dealer.
func TestNetworkMatchesOneProcess(t *testing.T) {
	c := newCluster(t, 3, 0, nil, "--lda")
	c.setBudget(consortium.Budget{Epsilon: 6, Delta: 1e-5}) // five sessions at ε = 1
	c.serveAll("--insecure-accept-seed")
	c.serve("dealer", "--insecure-accept-seed")
	inputs := c.ownerInputs()
	for _, tc := range []struct {
		name, seed string
		out        string // the output's extension, or "-" for standard output
		set        []string
		flags      []string
	}{
		// Distinct seeds: a seeded session ID repeats, and owners run a
		// session ID only once.
		{"local-laplace", "7", ".csv", nil, nil},
		{"secure-aggregate-gaussian", "8", ".csv",
			[]string{"--set", "noise=secure-aggregate", "--set", "mechanism=gaussian", "--set", "delta=1e-6"},
			[]string{"--noise", "secure-aggregate", "--mechanism", "gaussian", "--delta", "1e-6"}},
		{"parquet", "10", ".parquet", nil, nil},
		{"stdout", "11", "-", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// With --out - the rows are standard output, kept in a file
			// here; the summary goes to standard error.
			net, local := filepath.Join(c.dir, tc.name+"-net"+tc.out), filepath.Join(c.dir, tc.name+"-local"+tc.out)
			netOut, localOut, key := net, local, filepath.Base(net)
			if tc.out == "-" {
				net, local = filepath.Join(c.dir, tc.name+"-net.csv"), filepath.Join(c.dir, tc.name+"-local.csv")
				netOut, localOut, key = "-", "-", "standard output"
			}
			pubLedger := filepath.Join(c.dir, tc.name+"-ledger")
			r := wait(c.runCmd(netOut, append([]string{"--seed", tc.seed, "--ledger", pubLedger, "--report", net + ".privacy.json"}, tc.set...)...))
			if r.err != nil {
				t.Fatalf("run: %v\n%s%s\n%s", r.err, r.stdout, r.stderr, c.logs())
			}
			summary := r.stdout
			if tc.out == "-" {
				if err := os.WriteFile(net, []byte(r.stdout), 0o644); err != nil {
					t.Fatal(err)
				}
				summary = r.stderr
			}
			args := append([]string{"publish", "ppca-dp-mh", "--schema", filepath.Join(c.dir, "adult.schema.json"),
				"--seed", tc.seed, "--out", localOut, "--report", local + ".privacy.json"}, inputs...)
			start := time.Now()
			cmd := exec.Command(dppubBin, append(args, tc.flags...)...)
			var pubOut, pubErr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &pubOut, &pubErr
			if err := cmd.Run(); err != nil {
				t.Fatalf("publish: %v\n%s%s", err, pubOut.String(), pubErr.String())
			}
			pub := pubOut.String() + pubErr.String()
			if tc.out == "-" {
				if err := os.WriteFile(local, pubOut.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			t.Logf("3-owner Adult, %s: `dppub run` over loopback mTLS %v (session: %s); `dppub publish` in one process %v (protocol: %s)",
				tc.name, r.took.Round(time.Millisecond), grab(summary, `session \S+: (.*)`), time.Since(start).Round(time.Millisecond), grab(pub, `protocol: (.*)`))
			sameFile(t, net, local)
			sameReport(t, net, local)
			if !strings.Contains(summary, "Wrote 45222 rows × 15 columns") {
				t.Fatalf("unexpected output:\n%s", summary)
			}
			// The curator streamed the rows to the output: the digests
			// the ledger records, taken on the way, are the output's.
			recs := c.sessions(pubLedger)
			if len(recs) != 1 || recs[0].kind != transport.KindSessionPublished {
				t.Fatalf("publishing ledger: %+v", recs)
			}
			for f, k := range map[string]string{net: key, net + ".privacy.json": filepath.Base(net) + ".privacy.json"} {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				if got := recs[0].rec.Published[k]; got != transport.FileDigest(b) {
					t.Fatalf("recorded digest of %s (%s): %q, file has %s", f, k, got, transport.FileDigest(b))
				}
			}
		})
	}
	t.Run("mul-lda-dp", func(t *testing.T) {
		net := filepath.Join(c.dir, "lda-net.csv")
		pubLedger := filepath.Join(c.dir, "publishing-ledger")
		r := wait(c.runMethodCmd("mul-lda-dp", net, "--seed", "9", "--ledger", pubLedger))
		if r.err != nil {
			t.Fatalf("run: %v\n%s%s\n%s", r.err, r.stdout, r.stderr, c.logs())
		}
		local := filepath.Join(c.dir, "lda-local.csv")
		c.dppub(append([]string{"publish", "mul-lda-dp", "--schema", filepath.Join(c.dir, "adult.schema.json"),
			"--label", "income", "--epsilon", "1", "--delta", "1e-6", "--seed", "9", "--out", local}, inputs...)...)
		for _, suffix := range []string{"", ".model.json"} {
			sameFile(t, net+suffix, local+suffix)
		}
		sameReport(t, net, local)
		// The publisher recorded the session, with the digest of every
		// file it wrote and the owners' receipted spends.
		recs := c.sessions(pubLedger)
		if len(recs) != 1 || recs[0].kind != transport.KindSessionPublished || len(recs[0].rec.Spent) != 3 {
			t.Fatalf("publishing ledger: %+v", recs)
		}
		for _, suffix := range []string{"", ".privacy.json", ".model.json"} {
			b, err := os.ReadFile(net + suffix)
			if err != nil {
				t.Fatal(err)
			}
			if got := recs[0].rec.Published[filepath.Base(net+suffix)]; got != transport.FileDigest(b) {
				t.Fatalf("recorded digest of %s: %q, file has %s", net+suffix, got, transport.FileDigest(b))
			}
		}
	})
}

// A ppca-dp-mh session streaming to standard output (--out -) that aborts
// after some rows went there (owner-2 killed once owner-1's rows, more
// than the writer's 1 MiB buffer, were written) says those bytes are
// incomplete and unpublished, writes no report, and is recorded as
// aborted.
func TestOwnerKilledMidStreamToStdout(t *testing.T) {
	transport.SkipFaultsInShort(t)
	c := newCluster(t, 3, 0, nil)
	report := filepath.Join(c.dir, "synth.privacy.json")
	pubLedger := filepath.Join(c.dir, "publishing-ledger")
	r := <-c.killOwner2MidModel(t, "-", "--report", report, "--ledger", pubLedger)
	if r.err == nil || !strings.Contains(r.stderr, "owner-2 is unreachable") {
		t.Fatalf("want an abort naming owner-2, got %v:\n%s", r.err, r.stderr)
	}
	want := fmt.Sprintf("the %d bytes already written to standard output are incomplete and unpublished", len(r.stdout))
	if len(r.stdout) == 0 || !strings.Contains(r.stderr, want) {
		t.Fatalf("%d bytes on standard output; want the error to say %q:\n%s", len(r.stdout), want, r.stderr)
	}
	if !strings.HasPrefix(r.stdout, "age,") {
		t.Fatalf("standard output does not start with the header: %.80q", r.stdout)
	}
	absent(t, report)
	if recs := c.sessions(pubLedger); len(recs) != 1 || recs[0].kind != transport.KindSessionAborted {
		t.Fatalf("publishing ledger after the abort: %+v", recs)
	}
}

// killOwner2MidModel serves the three owners of a ppca-dp-mh cluster,
// owner-2 holding each message a minute, runs a session to out with
// args, and kills owner-2 once it handles the model: the session has
// begun streaming owner-1's rows. It returns the run's result to come.
func (c *cluster) killOwner2MidModel(t *testing.T, out string, args ...string) <-chan runResult {
	t.Helper()
	c.serve("owner-1")
	c.serve("owner-2", "--fault-handle-delay", "1m")
	c.serve("owner-3")
	done := c.startUntilModel(t, c.runCmd(out, args...), "owner-2")
	c.kill("owner-2")
	return done
}

// startUntilModel starts the run cmd and returns once owner has begun
// handling the ppca-dp-mh model (its log says so), with the run's result
// to come on the channel.
func (c *cluster) startUntilModel(t *testing.T, cmd *exec.Cmd, owner string) <-chan runResult {
	t.Helper()
	done := make(chan runResult, 1)
	go func() { done <- wait(cmd) }()
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(c.log(owner), "type=ppca-dp-mh/model"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s never handled the model:\n%s", owner, c.log(owner))
		}
	}
	return done
}

// An owner killed mid-session (SIGKILL after it released its statistics,
// while it handles the model): the coordinator aborts, naming the owner,
// and publishes nothing. Restarted, the owner's ledger is intact and
// consistent, holds the spend of the interrupted session, and the owner
// serves the next session.
func TestOwnerKilledMidSessionThenRestarts(t *testing.T) {
	transport.SkipFaultsInShort(t)
	c := newCluster(t, 3, 3000, nil)
	out := filepath.Join(c.dir, "synth.csv")
	pubLedger := filepath.Join(c.dir, "publishing-ledger")
	done := c.killOwner2MidModel(t, out, "--ledger", pubLedger)
	killed := time.Now()
	r := <-done
	t.Logf("aborted %v after the kill: %s", time.Since(killed).Round(time.Millisecond), strings.TrimSpace(r.stderr))
	if r.err == nil || !strings.Contains(r.stderr, "owner-2 is unreachable") {
		t.Fatalf("want an abort naming owner-2, got %v:\n%s%s", r.err, r.stdout, r.stderr)
	}
	// The reason proves the abort came from the liveness check
	// (unreachable_after 1.5 s), not from the 10 s step deadline or the
	// session timeout.
	absent(t, out, out+".privacy.json")
	// owner-2 got the model once owner-1's rows had gone through the
	// curator's sink towards the output's temporary file: the abort came
	// mid-stream, and left no temporary file behind.
	if left, _ := filepath.Glob(filepath.Join(c.dir, ".synth.csv.tmp-*")); len(left) != 0 {
		t.Fatalf("the aborted session left %v", left)
	}
	aborted := c.sessions(pubLedger)
	if len(aborted) != 1 || aborted[0].kind != transport.KindSessionAborted ||
		!strings.Contains(aborted[0].rec.Failure, "owner-2 is unreachable") || !slices.Contains(aborted[0].rec.Missing, "owner-2") {
		t.Fatalf("publishing ledger after the abort: %+v", aborted)
	}

	b := c.ledger("owner-2")
	if b.Entries != 2 || b.Sessions != 1 || b.Spent.Epsilon != 1 {
		t.Fatalf("owner-2's ledger after the crash: %+v (want the 2 charges of the interrupted session)", b)
	}
	c.serve("owner-2")
	if r := c.run(out); r.err != nil {
		t.Fatalf("session after the restart: %v\n%s", r.err, r.stderr)
	}
	for _, name := range []string{"owner-1", "owner-2", "owner-3"} {
		c.stop(name)
		if b := c.ledger(name); b.Entries != 4 || b.Sessions != 2 || b.Spent.Epsilon != 2 || b.Running != 0 {
			t.Fatalf("%s's ledger: %+v", name, b)
		}
	}
	// The crash left owner-2's reservation open; the restart released it.
	rs := c.reservations("owner-2")
	if len(rs) != 2 || rs[0].State != budgetstore.ReservationAborted || !strings.Contains(rs[0].Reason, "the member stopped while the session ran") ||
		rs[1].State != budgetstore.ReservationDone {
		t.Fatalf("owner-2's reservations: %+v", rs)
	}
}

// A slow owner: the coordinator aborts at the step deadline, naming the
// owner and what it is doing.
func TestSlowOwnerMissesTheStepDeadline(t *testing.T) {
	transport.SkipFaultsInShort(t)
	c := newCluster(t, 3, 3000, func(l *consortium.Limits) { l.StepTimeout.Duration = time.Second })
	c.serve("owner-1")
	c.serve("owner-2")
	c.serve("owner-3", "--fault-handle-delay", "30s")
	out := filepath.Join(c.dir, "synth.csv")
	r := c.run(out)
	t.Log(strings.TrimSpace(r.stderr))
	// Owners get the model one at a time, so owner-3 starts handling it
	// about when the last progress was made: the coordinator may name it
	// by its own busy time ("owner-3 has been handling …") or by the
	// session's lack of progress ("still working: owner-3 (handling …)").
	if r.err == nil || !strings.Contains(r.stderr, "owner-3") || !strings.Contains(r.stderr, "handling ppca-dp-mh/model from curator") ||
		!strings.Contains(r.stderr, "step deadline") {
		t.Fatalf("want owner-3 named at the step deadline, got %v:\n%s", r.err, r.stderr)
	}
	absent(t, out, out+".privacy.json")
}

// rawClient speaks to a member with the given certificate, without
// checking the server (the tests probe the server's checks).
func rawClient(t *testing.T, creds *consortium.Credentials, addr string) transportv1connect.TransportServiceClient {
	t.Helper()
	protocols := new(http.Protocols)
	protocols.SetHTTP2(true)
	hc := &http.Client{Transport: &http.Transport{Protocols: protocols,
		TLSClientConfig: &tls.Config{Certificates: []tls.Certificate{creds.Certificate}, InsecureSkipVerify: true, NextProtos: []string{"h2"}}}}
	t.Cleanup(hc.CloseIdleConnections)
	return transportv1connect.NewTransportServiceClient(hc, "https://"+addr, connect.WithGRPC(), connect.WithSendMaxBytes(64<<20),
		connect.WithInterceptors(sendVersion(transport.ProtocolVersion)))
}

// sendVersion states a transport version as members do, so that the
// probes reach the checks behind the version check.
func sendVersion(v int) connect.UnaryInterceptorFunc {
	return func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			req.Header().Set("Dppub-Transport-Version", strconv.Itoa(v))
			return next(ctx, req)
		}
	}
}

func deliver(c transportv1connect.TransportServiceClient, e *transportv1.Envelope) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := c.Deliver(ctx, connect.NewRequest(e))
	if err != nil {
		return false, err
	}
	return resp.Msg.GetDuplicate(), nil
}

func wantCode(t *testing.T, what string, err error, code connect.Code, text string) {
	t.Helper()
	if connect.CodeOf(err) != code || !strings.Contains(fmt.Sprint(err), text) {
		t.Fatalf("%s: want %v containing %q, got %v", what, code, text, err)
	}
}

// Bad callers and bad messages are refused and the owner keeps serving; a
// replayed message is acknowledged and ignored.
func TestRefusalsReplaysAndTheOwnerKeepsServing(t *testing.T) {
	c := newCluster(t, 3, 3000, func(l *consortium.Limits) { l.MaxMessageBytes = 2 << 20 })
	c.serveAll()
	owner1 := c.addrs["owner-1"]
	load := func(f *consortium.File, name string) *consortium.Credentials {
		cr, err := consortium.LoadCredentials(f, name)
		if err != nil {
			t.Fatal(err)
		}
		return cr
	}
	curator := rawClient(t, load(c.file, "curator"), owner1)
	asOwner2 := rawClient(t, load(c.file, "owner-2"), owner1)

	t.Run("certificate from another CA", func(t *testing.T) {
		// The same consortium and member names, but another CA.
		other := *c.file
		other.Certs = "other-certs"
		if _, err := consortium.Init(&other, consortium.InitOptions{}); err != nil {
			t.Fatal(err)
		}
		cl := rawClient(t, load(&other, "curator"), owner1)
		_, err := deliver(cl, &transportv1.Envelope{Session: "s", From: "curator", To: "owner-1", Seq: 1, Type: transport.TypeOpen})
		if err == nil {
			t.Fatal("a certificate from another CA was accepted")
		}
		t.Log(err)
	})
	t.Run("sender claims another member's name", func(t *testing.T) {
		_, err := deliver(asOwner2, &transportv1.Envelope{Session: "s", From: "curator", To: "owner-1", Seq: 1, Type: transport.TypeOpen})
		wantCode(t, "forged from", err, connect.CodePermissionDenied, "claims to come from")
	})
	t.Run("owner uses the curator's role", func(t *testing.T) {
		open := transport.Open{Method: "ppca-dp-mh", Coordinator: "owner-2", CoordinatorAddress: c.addrs["owner-2"],
			Participants: []transport.Participant{{Name: "owner-1", Role: "owner"}}}
		b, _ := open.MarshalBinary()
		_, err := deliver(asOwner2, &transportv1.Envelope{Session: "s2", From: "owner-2", To: "owner-1", Seq: 1, Type: transport.TypeOpen, Payload: b})
		wantCode(t, "owner as coordinator", err, connect.CodePermissionDenied, `only the "curator" role coordinates it`)
	})
	t.Run("caller of another transport version", func(t *testing.T) {
		cl := transportv1connect.NewTransportServiceClient(&http.Client{Transport: &http.Transport{Protocols: protocols(),
			TLSClientConfig: &tls.Config{Certificates: []tls.Certificate{load(c.file, "curator").Certificate}, InsecureSkipVerify: true, NextProtos: []string{"h2"}}}},
			"https://"+owner1, connect.WithGRPC(), connect.WithInterceptors(sendVersion(transport.ProtocolVersion+1)))
		_, err := deliver(cl, &transportv1.Envelope{Session: "s", From: "curator", To: "owner-1", Seq: 1, Type: transport.TypeOpen})
		wantCode(t, "another version", err, connect.CodeFailedPrecondition,
			fmt.Sprintf(`the caller speaks dppub transport version "%d"; owner-1 speaks "%d"`, transport.ProtocolVersion+1, transport.ProtocolVersion))
	})
	t.Run("oversized message", func(t *testing.T) {
		_, err := deliver(curator, &transportv1.Envelope{Session: "s3", From: "curator", To: "owner-1", Seq: 1, Type: transport.TypeOpen, Payload: make([]byte, 3<<20)})
		wantCode(t, "oversized", err, connect.CodeResourceExhausted, "")
	})
	t.Run("malformed messages", func(t *testing.T) {
		_, err := deliver(curator, &transportv1.Envelope{Session: "s4", From: "curator", To: "owner-1", Seq: 1, Type: transport.TypeOpen, Payload: []byte("garbage")})
		wantCode(t, "garbage open", err, connect.CodeInvalidArgument, "open")
		_, err = deliver(curator, &transportv1.Envelope{Session: "s 5", From: "curator", To: "owner-1", Seq: 1, Type: "x"})
		wantCode(t, "bad session", err, connect.CodeInvalidArgument, "session")
		_, err = deliver(curator, &transportv1.Envelope{Session: "s6", From: "curator", To: "owner-1", Seq: 4, Type: "ppca-dp-mh/model"})
		wantCode(t, "unknown session", err, connect.CodeNotFound, "no session")
		// Not a protobuf message at all, straight over HTTP/2.
		req, _ := http.NewRequest("POST", "https://"+owner1+transportv1connect.TransportServiceDeliverProcedure, strings.NewReader("\x00\x00\x00\x00\x05\xff\xff\xff\xff\xff"))
		req.Header.Set("Content-Type", "application/grpc")
		protocols := new(http.Protocols)
		protocols.SetHTTP2(true)
		hc := &http.Client{Transport: &http.Transport{Protocols: protocols, TLSClientConfig: &tls.Config{
			Certificates: []tls.Certificate{load(c.file, "curator").Certificate}, InsecureSkipVerify: true, NextProtos: []string{"h2"}}}}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body) // trailers arrive after the body
		resp.Body.Close()
		if st := resp.Header.Get("Grpc-Status") + resp.Trailer.Get("Grpc-Status"); st == "" || st == "0" {
			t.Fatalf("garbage protobuf accepted: status %q", st)
		}
	})

	// The owners still serve a real session.
	out := filepath.Join(c.dir, "synth.csv")
	r := c.run(out)
	if r.err != nil {
		t.Fatalf("session after the refusals: %v\n%s", r.err, r.stderr)
	}
	session := regexp.MustCompile(`session (ppca-dp-mh-[0-9a-f]+)`).FindStringSubmatch(r.stdout)
	if session == nil {
		t.Fatalf("no session ID in:\n%s", r.stdout)
	}
	t.Run("replayed messages", func(t *testing.T) {
		// The model (seq 3) of the finished session is acknowledged and
		// ignored; its Open never runs the session again.
		dup, err := deliver(curator, &transportv1.Envelope{Session: session[1], From: "curator", To: "owner-1", Seq: 3, Type: "ppca-dp-mh/model", Payload: []byte("x")})
		if err != nil || !dup {
			t.Fatalf("replayed model: duplicate=%v, %v", dup, err)
		}
		_, err = deliver(curator, &transportv1.Envelope{Session: session[1], From: "curator", To: "owner-1", Seq: 1, Type: transport.TypeOpen, Payload: []byte("x")})
		wantCode(t, "replayed open", err, connect.CodeAlreadyExists, "already ran")
		_, err = deliver(curator, &transportv1.Envelope{Session: session[1], From: "curator", To: "owner-1", Seq: 9, Type: "ppca-dp-mh/model"})
		wantCode(t, "new message in a finished session", err, connect.CodeFailedPrecondition, "over")
	})
	c.stop("owner-1")
	if b := c.ledger("owner-1"); b.Entries != 2 || b.Sessions != 1 {
		t.Fatalf("owner-1's ledger after refusals and replays: %+v", b)
	}
	if log := c.log("owner-1"); !strings.Contains(log, "ignored a duplicate") || !strings.Contains(log, "TLS handshake error") {
		t.Fatalf("owner-1's log lacks the replay or the refused handshake:\n%s", log)
	}
}

func protocols() *http.Protocols {
	p := new(http.Protocols)
	p.SetHTTP2(true)
	return p
}

func grab(s, pattern string) string {
	if m := regexp.MustCompile(pattern).FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return "?"
}
