package transport_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/randx"
)

// ownerTables reads the demo's party files (the same rows, different
// columns).
func (c *cluster) ownerTables() []*data.Table {
	c.t.Helper()
	var out []*data.Table
	for _, m := range c.file.WithRole("owner") {
		out = append(out, c.ownerTable(m))
	}
	return out
}

// ownerTable reads an owner's dataset file.
func (c *cluster) ownerTable(m consortium.Member) *data.Table {
	c.t.Helper()
	sc, err := data.LoadSchema(c.file.Path(m.Dataset.Schema))
	if err != nil {
		c.t.Fatal(err)
	}
	t, _, err := data.ReadFile(c.file.Path(m.Dataset.Path), sc, data.ReadOptions{Header: true})
	if err != nil {
		c.t.Fatal(err)
	}
	return t
}

// runLinked lays out three parties holding different columns of
// overlapping sets of 1000 Adult rows (linkFiles: 700 IDs in common) for
// a pdp-mvds session with settings, serves them and the third party, and
// runs a session with seed into net.
func runLinked(t *testing.T, settings, seed string) *linkedRun {
	t.Helper()
	c := newCluster(t, 3, 1000, nil, "--method", "pdp-mvds")
	orig := c.ownerTables()
	common := c.linkFiles(orig, func(_, r int) string { return fmt.Sprintf("p%06d", r) })
	if len(common) != 700 {
		t.Fatalf("the parties share %d IDs, want 700", len(common))
	}
	c.setMethod("pdp-mvds", settings)
	c.serveAll("--insecure-accept-seed")
	c.serve("third-party", "--insecure-accept-seed")
	net := filepath.Join(c.dir, "net.csv")
	r := wait(c.runMethodCmd("pdp-mvds", net, "--seed", seed))
	if r.err != nil {
		t.Fatalf("run: %v\n%s%s\n%s\n--- third-party:\n%s", r.err, r.stdout, r.stderr, c.logs(), c.log("third-party"))
	}
	return &linkedRun{c: c, orig: orig, common: common, net: net, r: r}
}

// linkedRun is a session of runLinked: its cluster, the demo's tables
// before linkFiles, the IDs all parties hold, the output and the run.
type linkedRun struct {
	c      *cluster
	orig   []*data.Table
	common []string
	net    string
	r      runResult
}

// linkFiles rewrites the party files for a linked session from the
// demo's tables: row r of party k gets ID ids(k, r), each party lacks a
// different 10 % of the rows and holds its rows in its own order, and
// every party's schema names the ID column. It returns the IDs every
// party holds, in ID order.
func (c *cluster) linkFiles(orig []*data.Table, ids func(party, row int) string) []string {
	c.t.Helper()
	src := randx.NewSeeded(17)
	n := orig[0].Len()
	perm := src.Perm(n)
	var parts []*data.Table
	for k, m := range c.file.WithRole("owner") {
		missing := map[int]bool{}
		for _, r := range perm[k*n/10 : (k+1)*n/10] {
			missing[r] = true
		}
		var keep []int
		for r := range n {
			if !missing[r] {
				keep = append(keep, r)
			}
		}
		src.Shuffle(len(keep), func(a, b int) { keep[a], keep[b] = keep[b], keep[a] })
		part := orig[k].Subset(keep)
		part.Schema.ID = "person"
		part.IDs = make([]string, len(keep))
		for j, r := range keep {
			part.IDs[j] = ids(k, r)
		}
		parts = append(parts, part)
		c.writeTable(c.file.Path(m.Dataset.Path), part)
		c.writeSchema(c.file.Path(m.Dataset.Schema), part.Schema)
	}
	return data.CommonIDs(parts)
}

func (c *cluster) writeTable(path string, t *data.Table) {
	c.t.Helper()
	fh, err := os.Create(path)
	if err != nil {
		c.t.Fatal(err)
	}
	defer fh.Close()
	if err := data.WriteCSV(fh, t); err != nil {
		c.t.Fatal(err)
	}
}

// publishLinked runs `dppub publish pdp-mvds --link` in one process on
// the owners' files (their ID column "person") with the settings of the
// networked linked sessions (ρ = 0.5, 5 GUM rounds, δ = 1e-7) and the
// given seed and extra flags; it returns the output path and what the
// command printed.
func (c *cluster) publishLinked(t *testing.T, seed string, extra ...string) (string, string) {
	t.Helper()
	sc, err := data.LoadSchema(filepath.Join(c.dir, "adult.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	sc.ID = "person"
	linkedSchema := filepath.Join(c.dir, "adult.linked.schema.json")
	c.writeSchema(linkedSchema, sc)
	local := filepath.Join(c.dir, "local-"+seed+".csv")
	args := append([]string{"publish", "pdp-mvds", "--schema", linkedSchema, "--link", "--delta", "1e-7",
		"--budgets", "0.5", "--rounds", "5", "--seed", seed, "--out", local}, extra...)
	return local, c.dppub(append(args, c.ownerInputs()...)...)
}

func (c *cluster) writeSchema(path string, s data.Schema) {
	c.t.Helper()
	c.writeJSON(path, s)
}

// setMethod replaces a method's settings in the consortium file.
func (c *cluster) setMethod(method, settings string) {
	c.t.Helper()
	c.editConfig(func(f *consortium.File) {
		if f.Methods == nil {
			f.Methods = map[string]json.RawMessage{}
		}
		f.Methods[method] = json.RawMessage(settings)
	})
}

// handAligned writes every party's rows of the common IDs, in that
// order, without the ID column: the files a run without linkage takes.
func (c *cluster) handAligned(common []string) []string {
	c.t.Helper()
	var inputs []string
	for k, m := range c.file.WithRole("owner") {
		t := c.ownerTable(m)
		pos := map[string]int{}
		for i, id := range t.IDs {
			pos[id] = i
		}
		rows := make([]int, len(common))
		for j, id := range common {
			rows[j] = pos[id]
		}
		a := t.Subset(rows)
		a.Schema.ID, a.IDs = "", nil
		path := filepath.Join(c.dir, fmt.Sprintf("aligned-%d.csv", k+1))
		c.writeTable(path, a)
		inputs = append(inputs, "--input", path)
	}
	return inputs
}

// A linked PDP-MVDS session between real processes: three parties hold
// different columns of overlapping sets of 1000 Adult rows (each lacks a
// different 10 %, its rows in its own order, under an ID column). The
// session links them by PSI (the parties' blinded sets travel between the
// serving parties) and publishes, byte for byte for the same seed, the
// table of `dppub publish pdp-mvds --link` in one process and of the run
// on the intersection aligned by hand; the reports agree and state the
// revealed counts. A party whose IDs repeat is then refused before any
// budget is spent (not with -short).
func TestPDPMVDSLinkedNetwork(t *testing.T) {
	l := runLinked(t, `{"rho": 0.5, "link": true, "delta": 1e-7, "rounds": 5}`, "41")
	c, orig, common, net, r := l.c, l.orig, l.common, l.net, l.r
	// The same parties' files in one process, linked there.
	schema := filepath.Join(c.dir, "adult.schema.json")
	local, out := c.publishLinked(t, "41")
	sameFile(t, net, local)
	sameReport(t, net, local)
	if !strings.Contains(out, "700 records every owner holds") {
		t.Errorf("the one-process run does not state the linkage:\n%s", out)
	}
	// The intersection aligned by hand, without linkage.
	hand := filepath.Join(c.dir, "hand.csv")
	c.dppub(append([]string{"publish", "pdp-mvds", "--schema", schema, "--delta", "1e-7",
		"--budgets", "0.5", "--rounds", "5", "--seed", "41", "--out", hand}, c.handAligned(common)...)...)
	sameFile(t, net, hand)
	rep := readReport(t, net)
	js, _ := json.Marshal(rep)
	for _, want := range []string{"revealed exactly, NOT under DP", "intersection (n = 700)", "Venn diagram", "set sizes revealed exactly"} {
		if !strings.Contains(string(js), want) {
			t.Errorf("the report does not say %q", want)
		}
	}
	if !strings.Contains(r.stdout, "Wrote 700 rows") {
		t.Errorf("unexpected output:\n%s", r.stdout)
	}
	t.Logf("3-party linked Adult (3 × 900 IDs, 700 common), pdp-mvds commodity over loopback mTLS: %v", r.took.Round(1e6))

	// party-2's IDs now repeat: it refuses as it joins, nobody spends.
	if testing.Short() {
		return // restarts the parties twice (about 4 s); the join's refusal is tested in transport/methods
	}
	spent := func() map[string]string {
		out := map[string]string{}
		for _, m := range c.file.WithRole("owner") {
			c.stop(m.Name) // the ledger is the serving member's while it runs
			out[m.Name] = fmt.Sprint(c.ledger(m.Name).Spent)
		}
		return out
	}
	before := spent()
	c.serveAll("--insecure-accept-seed")
	c.linkFiles(orig, func(k, r int) string {
		if k == 1 && r%2 == 1 {
			r--
		}
		return fmt.Sprintf("p%06d", r)
	})
	again := wait(c.runMethodCmd("pdp-mvds", filepath.Join(c.dir, "dup.csv"), "--seed", "42"))
	if again.err == nil || !strings.Contains(again.stdout+again.stderr, "IDs must be distinct") {
		t.Fatalf("a party with repeated IDs was not refused: %v\n%s%s", again.err, again.stdout, again.stderr)
	}
	after := spent()
	for name, was := range before {
		if after[name] != was {
			t.Errorf("%s spent %s after the refused session, %s before", name, after[name], was)
		}
	}
	absent(t, filepath.Join(c.dir, "dup.csv"))
}
