package cli

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/dppub/dppub/audit"
	"github.com/dppub/dppub/audit/catalog"
	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/randx"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"gonum.org/v1/gonum/mat"
)

type auditFlags struct {
	calibration string
	epsilon     float64
	delta       float64
	runs        int
	confidence  float64
	long        bool
	asJSON      bool
	seed        uint64
	secure      bool
	workers     int
	part        string
	mechanism   string
	columns     int
	owners      int
	view        string
	noise       string
	pairD       string
	pairDPrime  string
	greybox     bool
	alpha       float64
}

// newAuditCmd is the audit command. It is long because of its help
// text, which explains how to read a verdict and lists every method.
func newAuditCmd() *cobra.Command {
	f := &auditFlags{}
	names := auditMethodList()
	cmd := &cobra.Command{
		Use:   "audit METHOD",
		Short: "Check a privacy claim empirically: a lower bound on the real ε, PASS or VIOLATION",
		Long: `Run a mechanism many times on two neighbouring datasets D and D' (one record
replaced by an extreme one) and compute a lower bound on the ε it really
provides, valid with the given confidence: a threshold event on a statistic
of the output (the log-likelihood ratio when the noise is known) is chosen
on a first batch of runs, counted on a fresh batch, and
ε ≥ ln((p_lo(D) − δ) / p_hi(D')) with Clopper–Pearson bounds, in both
orders of the pair. PASS means the bound does not exceed the claim (no
evidence against it, not a proof); VIOLATION means the mechanism is, with
the stated confidence, less private than claimed.

Methods:
` + strings.Join(names, "\n") + `
  hostile-coordinator
               a coordinator that departs from the protocol, against every
               multi-party method's member roles: forged sensitivities, grids
               and scales, repeated and reordered request IDs, substituted
               keys, overflowing and non-finite values, replays, requests
               beyond the budget or for another session; each must be refused
               with nothing charged, ignored (a replay or an early message),
               or charged at its true cost
  all          the whole suite (fast mode in CI; --long before a release);
               exits non-zero if any verdict differs from the expected one;
               each audit at confidence 1 − 5%/N (family-wise 95%), then the
               grey-box audit of every method (each at α = 1%/M, family-wise
               1%; so at most 6% for the whole run); with --greybox only the
               grey-box audits

--greybox audits the floating-point representation instead of ε: it
compares the low-order bits of the released float64s (trailing zeros and
low bits of the significand; of o − v too when the method states its true
value v) between D and D' with χ² tests, Bonferroni over features, at
false-alarm rate --alpha (default 0.001). LEAK means the output keeps bits
of the data (Mironov 2012: noise added to the value in floating point);
PASS means none were detected (not a proof). Releases on a fixed
power-of-two grid with integer noise pass. Values frequent on both
datasets (a clamped 0 or 1, a selected index) are left out. A method that
states its sensitivity is also replayed: same seed on D and D', outputs
within it.

The runs use a seeded stream (printed, so a run can be repeated with
--seed); --secure audits the production samplers instead (about 10 µs per
draw, so use few runs).

Examples:
  dppub audit ppca-dp-mh --calibration paper      # VIOLATION: ε ≥ 1.4 > 1
  dppub audit ppca-dp-mh --calibration sound      # PASS
  dppub audit ppca-dp-mh --calibration paper --part all --long
  dppub audit zero-sum --calibration paper --json   # VIOLATION: ε ≥ 2.5 > 2
  dppub audit dppca --mechanism ag-svm
  dppub audit laplace --greybox                   # low-order bits of the release
  dppub audit all --long`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runAudit(cmd, f, args[0]) },
	}
	f.register(cmd.Flags())
	return cmd
}

// auditMethodList is one line per auditable method, its name and
// summary, for the help text.
func auditMethodList() []string {
	var names []string
	width := 0
	for _, m := range catalog.All().Methods() {
		width = max(width, len(m.Name))
	}
	for _, m := range catalog.All().Methods() {
		names = append(names, fmt.Sprintf("  %-*s %s", width, m.Name, m.Summary))
	}
	return names
}

// register declares the audit command's flags on fs.
func (f *auditFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.calibration, "calibration", "", "sound | paper (default: the method's sound one)")
	fs.Float64Var(&f.epsilon, "epsilon", 0, "the budget the mechanism is calibrated for (default per method)")
	fs.Float64Var(&f.delta, "delta", 0, "δ for (ε, δ) mechanisms (default per method)")
	fs.IntVar(&f.runs, "runs", 0, "releases per dataset in each of the search and test batches (default per method and mode)")
	fs.Float64Var(&f.confidence, "confidence", 0.95, "probability that the reported lower bound is valid")
	fs.BoolVar(&f.long, "long", false, "long mode: more runs, for releases")
	fs.BoolVar(&f.asJSON, "json", false, "print the result as JSON")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the audit's randomness (default: a fresh one, printed)")
	fs.BoolVar(&f.secure, "secure", false, "draw from crypto/rand to audit the production samplers (slow)")
	fs.IntVar(&f.workers, "workers", 0, "parallel workers (default: all cores)")
	fs.StringVar(&f.part, "part", "", "ppca-dp-mh: second-moment (default) | sum | all")
	fs.StringVar(&f.mechanism, "mechanism", "", "ppca-dp-mh, ppca-dp-mh-aggregate: laplace (default) | gaussian; dppca: dppca-svm (default) | ag-svm | mod-sulq-svm; dp-erm: objective (default) | objective-huber | output; pdp-mvds-noise: the view, coordinator (default) | party")
	fs.IntVar(&f.columns, "columns", 0, "ppca-dp-mh, dppca: number of columns (default 20, 10)")
	fs.IntVar(&f.owners, "owners", 0, "zero-sum, mul-lda-dp: number of owners M (default 10, 3)")
	fs.StringVar(&f.view, "view", "", "zero-sum: publisher (default) | all-messages | message")
	fs.StringVar(&f.noise, "noise", "", "mul-lda-dp: correlated (default) | independent")
	fs.StringVar(&f.pairD, "pair-d", "", "ppca-dp-mh: CSV of numbers in [0,1] (one record per line) for dataset D")
	fs.StringVar(&f.pairDPrime, "pair-dprime", "", "ppca-dp-mh: CSV for D', equal to D except in one record")
	fs.BoolVar(&f.greybox, "greybox", false, "grey-box audit of the released float64s' low-order bits instead of ε (with all: only the grey-box suite)")
	fs.Float64Var(&f.alpha, "alpha", 0, "--greybox: false-alarm rate of each grey-box audit (default 0.001; in all, 0.01 split over the audits)")
}

// auditOutput is one audit as printed with --json.
type auditOutput struct {
	*audit.Result
	Expected audit.Verdict `json:"expected,omitempty"`
	Source   string        `json:"source"`
	Seed     *uint64       `json:"seed,omitempty"`
	Seconds  float64       `json:"seconds"`
}

func runAudit(cmd *cobra.Command, f *auditFlags, method string) error {
	if !(f.confidence > 0 && f.confidence < 1) {
		return kit.Usagef("--confidence must be in (0, 1), got %v", f.confidence)
	}
	if f.runs < 0 || f.workers < 0 || f.epsilon < 0 || f.delta < 0 {
		return kit.Usagef("--runs, --workers, --epsilon and --delta must not be negative")
	}
	if !(f.alpha >= 0 && f.alpha < 1) {
		return kit.Usagef("--alpha must be in (0, 1), got %v", f.alpha)
	}
	if !cmd.Flags().Changed("seed") {
		f.seed = randx.NewSecure().Uint64()
	}
	if method == "all" {
		return runAuditSuite(cmd, f)
	}
	if method == hostileName {
		return runHostile(cmd, f)
	}
	meth, err := catalog.All().Lookup(method)
	if err != nil {
		return kit.Usagef("%v", err)
	}
	o, err := f.methodOptions()
	if err != nil {
		return err
	}
	if f.greybox {
		alpha := f.alpha
		if alpha == 0 {
			alpha = 1e-3
		}
		g, err := f.greyOne(cmd, meth, o, alpha)
		if err != nil {
			return err
		}
		w := cmd.OutOrStdout()
		return printJSONOr(w, f.asJSON, g, func() { printGreyBox(w, g) })
	}
	out, err := f.auditOne(cmd, meth, o)
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	return printJSONOr(w, f.asJSON, out, func() { printAudit(w, out, f) })
}

func (f *auditFlags) methodOptions() (audit.MethodOptions, error) {
	o := audit.MethodOptions{Calibration: f.calibration, Epsilon: f.epsilon, Delta: f.delta, P: f.columns,
		Part: f.part, Mechanism: f.mechanism, Owners: f.owners, View: audit.View(f.view), Noise: f.noise}
	if (f.pairD == "") != (f.pairDPrime == "") {
		return o, kit.Usagef("give both --pair-d and --pair-dprime, or neither")
	}
	if f.pairD != "" {
		var err error
		if o.D, err = readMatrix(f.pairD); err != nil {
			return o, err
		}
		if o.DPrime, err = readMatrix(f.pairDPrime); err != nil {
			return o, err
		}
	}
	return o, nil
}

func (f *auditFlags) auditOne(cmd *cobra.Command, meth audit.Method, o audit.MethodOptions) (*auditOutput, error) {
	m, err := meth.Mechanism(o)
	if err != nil {
		return nil, err
	}
	runs := f.runs
	if runs == 0 {
		runs = meth.Runs(o, f.long)
	}
	src, seed := randx.NewSeeded(f.seed), &f.seed
	if f.secure {
		src, seed = randx.NewSecure(), nil
	}
	start := time.Now()
	r, err := audit.Run(m, audit.Options{Runs: runs, Confidence: f.confidence, Workers: f.workers, Source: src,
		Progress: kit.NewBar(cmd.ErrOrStderr(), "audit "+meth.Name)})
	if err != nil {
		return nil, err
	}
	return &auditOutput{Result: r, Source: src.Describe(), Seed: seed, Seconds: time.Since(start).Seconds()}, nil
}

func printAudit(w io.Writer, a *auditOutput, f *auditFlags) {
	r := a.Result
	fmt.Fprintf(w, "Audit of %s\n", r.Mechanism)
	fmt.Fprintf(w, "  pair:         %s\n", r.Pair)
	fmt.Fprintf(w, "  claimed:      %v\n", r.Claim)
	fmt.Fprintf(w, "  lower bound:  ε ≥ %.3f with %g%% confidence (%d search + %d test releases per dataset)\n",
		r.EpsilonLower, 100*r.Confidence, r.SearchRuns, r.Runs)
	for _, d := range r.Directions {
		fmt.Fprintf(w, "    %s: %d/%d vs %d/%d → p ≥ %.4g, p' ≤ %.4g → ε ≥ %.3f\n",
			d.Description, d.HitsNum, r.Runs, d.HitsDen, r.Runs, d.PNumLower, d.PDenUpper, d.EpsilonLower)
	}
	fmt.Fprintf(w, "  power:        %v\n", r.Power())
	if r.ClaimedRho > 0 {
		fmt.Fprintf(w, "  Rényi test:   ρ ≥ %.4g against the claimed ρ = %.4g (every order α of the zCDP promise at once)\n", r.RhoLower, r.ClaimedRho)
		for _, d := range r.RenyiDirections {
			fmt.Fprintf(w, "    %s: %d/%d vs %d/%d → p ≥ %.4g, p' ≤ %.4g → ρ ≥ %.4g\n",
				d.Description, d.HitsNum, r.Runs, d.HitsDen, r.Runs, d.PNumLower, d.PDenUpper, d.RhoLower)
		}
		fmt.Fprintf(w, "    power: a Gaussian leak of true ρ ≥ %.4g (%.2g× the claim) seen whole by the statistic is detected\n",
			r.RenyiDetectable, r.RenyiDetectable/r.ClaimedRho)
	}
	if n := r.Noise; n != nil {
		fmt.Fprintf(w, "  noise test:   ρ ≥ %.4g: the noise on the %d cells the canary moves has %.4g× (at most %.4g×) the variance the requests state, and its moves carry ρ = %.4g at that variance (false rejection ≤ %.2g%%)\n",
			n.RhoLower, n.Cells, n.VarianceRatio, n.VarianceRatioUpper, n.LossMin, 100*n.Alpha)
	}
	switch {
	case r.Verdict == audit.Pass:
		fmt.Fprintf(w, "  verdict:      PASS (ε_lower %.3f ≤ claimed %.4g%s: no evidence against the claim; not a proof)\n", r.EpsilonLower, r.ClaimedEpsilon, rhoPhrase(r, "≤"))
	case r.EpsilonLower > r.ClaimedEpsilon:
		fmt.Fprintf(w, "  verdict:      VIOLATION (ε_lower %.3f > claimed %.4g: less private than claimed, wrong with probability ≤ %.3g%%)\n",
			r.EpsilonLower, r.ClaimedEpsilon, 100*(1-r.Confidence))
	default:
		fmt.Fprintf(w, "  verdict:      VIOLATION (ρ_lower %.4g > claimed ρ = %.4g: less private than claimed, wrong with probability ≤ %.3g%%)\n",
			rhoLower(r), r.ClaimedRho, 100*(1-r.Confidence))
	}
	if a.Seed != nil {
		fmt.Fprintf(w, "  %.1f s; seed %d (repeat with --seed %d)\n", a.Seconds, *a.Seed, *a.Seed)
	} else {
		fmt.Fprintf(w, "  %.1f s; %s\n", a.Seconds, a.Source)
	}
}

// rhoPhrase adds the Rényi test's comparison to a verdict, if it ran.
func rhoPhrase(r *audit.Result, op string) string {
	if r.ClaimedRho == 0 {
		return ""
	}
	return fmt.Sprintf(", ρ_lower %.4g %s claimed %.4g", rhoLower(r), op, r.ClaimedRho)
}

// rhoLower is the larger of the Rényi test's and the noise test's bounds.
func rhoLower(r *audit.Result) float64 {
	if r.Noise != nil {
		return math.Max(r.RhoLower, r.Noise.RhoLower)
	}
	return r.RhoLower
}

func runAuditSuite(cmd *cobra.Command, f *auditFlags) error {
	if f.calibration != "" || f.epsilon != 0 || f.delta != 0 || f.part != "" || f.mechanism != "" ||
		f.columns != 0 || f.owners != 0 || f.view != "" || f.noise != "" || f.pairD != "" || f.pairDPrime != "" {
		return kit.Usagef("audit all runs the fixed suite: give only --long, --runs, --confidence, --greybox, --alpha, --json, --seed, --secure, --workers")
	}
	s := &suiteRun{}
	if !f.greybox {
		if err := s.blackBox(cmd, f); err != nil {
			return err
		}
	}
	if err := s.greyBox(cmd, f); err != nil {
		return err
	}
	hostile, hostileFailed, err := runHostileAttacks()
	if err != nil {
		return err
	}
	s.hostile = hostile
	s.failed += hostileFailed
	s.total += len(hostile)
	w := cmd.OutOrStdout()
	out := struct {
		Audits  []*auditOutput        `json:"audits,omitempty"`
		GreyBox []*greyOutput         `json:"greybox"`
		Hostile []audit.HostileResult `json:"hostile_coordinator"`
	}{s.outs, s.greys, s.hostile}
	if err := printJSONOr(w, f.asJSON, out, func() { s.print(w, f.seed, f.confidence) }); err != nil {
		return err
	}
	if s.failed > 0 {
		return fmt.Errorf("audit: %d of %d audits did not give the expected verdict", s.failed, s.total)
	}
	return nil
}

// suiteRun collects the results of audit all.
type suiteRun struct {
	outs       []*auditOutput // the black-box audits
	family     string         // how their confidence was set, for the table
	greys      []*greyOutput
	alpha      float64 // each grey-box audit's level
	greyFamily string  // how alpha was set, for the table
	hostile    []audit.HostileResult
	failed     int // audits without the expected verdict
	total      int
}

// blackBox runs the black-box suite, each audit at 1 − 5%/N unless
// --confidence is given.
func (s *suiteRun) blackBox(cmd *cobra.Command, f *auditFlags) error {
	cases := catalog.All().Suite(f.long)
	if !cmd.Flags().Changed("confidence") {
		// Bonferroni: each audit at 1 − 5%/N, so that the whole suite
		// reports a false VIOLATION with probability at most 5%.
		f.confidence = 1 - 0.05/float64(len(cases))
		s.family = fmt.Sprintf(" (family-wise 0.95 over %d audits, Bonferroni)", len(cases))
	}
	for _, c := range cases {
		meth, err := catalog.All().Lookup(c.Method)
		if err != nil {
			return err
		}
		out, err := f.auditOne(cmd, meth, c.Options)
		if err != nil {
			return err
		}
		out.Expected = c.Expect
		if out.Verdict != c.Expect {
			s.failed++
		}
		s.outs = append(s.outs, out)
	}
	s.total += len(cases)
	return nil
}

// greyBox runs the grey-box audits: each at 1%/M unless --alpha is
// given, so that they report a false LEAK with probability at most 1%.
func (s *suiteRun) greyBox(cmd *cobra.Command, f *auditFlags) error {
	cases := catalog.All().GreyBoxSuite(f.long)
	s.alpha = f.alpha
	if s.alpha == 0 {
		s.alpha = 0.01 / float64(len(cases))
		s.greyFamily = fmt.Sprintf(" (family-wise 0.01 over %d grey-box audits, Bonferroni)", len(cases))
	}
	for _, c := range cases {
		meth, err := catalog.All().Lookup(c.Method)
		if err != nil {
			return err
		}
		g, err := f.greyOne(cmd, meth, c.Options, s.alpha)
		if err != nil {
			return err
		}
		g.Case, g.Expected = c.Key(), c.Expect
		if g.Verdict != c.Expect {
			s.failed++
		}
		s.greys = append(s.greys, g)
	}
	s.total += len(cases)
	return nil
}

// print writes the suite's results as tables: the black-box audits (run
// at confidence), the grey-box ones and the hostile-coordinator attacks.
func (s *suiteRun) print(w io.Writer, seed uint64, confidence float64) {
	if len(s.outs) > 0 {
		fmt.Fprintf(w, "%-90s %-16s %9s %9s  %-9s  %-9s %7s\n", "mechanism", "claim", "ε_lower", "ρ_lower", "verdict", "expected", "seconds")
		for _, o := range s.outs {
			rho := "-" // the Rényi and noise tests run for zCDP claims only
			if o.ClaimedRho > 0 {
				rho = fmt.Sprintf("%.4f", rhoLower(o.Result))
			}
			fmt.Fprintf(w, "%-90s %-16v %9.3f %9s  %-9s  %-9s %7.1f\n", o.Mechanism, o.Claim, o.EpsilonLower, rho, o.Verdict, o.Expected, o.Seconds)
		}
		fmt.Fprintf(w, "seed %d; confidence %.5g per audit%s\n\n", seed, confidence, s.family)
	}
	fmt.Fprintf(w, "%-90s %7s %9s  %-9s  %-9s %7s\n", "grey-box (low-order bits of the release)", "max TV", "p-value", "verdict", "expected", "seconds")
	for _, g := range s.greys {
		fmt.Fprintf(w, "%-90s %7.3f %9.3g  %-9s  %-9s %7.1f\n", g.Case, g.MaxTV, g.PValue, g.Verdict, g.Expected, g.Seconds)
	}
	fmt.Fprintf(w, "seed %d; α = %.3g per grey-box audit%s\n", seed, s.alpha, s.greyFamily)
	if len(s.outs) > 0 && s.family != "" && s.greyFamily != "" {
		fmt.Fprintln(w, "a false VIOLATION or LEAK anywhere in this run has probability at most 6% (Bonferroni)")
	}
	fmt.Fprintln(w)
	printHostile(w, s.hostile, false)
}

// greyOutput is one grey-box audit as printed with --json.
type greyOutput struct {
	audit.GreyBoxResult
	Case     string        `json:"case,omitempty"`
	Expected audit.Verdict `json:"expected,omitempty"`
	Source   string        `json:"source"`
	Seed     *uint64       `json:"seed,omitempty"`
	Seconds  float64       `json:"seconds"`
}

func (f *auditFlags) greyOne(cmd *cobra.Command, meth audit.Method, o audit.MethodOptions, alpha float64) (*greyOutput, error) {
	m, err := meth.Mechanism(o)
	if err != nil {
		return nil, err
	}
	runs := f.runs
	if runs == 0 {
		runs = meth.GreyBoxRuns(m.Dim, f.long)
	}
	src, seed := randx.NewSeeded(f.seed), &f.seed
	if f.secure {
		src, seed = randx.NewSecure(), nil
	}
	start := time.Now()
	r, err := audit.GreyBox(m, audit.GreyBoxOptions{Runs: runs, Alpha: alpha, Workers: f.workers, Source: src,
		Progress: kit.NewBar(cmd.ErrOrStderr(), "grey-box "+meth.Name)})
	if err != nil {
		return nil, err
	}
	return &greyOutput{GreyBoxResult: r, Source: src.Describe(), Seed: seed, Seconds: time.Since(start).Seconds()}, nil
}

func printGreyBox(w io.Writer, g *greyOutput) {
	r := g.GreyBoxResult
	fmt.Fprintf(w, "Grey-box audit of %s\n", r.Mechanism)
	fmt.Fprintf(w, "  pair:         %s\n", r.Pair)
	fmt.Fprintf(w, "  releases:     %d per dataset; %d tests, each at level %.3g (α = %g, Bonferroni)\n", r.Runs, r.Tests, r.Level, r.Alpha)
	for _, t := range r.Features {
		scope := "all"
		if t.Coordinate >= 0 {
			scope = fmt.Sprintf("coord %d", t.Coordinate)
		}
		verdict := ""
		if t.Leak {
			verdict = "  LEAK"
		}
		fmt.Fprintf(w, "    %-26s %-8s TV %.3f  p = %-9.3g%s\n", t.Feature, scope, t.TV, t.PValue, verdict)
		var cats []string
		for _, c := range t.Table[:min(len(t.Table), 4)] {
			cats = append(cats, fmt.Sprintf("%s %.3f/%.3f", c.Category, c.D, c.DPrime))
		}
		fmt.Fprintf(w, "      D/D': %s\n", strings.Join(cats, ", "))
	}
	if r.Atoms > 0 {
		fmt.Fprintf(w, "  atoms:        %d values frequent on both datasets, %.1f%% of the outputs on D and %.1f%% on D' (left out)\n",
			r.Atoms, 100*r.AtomShare[0], 100*r.AtomShare[1])
	}
	if rp := r.Replay; rp != nil {
		state := "within"
		if rp.Exceeded {
			state = "EXCEEDED"
		}
		fmt.Fprintf(w, "  replay:       max ℓ%g distance %.6g over %d same-seed pairs, bound %.6g: %s\n", rp.Norm, rp.MaxDiff, rp.Runs, rp.Bound, state)
		if rp.Worst != "" {
			fmt.Fprintf(w, "                worst release: %s; %d releases compared, %d pairs diverged (an adaptive choice on noisy values; compared up to there)\n", rp.Worst, rp.Releases, rp.Diverged)
		}
	}
	fmt.Fprintf(w, "  power:        a feature TV ≥ %.3f is detected with probability ≥ 0.99\n", r.DetectableTV)
	if r.Verdict == audit.Pass {
		fmt.Fprintf(w, "  verdict:      PASS (max TV %.3f, p = %.3g: no low-order bits of the data detected; not a proof)\n", r.MaxTV, r.PValue)
	} else if rp := r.Replay; rp != nil && rp.Exceeded && r.PValue >= r.Alpha {
		fmt.Fprintf(w, "  verdict:      LEAK (replay: a release moved by %.6g between D and D' under the same randomness, beyond its declared sensitivity %.6g: its noise does not cover the true difference)\n",
			rp.MaxDiff, rp.Bound)
	} else {
		fmt.Fprintf(w, "  verdict:      LEAK (max TV %.3f, p = %.3g: the release's low-order bits depend on the data; a false alarm has probability ≤ %.3g%%)\n",
			r.MaxTV, r.PValue, 100*r.Alpha)
	}
	if g.Seed != nil {
		fmt.Fprintf(w, "  %.1f s; seed %d (repeat with --seed %d)\n", g.Seconds, *g.Seed, *g.Seed)
	} else {
		fmt.Fprintf(w, "  %.1f s; %s\n", g.Seconds, g.Source)
	}
}

// printJSONOr prints v as indented JSON when asJSON (--json), else calls
// text, the command's own summary.
func printJSONOr(w io.Writer, asJSON bool, v any, text func()) error {
	if asJSON {
		return printJSON(w, v)
	}
	text()
	return nil
}

func printJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, string(b))
	return err
}

// readMatrix reads a CSV of numbers, one record per line; a first line that
// is not numeric is taken as a header and skipped.
func readMatrix(path string) (*mat.Dense, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	rows, err := csv.NewReader(fh).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	var data []float64
	n := 0
	for i, row := range rows {
		vals, err := parseRow(row)
		if err != nil {
			if i == 0 {
				continue // header
			}
			return nil, fmt.Errorf("%s line %d: %w", path, i+1, err)
		}
		if n > 0 && len(vals) != len(data)/n {
			return nil, fmt.Errorf("%s line %d has %d values, want %d", path, i+1, len(vals), len(data)/n)
		}
		data = append(data, vals...)
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("%s holds no numeric rows", path)
	}
	return mat.NewDense(n, len(data)/n, data), nil
}

func parseRow(row []string) ([]float64, error) {
	out := make([]float64, len(row))
	for j, s := range row {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return nil, fmt.Errorf("column %d: %q is not a number", j+1, s)
		}
		out[j] = v
	}
	return out, nil
}
