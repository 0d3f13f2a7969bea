package mpcrdp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/method"
	algo "github.com/dppub/dppub/method/mpcrdp/crdp"
	"github.com/dppub/dppub/randx"
)

// PartyName is the name of party i (1-based).
func PartyName(i int) string { return fmt.Sprintf("party-%d", i) }

// AdultFeatures are the 12 Adult features of the paper's §6: Table 3
// names ten of them (native-country, education, workclass, race,
// relationship, marital-status, occupation, education-num, age, fnlwgt);
// the other two are taken to be sex and hours-per-week, i.e. every
// attribute but capital-gain and capital-loss, which are ≥ 91% zero. File
// order, so that 3 parties hold 4 consecutive features each.
var AdultFeatures = []string{"age", "workclass", "fnlwgt", "education", "education-num",
	"marital-status", "occupation", "relationship", "race", "sex", "hours-per-week", "native-country"}

// Dataset is a built-in dataset prepared as in the paper's §6.
type Dataset struct {
	Table    *data.Table // features and label, with IDs
	Features []string    // in file order
	Label    string
	// B is the paper's adjustment coefficient for the dataset.
	B           int
	Description string
}

// DefaultAdultRows is the paper's Adult sample size.
const DefaultAdultRows = 10000

// LoadDataset prepares "adult" (rows records drawn uniformly without
// replacement from the 45222 complete ones with src, 0 for all; IDs are
// the row numbers in the full table) or "wdbc" (all 569, its own IDs).
func LoadDataset(name string, rows int, src *randx.Source) (*Dataset, error) {
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
		sel, err := t.SelectColumns(append(slices.Clone(AdultFeatures), "income")...)
		if err != nil {
			return nil, err
		}
		out := sel.Subset(idx)
		out.Schema.ID = "id"
		out.IDs = make([]string, len(idx))
		for k, i := range idx {
			out.IDs[k] = strconv.Itoa(i + 1)
		}
		return &Dataset{Table: out, Features: slices.Clone(AdultFeatures), Label: "income", B: 2,
			Description: fmt.Sprintf("Adult: %d of the 45222 complete records drawn uniformly at random, 12 features (all but capital-gain and capital-loss)", len(idx))}, nil
	case "wdbc":
		t, err := datasets.Load("wdbc")
		if err != nil {
			return nil, err
		}
		feats := slices.DeleteFunc(t.Schema.Names(), func(s string) bool { return s == "diagnosis" })
		return &Dataset{Table: t, Features: feats, Label: "diagnosis", B: 4,
			Description: "WDBC (breast cancer): 569 records, 30 features"}, nil
	}
	return nil, fmt.Errorf("publish: mp-crdp has no built-in split of %q (want adult or wdbc)", name)
}

// SplitFeatures gives each of parties parties a consecutive, near-equal group
// of features (party 1 also holds the label), as the paper's §6 does.
func SplitFeatures(t *data.Table, features []string, label string, parties int) ([]*data.Table, error) {
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

// Options configure an MP-CRDP publication in one process.
type Options struct {
	Settings Settings
	// Parties are the parties' tables, joined on their IDs; exactly one
	// holds the label column.
	Parties []*data.Table
	Source  *randx.Source
}

// Publish runs the parties and the trusted server in one process: the
// method's session, with party-1..m holding the tables in order.
func Publish(ctx context.Context, o Options) (*Result, error) {
	lo := method.LocalOptions{Source: o.Source}
	for i, t := range o.Parties {
		lo.AddOwner(PartyName(i+1), t)
	}
	start := time.Now()
	run, err := method.RunLocal(ctx, Spec, &o.Settings, lo)
	if err != nil {
		return nil, err
	}
	res := run.Outcome.Detail.(*Result)
	res.Traffic, res.Elapsed = run.Traffic, time.Since(start)
	return res, nil
}

// ParseQueries reads a count-query set: one query per line, conditions
// "feature=value" separated by ";" (a category name, or for a numeric
// feature any number in the wanted bin). Blank lines and lines starting
// with "#" are skipped.
func ParseQueries(r io.Reader) ([]algo.NamedQuery, error) {
	var out []algo.NamedQuery
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		var q algo.NamedQuery
		for _, part := range strings.Split(text, ";") {
			f, v, ok := strings.Cut(strings.TrimSpace(part), "=")
			if !ok || strings.TrimSpace(f) == "" {
				return nil, fmt.Errorf("publish: queries line %d: %q is not feature=value", line, part)
			}
			v = strings.TrimSpace(v)
			if strings.HasPrefix(v, "[") { // a rendered bin: take its lower edge
				v = strings.TrimPrefix(strings.SplitN(v, ",", 2)[0], "[")
			}
			q = append(q, algo.NamedCondition{Feature: strings.TrimSpace(f), Value: v})
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
