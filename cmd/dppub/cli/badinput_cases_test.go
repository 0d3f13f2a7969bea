// The bad-input suite's command lines: the paths and builders its cases
// use, and the cases, one function per group of commands or of issue 38's
// items, in the order TestBadInput runs them.

package cli

import "strings"

// badInputArgs are the paths of the bad-input fixture that the cases name
// most, and builders of their command lines.
type badInputArgs struct {
	f                             badInputFixture
	out, s, in, config, newLedger string
}

func newBadInputArgs(f badInputFixture) badInputArgs {
	p := f.p
	return badInputArgs{f: f, out: p("out.csv"), s: p("s.json"), in: p("in.csv"), config: p("demo/consortium.json"), newLedger: p("new-ledger")}
}

func (a badInputArgs) ppca(extra ...string) []string {
	return append([]string{"publish", "ppca-dp-mh", "--schema", a.s, "--out", a.out}, extra...)
}

func (a badInputArgs) withInput(args []string, input string) []string {
	return append(args, "--input", input)
}

func (a badInputArgs) lda(method string, extra ...string) []string {
	return append([]string{"publish", method, "--input", a.in, "--schema", a.s, "--label", "smoker", "--out", a.out}, extra...)
}

func (a badInputArgs) bn(method string, extra ...string) []string {
	return append([]string{"publish", method, "--input", a.in, "--schema", a.s, "--out", a.out}, extra...)
}

func (a badInputArgs) synth(extra ...string) []string {
	return append([]string{"synthesize", "--input", a.in, "--schema", a.s, "--out", a.out}, extra...)
}

func (a badInputArgs) pdp(extra ...string) []string {
	return append([]string{"publish", "pdp-mvds", "--schema", a.f.p("parts/s.json"), "--out", a.out}, extra...)
}

func (a badInputArgs) svm(method string, extra ...string) []string {
	return append([]string{"publish", method, "--input", a.in, "--schema", a.s, "--label", "smoker", "--out", a.f.p("model.json")}, extra...)
}

func (a badInputArgs) compare(real, synthetic string, extra ...string) []string {
	return append([]string{"compare", real, synthetic, "--schema", a.s, "--out", a.f.p("q.html")}, extra...)
}

func (a badInputArgs) check(holdout string, extra ...string) []string {
	return append([]string{"check", "--real", a.in, "--holdout", holdout, "--synthetic", a.in, "--schema", a.s}, extra...)
}

func (a badInputArgs) link(extra ...string) []string {
	return append([]string{"link", "--input", a.in, "--schema", a.s}, extra...)
}

func (a badInputArgs) runCmd(extra ...string) []string {
	return append([]string{"run", "ppca-dp-mh", "--config", a.config, "--ledger", a.f.p("run-ledger"), "--out", a.out}, extra...)
}

// schemaCases are the refusals of dppub schema.
func (a badInputArgs) schemaCases() []badInputCase {
	p, in := a.f.p, a.in
	return []badInputCase{
		// dppub schema
		{"schema/missing file", []string{"schema", p("nope.csv"), "--out", p("a.json")}, "nope.csv", false},
		{"schema/empty CSV", []string{"schema", p("empty.csv"), "--out", p("a.json")}, `empty.csv" is empty`, false},
		{"schema/header-only CSV", []string{"schema", p("header.csv"), "--out", p("a.json")}, "holds only the header row", false},
		{"schema/headerless CSV", []string{"schema", p("headerless.csv"), "--out", p("a.json")}, "the first row looks like data", false},
		{"schema/epsilon NaN", []string{"schema", in, "--epsilon", "NaN", "--out", p("a.json")}, "--epsilon must be positive and finite, got NaN", true},
		{"schema/epsilon Inf", []string{"schema", in, "--epsilon", "Inf", "--out", p("a.json")}, "--epsilon must be positive and finite, got +Inf", true},
		{"schema/delta 1", []string{"schema", in, "--epsilon", "1", "--delta", "1", "--out", p("a.json")}, "--delta must be in [0, 1), got 1", true},
		{"schema/out is the input", []string{"schema", in, "--out", in}, "output " + in + " is also the input", true},
		{"schema/existing out", []string{"schema", in, "--out", p("old.csv")}, "old.csv already exists (give --force", true},
		{"schema/out in a missing directory", []string{"schema", in, "--out", p("nodir/a.json")}, "nodir", true},
		{"schema/unknown column to skip", []string{"schema", in, "--skip-columns", "nope", "--out", p("a.json")}, `no column "nope"`, false},
		{"schema/--out - with --json", []string{"schema", in, "--out", "-", "--json"}, "--out - writes the data to standard output, so --json cannot", true},
		{"schema/--out - with --epsilon but no --report", []string{"schema", in, "--epsilon", "1", "--out", "-"}, "--out - needs --report FILE", true},
	}
}

// ppcaCases are the refusals of dppub publish ppca-dp-mh.
func (a badInputArgs) ppcaCases() []badInputCase {
	p, s, in, out, ppca, withInput := a.f.p, a.s, a.in, a.out, a.ppca, a.withInput
	return []badInputCase{
		// dppub publish ppca-dp-mh
		{"ppca-dp-mh/missing file", withInput(ppca(), p("nope.csv")), "nope.csv: no such file", false},
		{"ppca-dp-mh/missing schema", []string{"publish", "ppca-dp-mh", "--input", in, "--schema", p("nope.json"), "--out", out}, "nope.json: no such file", false},
		{"ppca-dp-mh/a CSV as schema", []string{"publish", "ppca-dp-mh", "--input", in, "--schema", in, "--out", out}, "parse schema", false},
		{"ppca-dp-mh/wrong schema", []string{"publish", "ppca-dp-mh", "--input", in, "--schema", p("other.json"), "--out", out}, `header lacks column "income"`, false},
		{"ppca-dp-mh/unreviewed draft schema", []string{"publish", "ppca-dp-mh", "--input", in, "--schema", p("draft.json"), "--out", out}, `delete the line "draft": true`, false},
		{"ppca-dp-mh/unknown column", withInput(ppca(), p("extra.csv")), `column "pid" is not in the schema (declare it in the schema, or give --skip-columns pid`, false},
		{"ppca-dp-mh/unknown column to skip", withInput(ppca("--skip-columns", "nope"), in), `column "nope" to skip is neither in the header`, false},
		{"ppca-dp-mh/non-numeric value", withInput(ppca(), p("nonnum.csv")), `column "age": "thirty" is not a finite number`, false},
		{"ppca-dp-mh/unknown category", withInput(ppca(), p("badcat.csv")), `unknown category "maybe" in column "smoker"`, false},
		{"ppca-dp-mh/ragged row", withInput(ppca(), p("ragged.csv")), "line 3 has 2 fields, want 3", false},
		{"ppca-dp-mh/empty CSV", withInput(ppca(), p("empty.csv")), `empty.csv" is empty`, false},
		{"ppca-dp-mh/header-only CSV", withInput(ppca(), p("header.csv")), "holds only the header row", false},
		{"ppca-dp-mh/headerless CSV", withInput(ppca(), p("headerless.csv")), "the first row looks like data", false},
		{"ppca-dp-mh/epsilon 0", withInput(ppca("--epsilon", "0"), in), "epsilon must be positive and finite, got 0", true},
		{"ppca-dp-mh/epsilon negative", withInput(ppca("--epsilon", "-1"), in), "epsilon must be positive and finite, got -1", true},
		{"ppca-dp-mh/epsilon NaN", withInput(ppca("--epsilon", "NaN"), in), "epsilon must be positive and finite, got NaN", true},
		{"ppca-dp-mh/epsilon Inf", withInput(ppca("--epsilon", "Inf"), in), "epsilon must be positive and finite, got +Inf", true},
		{"ppca-dp-mh/epsilon not a number", withInput(ppca("--epsilon", "one"), in), `"one"`, true},
		{"ppca-dp-mh/delta 1", withInput(ppca("--mechanism", "gaussian", "--delta", "1"), in), "delta must be in [0, 1), got 1", true},
		{"ppca-dp-mh/delta NaN", withInput(ppca("--delta", "NaN"), in), "delta must be in [0, 1), got NaN", true},
		{"ppca-dp-mh/out is the schema", []string{"publish", "ppca-dp-mh", "--input", in, "--schema", s, "--out", s}, "output " + s + " is also the input", true},
		{"ppca-dp-mh/report is the input", withInput(ppca("--report", in), in), "output " + in + " is also the input", true},
		{"ppca-dp-mh/report is the out", withInput(ppca("--report", out), in), "output " + out + " is also the output", true},
		{"ppca-dp-mh/existing out", []string{"publish", "ppca-dp-mh", "--input", in, "--schema", s, "--out", p("old.csv")}, "old.csv already exists (give --force", true},
		{"ppca-dp-mh/out in a missing directory", []string{"publish", "ppca-dp-mh", "--input", in, "--schema", s, "--out", p("nodir/x.csv")}, "nodir", true},
		{"ppca-dp-mh/standard input twice", withInput(withInput(ppca(), "-"), "-"), "--input - (standard input) given 2 times", true},
		{"ppca-dp-mh/schema given twice", withInput(ppca("--schema", p("other.json")), in), `--schema given twice ("` + s, true},
		{"ppca-dp-mh/--out - without --report", []string{"publish", "ppca-dp-mh", "--input", in, "--schema", s, "--out", "-"}, "--out - needs --report FILE", true},
	}
}

// wholeInputCases are inputs read whole or not at all, and outputs that
// cannot be written refused first (issue 38).
func (a badInputArgs) wholeInputCases() []badInputCase {
	p, s, in, out, f, ppca, withInput, synth := a.f.p, a.s, a.in, a.out, a.f, a.ppca, a.withInput, a.synth
	return []badInputCase{
		// Inputs read whole or not at all, outputs that cannot be written
		// refused first (issue 38).
		{"schema/truncated gzip", []string{"schema", p("trunc.csv.gz"), "--out", p("a.json")}, `trunc.csv.gz" is a truncated gzip file`, false},
		{"ppca-dp-mh/truncated gzip", withInput(ppca(), p("trunc.csv.gz")), `trunc.csv.gz" is a truncated gzip file`, false},
		{"synthesize/truncated gzip", []string{"synthesize", "--input", p("trunc.csv.gz"), "--schema", s, "--out", out}, `trunc.csv.gz" is a truncated gzip file`, false},
		{"ppca-dp-mh/headerless CSV with a repeated value", withInput(ppca(), p("headerless-dup.csv")), `headerless-dup.csv": the first row looks like data; dppub needs a header row`, false},
		{"synthesize/headerless CSV with a repeated value", []string{"synthesize", "--input", p("headerless-dup.csv"), "--schema", s, "--out", out}, `headerless-dup.csv": the first row looks like data; dppub needs a header row`, false},
		{"synthesize/3.5 in an integer column", []string{"synthesize", "--input", p("frac.csv"), "--schema", p("int.json"), "--out", out}, `frac.csv" line 4: column "age" is declared integer, but "3.5" is not a whole number`, false},
		{"ppca-dp-mh/3.5 in an integer column", []string{"publish", "ppca-dp-mh", "--input", p("frac.csv"), "--schema", p("int.json"), "--out", out}, `frac.csv" line 4: column "age" is declared integer, but "3.5" is not a whole number`, false},
		{"synthesize/one data row", []string{"synthesize", "--input", p("one.csv"), "--schema", s, "--out", out}, `one.csv" holds 1 row: a release needs at least 2`, false},
		{"synthesize-rows/one data row", []string{"publish", "synthesize-rows", "--input", p("one.csv"), "--schema", s, "--epsilon", "1", "--out", out}, `one.csv" holds 1 row: a release needs at least 2`, false},
		{"lda-dp/one data row", []string{"publish", "lda-dp", "--input", p("one.csv"), "--schema", s, "--label", "smoker", "--out", out}, `one.csv" holds 1 row: a release needs at least 2`, false},
		{"synthesize/a 1 MB value is cut", []string{"synthesize", "--input", p("long.csv"), "--schema", s, "--out", out}, `unknown category "` + strings.Repeat("x", 80) + `"… (1048576 characters) in column "region"`, false},
		{"synthesize/out is a directory, with --force", []string{"synthesize", "--input", in, "--schema", s, "--out", f.dir, "--force"}, "output " + f.dir + " is a directory: give a file name", true},
		{"schema/out is a directory", []string{"schema", in, "--out", f.dir}, "output " + f.dir + " is a directory", true},
		{"ppca-dp-mh/--out - and --report -", withInput([]string{"publish", "ppca-dp-mh", "--schema", s, "--out", "-", "--report", "-"}, in), "--out - and --report - cannot both write to standard output", true},
		{"synthesize/--report - with --json", synth("--report", "-", "--json"), "--report - writes the privacy report to standard output, so --json cannot print there too", true},
	}
}

// methodCases are the refusals of the other methods' dppub publish and of
// dppub synthesize.
func (a badInputArgs) methodCases() []badInputCase {
	p, s, in, out, newLedger, withInput, lda, bn, synth, pdp, svm := a.f.p, a.s, a.in, a.out, a.newLedger, a.withInput, a.lda, a.bn, a.synth, a.pdp, a.svm
	return []badInputCase{
		// dppub publish lda-dp, mul-lda-dp (the ledger's entries must not change)
		{"lda-dp/repeated --input", withInput(lda("lda-dp"), in), "lda-dp takes one owner's --input, got 2 files", true},
		{"lda-dp/unknown label", []string{"publish", "lda-dp", "--input", in, "--schema", s, "--label", "nope", "--out", out}, `--label "nope": no such column`, true},
		{"lda-dp/numeric label", []string{"publish", "lda-dp", "--input", in, "--schema", s, "--label", "age", "--out", out}, `--label "age" is numeric`, true},
		{"lda-dp/epsilon NaN", lda("lda-dp", "--epsilon", "NaN"), "epsilon must be positive and finite, got NaN", true},
		{"lda-dp/delta 1", lda("lda-dp", "--delta", "1"), "delta must be in (0, 1), got 1", true},
		{"lda-dp/--out - without --model", []string{"publish", "lda-dp", "--input", in, "--schema", s, "--label", "smoker", "--out", "-", "--report", p("r.json")}, "--out - needs --model FILE", true},
		{"mul-lda-dp/epsilon NaN with a ledger", lda("mul-lda-dp", "--owners", "2", "--epsilon", "NaN", "--ledger", p("ledger")), "epsilon must be positive and finite, got NaN", true},
		{"mul-lda-dp/unknown noise with a new ledger", lda("mul-lda-dp", "--owners", "2", "--noise", "shared", "--ledger", newLedger), `noise must be correlated or independent, got "shared"`, true},
		{"mul-lda-dp/unknown label with a new ledger", []string{"publish", "mul-lda-dp", "--input", in, "--schema", s, "--label", "nope", "--owners", "2", "--ledger", newLedger, "--out", out}, `--label "nope": no such column`, true},
		{"mul-lda-dp/existing out with a ledger", []string{"publish", "mul-lda-dp", "--input", in, "--schema", s, "--label", "smoker", "--ledger", p("ledger"), "--out", p("old.csv")}, "old.csv already exists", true},

		// dppub publish privbayes, dp-subn3
		{"privbayes/epsilon NaN", bn("privbayes", "--epsilon", "NaN"), "--epsilon must be positive and finite, got NaN", true},
		{"privbayes/several owners", bn("privbayes", "--owners", "2"), "--owners must be 1, got 2", true},
		{"privbayes/beta 1", bn("privbayes", "--beta", "1"), "--beta must be in (0, 1), got 1", true},
		{"privbayes/unknown column", []string{"publish", "privbayes", "--input", p("extra.csv"), "--schema", s, "--out", out}, `column "pid" is not in the schema`, false},
		{"dp-subn3/epsilon Inf", bn("dp-subn3", "--epsilon", "Inf"), "--epsilon must be positive and finite, got +Inf", true},
		{"dp-subn3/negative owners", bn("dp-subn3", "--owners", "-1"), "--owners must be positive, got -1", true},
		{"dp-subn3/headerless CSV", []string{"publish", "dp-subn3", "--input", p("headerless.csv"), "--schema", s, "--out", out}, "the first row looks like data", false},

		// dppub synthesize
		{"synthesize/repeated --input", synth("--input", p("extra.csv")), `--input given twice ("` + in + `", then "` + p("extra.csv") + `")`, true},
		{"synthesize/rho NaN", synth("--rho", "NaN"), "--rho must be positive and finite, got NaN", true},
		{"synthesize/rho 0", synth("--rho", "0"), "--rho must be positive and finite, got 0", true},
		{"synthesize/epsilon Inf", synth("--epsilon", "Inf"), "--epsilon must be positive and finite, got +Inf", true},
		{"synthesize/delta 1", synth("--epsilon", "1", "--delta", "1"), "--delta must be in (0, 1), got 1", true},
		{"synthesize/header-only CSV", []string{"synthesize", "--input", p("header.csv"), "--schema", s, "--out", out}, "holds only the header row", false},

		// dppub publish pdp-mvds
		{"pdp-mvds/one input", pdp("--input", p("parts/a.csv"), "--budgets", "1"), "one --input FILE per owner (at least 2)", true},
		{"pdp-mvds/budget NaN", pdp("--input", p("parts/a.csv"), "--input", p("parts/b.csv"), "--budgets", "NaN"), "--budgets: ρ = NaN (value 1) must be positive and finite", true},
		{"pdp-mvds/budget negative", pdp("--input", p("parts/a.csv"), "--input", p("parts/b.csv"), "--budgets", "1,-1"), "--budgets: ρ = -1 (value 2) must be positive", true},
		{"pdp-mvds/budgets for 3 owners", pdp("--input", p("parts/a.csv"), "--input", p("parts/b.csv"), "--budgets", "1,1,1"), "--budgets has 3 values for 2 owners", true},
		{"pdp-mvds/no budgets", pdp("--input", p("parts/a.csv"), "--input", p("parts/b.csv")), "--budgets is required", true},
		{"pdp-mvds/unknown column", pdp("--input", p("parts/a.csv"), "--input", p("extra.csv"), "--budgets", "1"), `column "pid" is not in the schema (declare it in the schema, or give --skip-columns pid`, false},

		// dppub publish mp-crdp
		{"mp-crdp/no ID column", []string{"publish", "mp-crdp", "--input", in, "--input", p("five.csv"), "--schema", s, "--label", "smoker", "--id", "pid", "--out", out}, `has no ID column "pid"`, false},
		{"mp-crdp/epsilon 0", []string{"publish", "mp-crdp", "--dataset", "wdbc", "--epsilon", "0", "--out", out}, "--epsilon must be positive and finite, got 0", true},
		{"mp-crdp/unknown release", []string{"publish", "mp-crdp", "--dataset", "wdbc", "--release", "forest", "--out", out}, `unknown release "forest"`, true},
		{"mp-crdp/unknown dataset", []string{"publish", "mp-crdp", "--dataset", "iris", "--out", out}, `"iris"`, true},

		// dppub publish dppca-svm and its siblings
		{"dppca-svm/epsilon NaN", svm("dppca-svm", "--epsilon", "NaN"), "--epsilon must be positive and finite, got NaN", true},
		{"dppca-svm/unknown label", []string{"publish", "dppca-svm", "--input", in, "--schema", s, "--label", "nope", "--out", p("model.json")}, `"nope"`, false},
		{"ag-svm/delta 1", svm("ag-svm", "--delta", "1"), "--delta must be in [0, 1), got 1", true},
		{"dppca-svm/--out - with --json", []string{"publish", "dppca-svm", "--input", in, "--schema", s, "--label", "smoker", "--out", "-", "--json"}, "cannot print there too", true},
	}
}

// toolCases are the refusals of dppub compare, check, predict, link, keygen
// and ledger verify.
func (a badInputArgs) toolCases() []badInputCase {
	p, s, in, compare, check, link := a.f.p, a.s, a.in, a.compare, a.check, a.link
	return []badInputCase{
		// dppub compare, check, predict
		{"compare/missing synthetic file", compare(in, p("nope.csv")), "nope.csv: no such file", false},
		{"compare/header-only synthetic", compare(in, p("header.csv")), "holds only the header row", false},
		{"compare/one bin", compare(in, in, "--bins", "1"), "--bins must be at least 2, got 1", true},
		{"compare/unknown label", compare(in, in, "--label", "nope"), `"nope"`, false},
		{"compare/out is the real file", []string{"compare", in, in, "--schema", s, "--out", in}, "output " + in + " is also the input", true},
		{"compare/standard input twice", compare("-", "-"), "--input - (standard input) given 2 times", true},
		{"check/advantage NaN", check(in, "--max-advantage", "NaN"), "--max-advantage must be in (0, 1), got NaN", true},
		{"check/header-only holdout", check(p("header.csv")), "holds only the header row", false},
		{"check/missing flags", []string{"check", "--real", in}, "check needs --real, --holdout, --synthetic and --schema", true},
		{"predict/missing model", []string{"predict", "--model", p("nope.json"), "--input", in}, "nope.json: no such file", false},
		{"predict/a schema as model", []string{"predict", "--model", s, "--input", in}, s, false},
		{"predict/input and dataset", []string{"predict", "--model", s, "--input", in, "--dataset", "wdbc"}, "give --input or --dataset, not both", true},
		{"predict/no model", []string{"predict", "--input", in}, "--model FILE is required", true},

		// dppub link, keygen, ledger verify
		{"link/one input", link("--id", "id", "--out-dir", p("linked")), "link needs at least 2 --input files, got 1", true},
		{"link/unknown ID column", link("--input", p("five.csv"), "--schema", s, "--id", "nope", "--out-dir", p("linked")), `header lacks column "nope"`, false},
		{"link/schemas for inputs", link("--input", in, "--id", "id", "--out-dir", p("linked")), "1 schemas for 2 inputs", true},
		{"link/out-dir in a missing directory", link("--input", p("five.csv"), "--schema", s, "--id", "id", "--out-dir", p("nodir/linked")), "nodir", true},
		{"keygen/one party", []string{"keygen", "--parties", "1", "--out", p("keys2")}, "--parties must be at least 2, got 1", true},
		{"keygen/small key", []string{"keygen", "--parties", "2", "--bits", "512", "--out", p("keys2")}, "--bits 512 is below 2048", true},
		{"keygen/existing key files", []string{"keygen", "--parties", "2", "--bits", "256", "--insecure-test-keys", "--out", p("keys")}, "already exists (give --force", true},
		{"ledger verify/missing directory", []string{"ledger", "verify", p("nope")}, `nope" is not a ledger directory`, false},
		{"ledger verify/a file", []string{"ledger", "verify", in}, `in.csv" is not a ledger directory`, false},
		{"ledger verify/missing operator key", []string{"ledger", "verify", p("ledger"), "--operator", p("nope.pub")}, "nope.pub: no such file", false},
	}
}

// runServeCases are the refusals of dppub run and serve.
func (a badInputArgs) runServeCases() []badInputCase {
	p, out, config, runCmd := a.f.p, a.out, a.config, a.runCmd
	return []badInputCase{
		// dppub run, serve (no session, no ledger entry, no budget store)
		{"run/unknown method", []string{"run", "forest", "--config", config, "--out", out}, `unknown method "forest"`, true},
		{"run/missing config", []string{"run", "ppca-dp-mh", "--config", p("nope.json"), "--out", out}, "nope.json: no such file", false},
		{"run/no out", []string{"run", "ppca-dp-mh", "--config", config}, "--config FILE and --out FILE are required", true},
		{"run/negative epsilon", runCmd("--set", "epsilon=-1"), "epsilon must be positive and finite, got -1", true},
		{"run/epsilon not a number", runCmd("--set", "epsilon=NaN"), `setting epsilon of ppca-dp-mh must be a number, got "NaN"`, true},
		{"run/unknown setting", runCmd("--set", "epsilonn=1"), `ppca-dp-mh has no setting "epsilonn"`, true},
		{"run/malformed --set", runCmd("--set", "epsilon"), `--set "epsilon": want KEY=VALUE`, true},
		{"run/missing settings file", runCmd("--settings", p("nope.json")), "nope.json: no such file", false},
		{"run/malformed --peer", runCmd("--peer", "owner-1"), `--peer "owner-1": want NAME=HOST:PORT`, true},
		{"run/existing out", []string{"run", "ppca-dp-mh", "--config", config, "--out", p("old.csv")}, "old.csv already exists", true},
		{"serve/wrong role", []string{"serve", "curator", "--config", config, "--member", "owner-1"}, `member "owner-1" has role "owner"`, true},
		{"serve/unknown member", []string{"serve", "owner", "--config", config, "--member", "owner-9"}, `no member "owner-9"`, false},
		{"serve/no member", []string{"serve", "owner", "--config", config}, "--member NAME are required", true},
	}
}

// budgetCases: a budget, δ or size is never silently replaced (issue 38,
// item 4).
func (a badInputArgs) budgetCases() []badInputCase {
	s, in, out, ppca, withInput, synth, compare, check, runCmd := a.s, a.in, a.out, a.ppca, a.withInput, a.synth, a.compare, a.check, a.runCmd
	return []badInputCase{
		// A budget, δ or size is never silently replaced (issue 38, item 4)
		{"synthesize/epsilon 0", synth("--epsilon", "0"), "--epsilon must be positive and finite, got 0", true},
		{"synthesize/delta 0", synth("--epsilon", "1", "--delta", "0"), "--delta must be positive and finite, got 0", true},
		{"synthesize/rows 0", synth("--rows", "0"), "--rows must be positive, got 0", true},
		{"synthesize/bins 0", synth("--bins", "0"), "--bins must be positive, got 0", true},
		{"synthesize/max-cells 0", synth("--max-cells", "0"), "--max-cells must be positive, got 0", true},
		{"synthesize/parties 0", synth("--parties", "0"), "--parties must be positive, got 0", true},
		{"synthesize/bin-share 0", synth("--bin-share", "0"), "--bin-share must not be 0", true},
		{"synthesize/party-budgets 0", synth("--parties", "2", "--party-budgets", "1,0"), "--party-budgets: ρ = 0 (value 2) must be positive", true},
		{"ppca-dp-mh/delta 0", withInput(ppca("--mechanism", "gaussian", "--delta", "0"), in), "--delta must be positive and finite, got 0", true},
		{"ppca-dp-mh/owners 0", withInput(ppca("--owners", "0"), in), "--owners must be positive, got 0", true},
		{"synthesize-rows/bins 0", []string{"publish", "synthesize-rows", "--input", in, "--schema", s, "--epsilon", "1", "--bins", "0", "--out", out}, "--bins must be positive, got 0", true},
		{"synthesize-rows/rows -1", []string{"publish", "synthesize-rows", "--input", in, "--schema", s, "--epsilon", "1", "--rows", "-1", "--out", out}, "--rows must be positive, got -1", true},
		{"compare/bins 0", compare(in, in, "--bins", "0"), "--bins must be positive, got 0", true},
		{"check/queries 0", check(in, "--queries", "0"), "--queries must be positive, got 0", true},
		{"run/delta 0 in --set", runCmd("--set", "delta=0"), "delta must be positive and finite, got 0", true},
	}
}

// ownerStateCases: owners are who the user says they are, one quality
// truth, and state on disk (issue 38).
func (a badInputArgs) ownerStateCases() []badInputCase {
	p, s, in, out, config, ppca, withInput, bn, compare, runCmd := a.f.p, a.s, a.in, a.out, a.config, a.ppca, a.withInput, a.bn, a.compare, a.runCmd
	return []badInputCase{
		// Owners are who the user says they are (issue 38, item 3)
		{"synthesize-rows/the same file twice", []string{"publish", "synthesize-rows", "--input", in, "--input", in, "--schema", s, "--epsilon", "1", "--out", out}, `--input "` + in + `" and --input "` + in + `" are the same file`, true},
		{"ppca-dp-mh/the same file through another path", withInput(withInput(ppca(), in), p("parts/../in.csv")), `--input "` + in + `" and --input "` + p("parts/../in.csv") + `" are the same file`, true},
		{"dp-subn3/the same file twice", append(bn("dp-subn3"), "--input", in), "are the same file", true},
		// One quality truth (issue 38, item 9)
		{"compare/another table's privacy report", compare(in, in, "--privacy-report", p("lda.csv.privacy.json")), "lda.csv.privacy.json is not the report of " + in, false},
		{"synthesize-rows/owners not matching the files", []string{"publish", "synthesize-rows", "--input", in, "--input", p("extra.csv"), "--owners", "3", "--schema", s, "--epsilon", "1", "--out", out}, "--owners 3 does not match the 2 --input files", true},
		// State on disk (issue 38): a damaged budget ledger, a missing
		// dataset, an existing consortium, a member of the wrong role, a
		// model of an unknown method.
		{"consortium budget/damaged ledger", []string{"consortium", "budget", "--config", config, "--member", "owner-2"}, "budget ledger " + p("demo/owner-2.budget.db") + " is damaged", false},
		{"serve/damaged ledger", []string{"serve", "owner", "--config", config, "--member", "owner-2", "--listen", "127.0.0.1:0"}, "budget ledger " + p("demo/owner-2.budget.db") + " is damaged", false},
		{"serve/missing dataset", []string{"serve", "owner", "--config", p("demo/missing-data.json"), "--member", "owner-1", "--listen", "127.0.0.1:0"}, `member "owner-1" cannot read the file its dataset's "path" names: open ` + p("demo/data/nope.csv") + ": no such file", false},
		{"run/an owner as the coordinator", runCmd("--member", "owner-1"), `--member owner-1 cannot coordinate ppca-dp-mh: it has role "owner"`, true},
		{"run/an unknown member", runCmd("--member", "owner-9"), `no member "owner-9"`, true},
		{"consortium demo/existing consortium", []string{"consortium", "demo", "--dir", p("demo"), "--rows", "100"}, "--dir " + p("demo") + " already holds files", true},
		{"predict/unknown method", []string{"predict", "--model", p("forest.json"), "--input", in}, `model: unknown method "forest"`, false},
	}
}

// partyCases: parties of columns are who the user says they are, and
// every owner's input to a release holds at least 2 rows (issue 38).
func (a badInputArgs) partyCases() []badInputCase {
	p, s, out, ppca, withInput, pdp := a.f.p, a.s, a.out, a.ppca, a.withInput, a.pdp
	return []badInputCase{
		// Parties of columns are who the user says they are (issue 38).
		{"pdp-mvds/the same file twice", pdp("--input", p("parts/a.csv"), "--input", p("parts/a.csv"), "--budgets", "1"), `--input "` + p("parts/a.csv") + `" and --input "` + p("parts/a.csv") + `" are the same file: each party brings its own columns`, true},
		{"pdp-mvds/a hard link", pdp("--input", p("parts/a.csv"), "--input", p("parts/a-hard.csv"), "--budgets", "1"), `--input "` + p("parts/a.csv") + `" and --input "` + p("parts/a-hard.csv") + `" are the same file`, true},
		{"pdp-mvds/a symbolic link", pdp("--input", p("parts/a-sym.csv"), "--input", p("parts/a.csv"), "--budgets", "1"), `--input "` + p("parts/a-sym.csv") + `" and --input "` + p("parts/a.csv") + `" are the same file`, true},
		{"pdp-mvds/the same content", pdp("--input", p("parts/a.csv"), "--input", p("parts/b.csv"), "--input", p("parts/a-copy.csv"), "--budgets", "1"), `--input "` + p("parts/a-copy.csv") + `" has the same content as --input "` + p("parts/a.csv") + `": each party brings its own columns`, true},
		{"mp-crdp/the same file twice", []string{"publish", "mp-crdp", "--input", p("parts/a.csv"), "--input", p("parts/a.csv"), "--schema", p("parts/s.json"), "--label", "smoker", "--out", out}, `--input "` + p("parts/a.csv") + `" and --input "` + p("parts/a.csv") + `" are the same file: each party brings its own columns`, true},
		{"mp-crdp/the same content", []string{"publish", "mp-crdp", "--input", p("parts/a-copy.csv"), "--input", p("parts/a.csv"), "--schema", p("parts/s.json"), "--label", "smoker", "--out", out}, `--input "` + p("parts/a.csv") + `" has the same content as --input "` + p("parts/a-copy.csv") + `"`, true},
		{"link/the same file through a symbolic link", []string{"link", "--input", p("parts/a.csv"), "--schema", p("parts/s.json"), "--input", p("parts/a-sym.csv"), "--schema", p("parts/s.json"), "--id", "id", "--out-dir", p("linked")}, `--input "` + p("parts/a.csv") + `" and --input "` + p("parts/a-sym.csv") + `" are the same file`, true},

		// Every owner's input to a release holds at least 2 rows (issue 38).
		{"pdp-mvds/a party of one row", pdp("--input", p("parts/one-a.csv"), "--input", p("parts/one-b.csv"), "--budgets", "1"), `one-a.csv" holds 1 row: a release needs at least 2`, false},
		{"mp-crdp/a party of one row", []string{"publish", "mp-crdp", "--input", p("parts/one-a.csv"), "--input", p("parts/one-b.csv"), "--schema", p("parts/s.json"), "--label", "smoker", "--out", out}, `one-a.csv" holds 1 row: a release needs at least 2`, false},
		{"statistics/one data row", []string{"statistics", "--input", p("one.csv"), "--schema", s, "--out", p("one-row.stats")}, `one.csv" holds 1 row: a release needs at least 2`, false},
		{"ppca-dp-mh/statistics of one record", []string{"publish", "ppca-dp-mh", "--statistics", p("one.stats"), "--schema", s, "--out", out}, `--statistics "` + p("one.stats") + `" counts 1 records: a release needs at least 2`, false},
		{"synthesize-rows/statistics of one record", []string{"publish", "synthesize-rows", "--statistics", p("one.stats"), "--schema", s, "--epsilon", "1", "--max-cells", "1", "--out", out}, `--statistics "` + p("one.stats") + `" counts 1 records: a release needs at least 2`, false},
		{"synthesize-rows/owners of one row", []string{"publish", "synthesize-rows", "--input", p("five.csv"), "--owners", "3", "--schema", s, "--epsilon", "1", "--out", out}, `--owners 3: "` + p("five.csv") + `" holds 5 rows, so an owner would get 1: a release needs at least 2 rows per owner`, true},
		{"ppca-dp-mh/owners of one row", withInput(ppca("--owners", "3"), p("five.csv")), `--owners 3: "` + p("five.csv") + `" holds 5 rows, so an owner would get 1`, true},
	}
}

// pureDeltaCases: δ where the run is pure ε-DP (issue 38, item 10).
func (a badInputArgs) pureDeltaCases() []badInputCase {
	in, out, ppca, withInput, runCmd := a.in, a.out, a.ppca, a.withInput, a.runCmd
	return []badInputCase{
		// δ where the run is pure ε-DP (issue 38, item 10).
		{"ppca-dp-mh/--delta with laplace", withInput(ppca("--mechanism", "laplace", "--delta", "1e-6"), in), "--delta 1e-06 has no meaning with the laplace mechanism, which is pure ε-DP", true},
		{"run/delta with laplace in --set", runCmd("--set", "mechanism=laplace", "--set", "delta=1e-6"), "delta 1e-06 has no meaning with the laplace mechanism", true},
		{"mp-crdp/--delta", []string{"publish", "mp-crdp", "--dataset", "wdbc", "--delta", "1e-6", "--out", out}, "unknown flag: --delta", true},
	}
}
