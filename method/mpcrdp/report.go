package mpcrdp

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method/mpcrdp/correlation"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/learn"
	algo "github.com/dppub/dppub/method/mpcrdp/crdp"
	protompcrdp "github.com/dppub/dppub/method/mpcrdp/roles"
	"github.com/dppub/dppub/model"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// MP-CRDP role names.
const (
	RoleServer = "server"
	// Ledger names the merged ledger kept by the server.
	Ledger = "server (merged records)"
)

// Composition states how the ledgers add up: every release reads
// every party's columns of the joined records.
const Composition privacy.Composition = "sequential over every release: each one reads the joined records of all parties, so every party and the server's merged ledger spend every charge; overall = the merged ledger's total"

// Result is the publication and what it cost.
type Result struct {
	Report *privacy.Report
	Result *algo.Result
	// Model is the published classifier (logreg and svm releases).
	Model *model.Model
	// QueryText and Answers are the published queries and noisy counts.
	QueryText []string
	Answers   []float64
	// Merged is the joined table (local); Dropped counts IDs some party
	// lacks (local: not published).
	Merged   *data.Table
	Dropped  int
	Pipeline *algo.Pipeline
	Traffic  *protocol.Stats
	Elapsed  time.Duration
}

// finish packages the trusted server's result: the privacy report
// from the parties' accountants followed by the server's merged ledger,
// and the published model or query answers. The in-process pipeline and
// the networked server finish alike; src is the server's source, which
// the report describes.
func finish(cfg algo.Config, label string, src *randx.Source, accts []*privacy.Accountant, sr *protompcrdp.Result) (*Result, error) {
	res := &Result{Result: sr.Result, Merged: sr.Merged, Dropped: sr.Dropped, Pipeline: sr.Pipeline}
	_ = cfg.Validate() // fills the defaults the report states
	var err error
	if res.Report, err = report(cfg, src, accts, sr); err != nil {
		return nil, err
	}
	if err := res.packageRelease(cfg, label); err != nil {
		return nil, err
	}
	return res, nil
}

// Output is the published file's bytes: the model JSON (logreg, svm) or
// the CSV of the queries and their noisy counts.
func (res *Result) Output() ([]byte, error) {
	if res.Model != nil {
		return res.Model.JSON()
	}
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	if err := cw.Write([]string{"query", "noisy_count"}); err != nil {
		return nil, err
	}
	for i, q := range res.QueryText {
		if err := cw.Write([]string{q, strconv.FormatFloat(res.Answers[i], 'f', 2, 64)}); err != nil {
			return nil, err
		}
	}
	cw.Flush()
	return b.Bytes(), cw.Error()
}

// packageRelease builds the published model or query answers.
func (res *Result) packageRelease(cfg algo.Config, label string) error {
	out := res.Result.Output
	if out == nil {
		return nil
	}
	switch out.Kind {
	case algo.Queries:
		res.Answers = out.Answers
		for _, q := range out.Queries {
			res.QueryText = append(res.QueryText, QueryString(res.Merged.Schema, out.Features, q, cfg.Bins))
		}
		return nil
	case algo.LogReg, algo.SVM:
		mo := model.Options{Method: "mp-crdp-" + string(out.Kind), Schema: res.Merged.Schema, Label: label,
			Features: out.Features, Classifier: &learn.Classifier{Classes: 2, Models: []*learn.LinearModel{out.Model}},
			Loss: "logistic (functional mechanism, degree-2 Taylor)", Privacy: res.Report}
		if out.Kind == algo.SVM {
			mo.Loss = "huber-hinge (objective perturbation)"
			mo.Scale = make([]float64, out.Encoder.Dim())
			for j := range mo.Scale {
				mo.Scale[j] = out.Scale
			}
			mo.ClipL2 = 1
		}
		m, err := model.New(mo)
		if err != nil {
			return err
		}
		res.Model = m
	}
	return nil
}

// QueryString renders a query as "feature=value; …": a category name, or
// for a numeric feature its bin as [lo, hi).
func QueryString(s data.Schema, features []string, q algo.Query, bins int) string {
	parts := make([]string, len(q))
	for k, c := range q {
		name := features[c.Feature]
		a, _ := s.Attribute(name)
		parts[k] = name + "=" + valueString(a, c.Code, bins)
	}
	return strings.Join(parts, "; ")
}

func valueString(a data.Attribute, code uint32, bins int) string {
	if a.Kind != data.Numeric {
		return a.Categories[code]
	}
	levels, _ := correlation.Coder(a, bins)
	if a.Integer && a.Max-a.Min+1 <= float64(bins) {
		return strconv.FormatFloat(a.Min+float64(code), 'g', -1, 64)
	}
	w := (a.Max - a.Min) / float64(levels)
	lo, hi := a.Min+float64(code)*w, a.Min+float64(code+1)*w
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	if int(code) == levels-1 {
		return "[" + g(lo) + "," + g(hi) + "]"
	}
	return "[" + g(lo) + "," + g(hi) + ")"
}

func report(cfg algo.Config, src *randx.Source, accts []*privacy.Accountant, sr *protompcrdp.Result) (*privacy.Report, error) {
	r := sr.Result
	parties := len(accts) - 1
	dataDependent := cfg.Notion.DataDependent(cfg.GroupSize)
	guarantee := cfg.Notion.Guarantee(cfg.Split(parties).Release, r.Factor, cfg.GroupSize)
	if cfg.Notion == algo.Group {
		guarantee += "; " + groupTotal(cfg, parties, r.Factor)
	}
	ro := privacy.ReportOptions{
		Method: Name, Calibration: fmt.Sprintf("%s; notion %s; utility %s; release %s", cfg.Calibration, cfg.Notion, cfg.Utility, cfg.Release),
		Unit:       dp.UnitIndividual,
		Randomness: src.Describe(), Seeded: !src.IsSecure(), Composition: Composition, Accountants: accts,
		Records: map[string]int{Ledger: sr.Merged.Len()},
		Assumptions: []string{
			fmt.Sprintf("the number of joined records n = %d is public (it calibrates the entropy bounds and the stability blocks)", sr.Merged.Len()),
			"numeric attributes are encoded into [0,1] by the bounds declared in the schema and, for the correlation analysis, entropies and queries, cut into equal-width bins over them; the bounds are public",
			"parties join their rows on the ID column; IDs missing from some party are left out (their number is not published)",
			"the feature names of every party, the label and all parameters (ε, θ_im, θ_per, w0, b, bins, runs) are public",
		},
		ThreatModel: []string{
			"the server is TRUSTED (the paper's model, §5.1): it receives every party's raw columns and sees every record; DP protects the individuals against the users of the published output, not against the server",
			"every party spends every charge on its own accountant before the server runs the step, and may refuse",
		},
	}
	if dataDependent {
		ro.NotStandardDP = fmt.Sprintf("notion %s scales the release noise to a sensitivity factor (%g) computed from the private data without noise", cfg.Notion, r.Factor)
	}
	if cfg.Calibration == algo.Paper {
		ro.NotDP = "the paper calibration's cleaning and stability selection run without noise, so the published feature selection is not DP"
	}
	ro.Covered, ro.NotCovered, ro.Warnings = coverage(cfg, r, guarantee, dataDependent)
	return privacy.NewReport(ro)
}

// groupTotal states what a group of correlated records gets in total
// under the group notion: the release protects the group at its ε2/2, but
// feature selection is record-level (ε − ε2/2 per record), so by group
// privacy a group of k records pays k times that.
func groupTotal(cfg algo.Config, parties int, factor float64) string {
	k := factor
	bound := fmt.Sprintf("the measured ΔGS = %g (data-dependent)", factor)
	if cfg.GroupSize > 0 {
		k, bound = float64(cfg.GroupSize), fmt.Sprintf("the declared bound %d", cfg.GroupSize)
	}
	rel := cfg.Split(parties).Release
	selection := cfg.Epsilon - rel
	return fmt.Sprintf("group-level total including feature selection: for a group of k records, k = %s, the record-level feature selection (ε − ε2/2 = %g) costs k·%g by group privacy, so the group is protected at k·%g + %g = %g in total, not at the release's %g",
		bound, selection, selection, selection, rel, k*selection+rel, rel)
}

// coverage says what is and is not covered by DP.
func coverage(cfg algo.Config, r *algo.Result, guarantee string, dataDependent bool) (covered, notCovered, warnings []string) {
	fs := "the feature selection: the stability scores (disjoint blocks + Laplace), the redundancy coefficients (from Laplace-noised sums, cross-products and entropies), the best and adjusted feature sets and the chosen candidate group (permute-and-flip): standard ε-DP steps"
	notCovered = append(notCovered, fmt.Sprintf(
		"MCD = %.4f, the mean of the parties' ΔCS_n/K_n: computed from the private data without noise and broadcast by the server to every party in the published summary (it is also w0 of ΔCS_p and enters the u2 utility)", r.MCD))
	if cfg.Calibration == algo.Paper {
		notCovered = append(notCovered,
			"the cleaning and stability-selection steps (paper Algorithm 1, lines 1–19) use no noise: which features are dropped, scored best or adjusted is derived from the data without DP",
			"the redundancy step's Laplace(1/ε1) per coefficient is charged at ε1 as the paper claims, but its true guarantee is weaker (see the charge marked 'actually')")
		fs = "the candidate-group choice (exponential mechanism) given the non-private best and adjusted sets"
		warnings = append(warnings, "paper calibration: some charges give a weaker guarantee than charged (marked 'actually only'; the report's actual guarantee composes them); the feature selection is partly not DP")
	}
	covered = append(covered, fs)
	rel := "the release (" + string(cfg.Release) + "): " + guarantee
	if dataDependent {
		notCovered = append(notCovered, rel,
			fmt.Sprintf("the sensitivity factor %g and the sensitivities behind it (ΔCS, ΔCS_p, ΔGS) are computed from the private data without noise and published through the noise scale and this report", r.Factor))
		warnings = append(warnings, "notion "+string(cfg.Notion)+": the release noise is calibrated to a data-dependent sensitivity, the paper's correlated-DP notion — this is NOT standard differential privacy; use --notion standard (the default, or group with a declared --group-size) for a standard guarantee")
	} else {
		covered = append(covered, rel)
	}
	if cfg.Release == algo.Queries && cfg.Calibration == algo.Paper {
		notCovered = append(notCovered, "the query answers: the paper's Laplace(2Δ/ε2) per query covers one query; the whole set composes to Q·ε2/2 (see the charge marked 'actually')")
	}
	return covered, notCovered, warnings
}

// NotionTable describes every notion for the final features of a
// finished pipeline: its factor and its guarantee at the release budget.
func NotionTable(cfg algo.Config, parties int, s algo.Sensitivities) []string {
	eps := cfg.Split(parties).Release
	var out []string
	for _, n := range algo.Notions {
		f := s.Factor(n, cfg.GroupSize)
		out = append(out, fmt.Sprintf("%-10s factor %-8s %s", n, strconv.FormatFloat(math.Round(f*1e4)/1e4, 'g', -1, 64), n.Guarantee(eps, f, cfg.GroupSize)))
	}
	return out
}
