package publish

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dppub/dppub/algo/correlation"
	"github.com/dppub/dppub/algo/mpcrdp"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/learn"
	"github.com/dppub/dppub/model"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	protompcrdp "github.com/dppub/dppub/protocol/mpcrdp"
	"github.com/dppub/dppub/randx"
)

// MP-CRDP role names.
const (
	MPCRDPServer = "server"
	// MPCRDPLedger names the merged ledger kept by the server.
	MPCRDPLedger = "server (merged records)"
)

// MPCRDPPartyName is the name of party i (1-based).
func MPCRDPPartyName(i int) string { return fmt.Sprintf("party-%d", i) }

// MPCRDPComposition states how the ledgers add up: every release reads
// every party's columns of the joined records.
const MPCRDPComposition privacy.Composition = "sequential over every release: each one reads the joined records of all parties, so every party and the server's merged ledger spend every charge; overall = the merged ledger's total"

// AdultMPCRDPFeatures are the 12 Adult features of the paper's §6: Table 3
// names ten of them (native-country, education, workclass, race,
// relationship, marital-status, occupation, education-num, age, fnlwgt);
// the other two are taken to be sex and hours-per-week, i.e. every
// attribute but capital-gain and capital-loss, which are ≥ 91% zero. File
// order, so that 3 parties hold 4 consecutive features each.
var AdultMPCRDPFeatures = []string{"age", "workclass", "fnlwgt", "education", "education-num",
	"marital-status", "occupation", "relationship", "race", "sex", "hours-per-week", "native-country"}

// MPCRDPData is a built-in dataset prepared as in the paper's §6.
type MPCRDPData struct {
	Table    *data.Table // features and label, with IDs
	Features []string    // in file order
	Label    string
	// B is the paper's adjustment coefficient for the dataset.
	B           int
	Description string
}

// DefaultAdultRows is the paper's Adult sample size.
const DefaultAdultRows = 10000

// LoadMPCRDPData prepares "adult" (rows records drawn uniformly without
// replacement from the 45222 complete ones with src, 0 for all; IDs are
// the row numbers in the full table) or "wdbc" (all 569, its own IDs).
func LoadMPCRDPData(name string, rows int, src *randx.Source) (*MPCRDPData, error) {
	switch name {
	case "adult":
		t, err := datasets.Load("adult")
		if err != nil {
			return nil, err
		}
		idx := make([]int, t.Len())
		for i := range idx {
			idx[i] = i
		}
		if rows > 0 && rows < t.Len() {
			idx = src.Perm(t.Len())[:rows]
			slices.Sort(idx)
		}
		sel, err := t.SelectColumns(append(slices.Clone(AdultMPCRDPFeatures), "income")...)
		if err != nil {
			return nil, err
		}
		out := sel.Subset(idx)
		out.Schema.ID = "id"
		out.IDs = make([]string, len(idx))
		for k, i := range idx {
			out.IDs[k] = strconv.Itoa(i + 1)
		}
		return &MPCRDPData{Table: out, Features: slices.Clone(AdultMPCRDPFeatures), Label: "income", B: 2,
			Description: fmt.Sprintf("Adult: %d of the 45222 complete records drawn uniformly at random, 12 features (all but capital-gain and capital-loss)", len(idx))}, nil
	case "wdbc":
		t, err := datasets.Load("wdbc")
		if err != nil {
			return nil, err
		}
		feats := slices.DeleteFunc(t.Schema.Names(), func(s string) bool { return s == "diagnosis" })
		return &MPCRDPData{Table: t, Features: feats, Label: "diagnosis", B: 4,
			Description: "WDBC (breast cancer): 569 records, 30 features"}, nil
	}
	return nil, fmt.Errorf("publish: mp-crdp has no built-in split of %q (want adult or wdbc)", name)
}

// SplitMPCRDP gives each of parties parties a consecutive, near-equal group
// of features (party 1 also holds the label), as the paper's §6 does.
func SplitMPCRDP(t *data.Table, features []string, label string, parties int) ([]*data.Table, error) {
	if parties < 1 || parties > len(features) {
		return nil, fmt.Errorf("publish: %d parties for %d features", parties, len(features))
	}
	groups := make([][]string, parties)
	for k := range parties {
		groups[k] = slices.Clone(features[k*len(features)/parties : (k+1)*len(features)/parties])
	}
	groups[0] = append(groups[0], label)
	return data.SplitVertical(t, groups)
}

// MPCRDPOptions configure an MP-CRDP publication.
type MPCRDPOptions struct {
	// Parties are the parties' tables, joined on their IDs; exactly one
	// holds the Label column.
	Parties []*data.Table
	Label   string
	Config  mpcrdp.Config
	// QuerySet is the count-query set of a queries release (nil:
	// Config.NumQueries generated queries).
	QuerySet []mpcrdp.NamedQuery
	Source   *randx.Source
}

// MPCRDPResult is the publication and what it cost.
type MPCRDPResult struct {
	Report *privacy.Report
	Result *mpcrdp.Result
	// Model is the published classifier (logreg and svm releases).
	Model *model.Model
	// QueryText and Answers are the published queries and noisy counts.
	QueryText []string
	Answers   []float64
	// Merged is the joined table (local); Dropped counts IDs some party
	// lacks (local: not published).
	Merged   *data.Table
	Dropped  int
	Pipeline *mpcrdp.Pipeline
	Traffic  *protocol.Stats
	Elapsed  time.Duration
}

func (o *MPCRDPOptions) budget() dp.Guarantee {
	return dp.Pure(o.Config.Epsilon)
}

// MPCRDP runs the parties and the trusted server through the in-process
// runner and packages the release with its privacy report.
func MPCRDP(ctx context.Context, o MPCRDPOptions) (*MPCRDPResult, error) {
	if o.Source == nil {
		o.Source = randx.NewSecure()
	}
	if len(o.Parties) == 0 {
		return nil, fmt.Errorf("publish: mp-crdp needs at least one party")
	}
	if err := o.Config.Validate(); err != nil {
		return nil, err
	}
	if o.Config.Calibration == mpcrdp.None {
		return nil, fmt.Errorf("publish: mp-crdp: calibration %q publishes without noise; it is for experiments only", mpcrdp.None)
	}
	params := protompcrdp.Params{Session: fmt.Sprintf("mp-crdp-%016x", o.Source.Uint64()), Server: MPCRDPServer,
		Label: o.Label, Config: o.Config, QuerySet: o.QuerySet}
	for i, t := range o.Parties {
		id := MPCRDPPartyName(i + 1)
		params.Parties = append(params.Parties, id)
		if slices.Contains(t.Schema.Names(), o.Label) {
			if params.LabelHolder != "" {
				return nil, fmt.Errorf("publish: mp-crdp: both %s and %s hold the label %q", params.LabelHolder, id, o.Label)
			}
			params.LabelHolder = id
		}
	}
	if params.LabelHolder == "" {
		return nil, fmt.Errorf("publish: mp-crdp: no party holds the label %q", o.Label)
	}
	var roles []protocol.Role
	var accts []*privacy.Accountant
	for i, t := range o.Parties {
		acct, err := privacy.NewAccountant(privacy.AccountantOptions{Party: params.Parties[i], Budget: o.budget()})
		if err != nil {
			return nil, fmt.Errorf("publish: %w", err)
		}
		p, err := protompcrdp.NewParty(protompcrdp.PartyOptions{ID: params.Parties[i], Params: params, Table: t, Accountant: acct})
		if err != nil {
			return nil, fmt.Errorf("publish: %w", err)
		}
		roles, accts = append(roles, p), append(accts, acct)
	}
	ledger, err := privacy.NewAccountant(privacy.AccountantOptions{Party: MPCRDPLedger, Budget: o.budget()})
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	server, err := protompcrdp.NewServer(protompcrdp.ServerOptions{Params: params, Accountant: ledger, Source: o.Source.Child()})
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	start := time.Now()
	traffic, err := protocol.RunLocal(ctx, append(roles, server)...)
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	sr, err := server.Result()
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	res, err := FinishMPCRDP(o.Config, o.Label, o.Source, append(accts, ledger), sr)
	if err != nil {
		return nil, err
	}
	res.Traffic, res.Elapsed = traffic, time.Since(start)
	return res, nil
}

// FinishMPCRDP packages the trusted server's result: the privacy report
// from the parties' accountants followed by the server's merged ledger,
// and the published model or query answers. The in-process pipeline and
// the networked server finish alike; src is the server's source, which
// the report describes.
func FinishMPCRDP(cfg mpcrdp.Config, label string, src *randx.Source, accts []*privacy.Accountant, sr *protompcrdp.Result) (*MPCRDPResult, error) {
	res := &MPCRDPResult{Result: sr.Result, Merged: sr.Merged, Dropped: sr.Dropped, Pipeline: sr.Pipeline}
	_ = cfg.Validate() // fills the defaults the report states
	var err error
	if res.Report, err = mpcrdpReport(cfg, src, accts, sr); err != nil {
		return nil, err
	}
	if err := res.packageRelease(cfg, label); err != nil {
		return nil, err
	}
	return res, nil
}

// Output is the published file's bytes: the model JSON (logreg, svm) or
// the CSV of the queries and their noisy counts.
func (res *MPCRDPResult) Output() ([]byte, error) {
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
func (res *MPCRDPResult) packageRelease(cfg mpcrdp.Config, label string) error {
	out := res.Result.Output
	if out == nil {
		return nil
	}
	switch out.Kind {
	case mpcrdp.Queries:
		res.Answers = out.Answers
		for _, q := range out.Queries {
			res.QueryText = append(res.QueryText, QueryString(res.Merged.Schema, out.Features, q, cfg.Bins))
		}
		return nil
	case mpcrdp.LogReg, mpcrdp.SVM:
		mo := model.Options{Method: "mp-crdp-" + string(out.Kind), Schema: res.Merged.Schema, Label: label,
			Features: out.Features, Classifier: &learn.Classifier{Classes: 2, Models: []*learn.LinearModel{out.Model}},
			Loss: "logistic (functional mechanism, degree-2 Taylor)", Privacy: res.Report}
		if out.Kind == mpcrdp.SVM {
			mo.Loss = "huber-hinge (objective perturbation)"
			mo.Scale = make([]float64, out.Encoder.Dim())
			for j := range mo.Scale {
				mo.Scale[j] = out.Scale
			}
			mo.ClipL2 = 1
		}
		m, err := model.New(mo)
		if err != nil {
			return fmt.Errorf("publish: %w", err)
		}
		res.Model = m
	}
	return nil
}

// QueryString renders a query as "feature=value; …": a category name, or
// for a numeric feature its bin as [lo, hi).
func QueryString(s data.Schema, features []string, q mpcrdp.Query, bins int) string {
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

// ParseQueries reads a count-query set: one query per line, conditions
// "feature=value" separated by ";" (a category name, or for a numeric
// feature any number in the wanted bin). Blank lines and lines starting
// with "#" are skipped.
func ParseQueries(r io.Reader) ([]mpcrdp.NamedQuery, error) {
	var out []mpcrdp.NamedQuery
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		var q mpcrdp.NamedQuery
		for _, part := range strings.Split(text, ";") {
			f, v, ok := strings.Cut(strings.TrimSpace(part), "=")
			if !ok || strings.TrimSpace(f) == "" {
				return nil, fmt.Errorf("publish: queries line %d: %q is not feature=value", line, part)
			}
			v = strings.TrimSpace(v)
			if strings.HasPrefix(v, "[") { // a rendered bin: take its lower edge
				v = strings.TrimPrefix(strings.SplitN(v, ",", 2)[0], "[")
			}
			q = append(q, mpcrdp.NamedCondition{Feature: strings.TrimSpace(f), Value: v})
		}
		out = append(out, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("publish: queries: %w", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("publish: the query file holds no query")
	}
	return out, nil
}

func mpcrdpReport(cfg mpcrdp.Config, src *randx.Source, accts []*privacy.Accountant, sr *protompcrdp.Result) (*privacy.Report, error) {
	r := sr.Result
	parties := len(accts) - 1
	dataDependent := cfg.Notion.DataDependent(cfg.GroupSize)
	guarantee := cfg.Notion.Guarantee(cfg.Split(parties).Release, r.Factor, cfg.GroupSize)
	if cfg.Notion == mpcrdp.Group {
		guarantee += "; " + mpcrdpGroupTotal(cfg, parties, r.Factor)
	}
	ro := privacy.ReportOptions{
		Method: "mp-crdp", Calibration: fmt.Sprintf("%s; notion %s; utility %s; release %s", cfg.Calibration, cfg.Notion, cfg.Utility, cfg.Release),
		Neighbouring: "replace one individual: all of their attributes at every party (joined datasets of equal size differing in one ID's record)",
		Randomness:   src.Describe(), Seeded: !src.IsSecure(), Composition: MPCRDPComposition, Accountants: accts,
		Records: map[string]int{MPCRDPLedger: sr.Merged.Len()},
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
	if cfg.Calibration == mpcrdp.Paper {
		ro.NotDP = "the paper calibration's cleaning and stability selection run without noise, so the published feature selection is not DP"
	}
	ro.Covered, ro.NotCovered, ro.Warnings = mpcrdpCoverage(cfg, r, guarantee, dataDependent)
	return privacy.NewReport(ro)
}

// mpcrdpGroupTotal states what a group of correlated records gets in total
// under the group notion: the release protects the group at its ε2/2, but
// feature selection is record-level (ε − ε2/2 per record), so by group
// privacy a group of k records pays k times that.
func mpcrdpGroupTotal(cfg mpcrdp.Config, parties int, factor float64) string {
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

// mpcrdpCoverage says what is and is not covered by DP.
func mpcrdpCoverage(cfg mpcrdp.Config, r *mpcrdp.Result, guarantee string, dataDependent bool) (covered, notCovered, warnings []string) {
	fs := "the feature selection: the stability scores (disjoint blocks + Laplace), the redundancy coefficients (from Laplace-noised sums, cross-products and entropies), the best and adjusted feature sets and the chosen candidate group (permute-and-flip): standard ε-DP steps"
	notCovered = append(notCovered, fmt.Sprintf(
		"MCD = %.4f, the mean of the parties' ΔCS_n/K_n: computed from the private data without noise and broadcast by the server to every party in the published summary (it is also w0 of ΔCS_p and enters the u2 utility)", r.MCD))
	if cfg.Calibration == mpcrdp.Paper {
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
	if cfg.Release == mpcrdp.Queries && cfg.Calibration == mpcrdp.Paper {
		notCovered = append(notCovered, "the query answers: the paper's Laplace(2Δ/ε2) per query covers one query; the whole set composes to Q·ε2/2 (see the charge marked 'actually')")
	}
	return covered, notCovered, warnings
}

// MPCRDPNotionTable describes every notion for the final features of a
// finished pipeline: its factor and its guarantee at the release budget.
func MPCRDPNotionTable(cfg mpcrdp.Config, parties int, s mpcrdp.Sensitivities) []string {
	eps := cfg.Split(parties).Release
	var out []string
	for _, n := range mpcrdp.Notions {
		f := s.Factor(n, cfg.GroupSize)
		out = append(out, fmt.Sprintf("%-10s factor %-8s %s", n, strconv.FormatFloat(math.Round(f*1e4)/1e4, 'g', -1, 64), n.Guarantee(eps, f, cfg.GroupSize)))
	}
	return out
}
