package transport_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dppub/dppub/budgetstore"
	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/internal/testenv"
	"github.com/dppub/dppub/ledger"
	"github.com/dppub/dppub/transport"
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
	for _, tc := range []oneProcessCase{
		// Distinct seeds: a seeded session ID repeats, and owners run a
		// session ID only once.
		{"local-laplace", "7", ".csv", nil, nil},
		{"secure-aggregate-gaussian", "8", ".csv",
			[]string{"--set", "noise=secure-aggregate", "--set", "mechanism=gaussian", "--set", "delta=1e-6"},
			[]string{"--noise", "secure-aggregate", "--mechanism", "gaussian", "--delta", "1e-6"}},
		{"parquet", "10", ".parquet", nil, nil},
		{"stdout", "11", "-", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) { c.matchPPCA(t, tc, inputs) })
	}
	t.Run("mul-lda-dp", func(t *testing.T) { c.matchLDA(t, inputs) })
}

// oneProcessCase is a ppca-dp-mh session of TestNetworkMatchesOneProcess:
// `dppub run` with set against `dppub publish` with the same flags.
type oneProcessCase struct {
	name, seed string
	out        string // the output's extension, or "-" for standard output
	set        []string
	flags      []string
}

// matchPPCA runs tc over the network and in one process, and checks the
// outputs, reports and the publishing ledger's digests agree.
func (c *cluster) matchPPCA(t *testing.T, tc oneProcessCase, inputs []string) {
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
}

// matchLDA runs a Mul-LDA-DP session through the noise dealer and in one
// process, and checks the outputs, reports and the publishing ledger agree.
func (c *cluster) matchLDA(t *testing.T, inputs []string) {
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
}

func grab(s, pattern string) string {
	if m := regexp.MustCompile(pattern).FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return "?"
}
