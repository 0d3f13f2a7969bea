// Package gate is the owner's release gate: before a synthetic table is
// written, it runs membership-inference attacks that try to tell the
// owner's own rows (the members, from which the table was made) from
// held-out rows of the same population (non-members, never shown to the
// generator), and refuses the release when an attack's advantage exceeds
// a threshold the owner sets.
//
// Attacks (each scores every query row; members should score higher if
// the table leaks them):
//   - distance to closest record (DCR): minus the distance from the row to
//     its nearest synthetic row, attributes scaled to [0, 1] by the
//     schema's public bounds, a mismatched category counting 1;
//   - density ratio (after DOMIAS, van Breugel et al., AISTATS 2023): the
//     log ratio of a kernel density of the synthetic rows to one of a
//     reference half of the held-out rows at the query row: a table that
//     over-represents its members' neighbourhoods scores them higher.
//
// Advantage is 2·AUC − 1 (AUC: the probability that a random member
// scores above a random non-member, ties half), 0 for a table that tells
// nothing and 1 for a perfect attack; it is threshold-free, so no
// threshold is tuned on the rows it is measured on. Its confidence
// interval is Hanley & McNeil's (1982) normal interval for the AUC.
//
// A release is refused when an attack's advantage exceeds the owner's
// threshold with the stated confidence: when the interval's lower end is
// above it. The budget is spent before the gate runs, so a refusal on
// sampling noise alone would throw a paid-for release away: with 125
// held-out queries the advantage of a table that tells nothing has a
// standard error of about 0.07, and a point estimate above 0.1 would
// refuse one such table in six. A pass whose interval still reaches
// above the threshold says so (Warnings): those rows were too few to show
// the table is below it.
//
// The gate reads private rows: its result is for the owner, never part of
// a published privacy report. A table that passes has shown no advantage
// to these two attacks on these rows; it is not a privacy guarantee (the
// DP report is), and a table that fails is leaking its members to a
// simple attack whatever its report says.
package gate

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/stat/distuv"
)

// ErrRefused is wrapped by Check's error when an attack's advantage
// exceeds the threshold.
var ErrRefused = errors.New("gate: release refused")

// Options configure a check.
type Options struct {
	// Real are the owner's rows the synthetic table was made from; Holdout
	// rows of the same population that the generator never saw;
	// Synthetic the table about to be written. All share one schema.
	Real, Holdout, Synthetic *data.Table
	// MaxAdvantage is the largest advantage the owner accepts (default
	// 0.1); a release is refused when an attack's interval lies above it.
	MaxAdvantage float64
	// Confidence of the reported intervals (default 0.95).
	Confidence float64
	// MaxQueries caps the members and the non-members scored (default
	// 1000 each), drawn at random: DCR costs queries × synthetic rows.
	MaxQueries int
	// Source draws the subsamples (default randx.NewSecure()).
	Source *randx.Source
}

// Attack is one attack's outcome.
type Attack struct {
	Name string `json:"name"`
	// Advantage is 2·AUC − 1; Lower and Upper its confidence interval.
	Advantage float64 `json:"advantage"`
	Lower     float64 `json:"lower"`
	Upper     float64 `json:"upper"`
	// Detail says in plain words what the attack saw.
	Detail string `json:"detail"`
}

// Result is a check's outcome, for the owner's eyes only.
type Result struct {
	Members    int      `json:"members"`
	NonMembers int      `json:"non_members"`
	Attacks    []Attack `json:"attacks"`
	// Advantage is the largest attack's.
	Advantage    float64 `json:"advantage"`
	MaxAdvantage float64 `json:"max_advantage"`
	Confidence   float64 `json:"confidence"`
	Refused      bool    `json:"refused"`
	// Reasons say why a release was refused.
	Reasons []string `json:"reasons,omitempty"`
	// Warnings name the attacks of a pass whose interval reaches above
	// MaxAdvantage.
	Warnings []string `json:"warnings,omitempty"`
}

func (o *Options) defaults() error {
	o.MaxAdvantage = cmp.Or(o.MaxAdvantage, 0.1)
	o.Confidence = cmp.Or(o.Confidence, 0.95)
	o.MaxQueries = cmp.Or(o.MaxQueries, 1000)
	if o.Source == nil {
		o.Source = randx.NewSecure()
	}
	switch {
	case !(o.MaxAdvantage > 0 && o.MaxAdvantage < 1):
		return fmt.Errorf("gate: max advantage must be in (0, 1), got %v", o.MaxAdvantage)
	case !(o.Confidence > 0 && o.Confidence < 1):
		return fmt.Errorf("gate: confidence must be in (0, 1), got %v", o.Confidence)
	case o.MaxQueries < 10:
		return fmt.Errorf("gate: max queries must be at least 10, got %d", o.MaxQueries)
	case o.Real == nil || o.Holdout == nil || o.Synthetic == nil:
		return fmt.Errorf("gate: needs the real, the held-out and the synthetic table")
	case o.Real.Len() < MinMembers || o.Holdout.Len() < MinHoldout || o.Synthetic.Len() < 1:
		return fmt.Errorf("gate: needs at least %d real rows, %d held-out rows and 1 synthetic row, got %d, %d and %d", MinMembers, MinHoldout, o.Real.Len(), o.Holdout.Len(), o.Synthetic.Len())
	}
	for _, t := range []*data.Table{o.Holdout, o.Synthetic} {
		if !t.Schema.EqualAttributes(o.Real.Schema) {
			return fmt.Errorf("gate: the real, held-out and synthetic tables must share one schema's attributes")
		}
	}
	return nil
}

// Check runs the attacks. When an attack's advantage exceeds
// MaxAdvantage (its interval lies above it) it returns the result and an
// error wrapping ErrRefused that says which attack and why.
func Check(o Options) (*Result, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	sp := newSpace(o.Real.Schema)
	// The held-out rows: half are the non-member queries, half the
	// reference sample of the population for the density ratio.
	perm := o.Source.Perm(o.Holdout.Len())
	half := o.Holdout.Len() / 2
	k := min(o.MaxQueries, half, o.Real.Len())
	nonMembers := pick(o.Holdout, perm[:k])
	reference := pick(o.Holdout, perm[half:])
	members := pick(o.Real, o.Source.Perm(o.Real.Len())[:k])
	synth := sp.encodeAll(o.Synthetic)
	res := &Result{Members: k, NonMembers: k, MaxAdvantage: o.MaxAdvantage, Confidence: o.Confidence}
	// Two attacks: each interval at 1 − (1 − confidence)/2 (Bonferroni).
	z := distuv.UnitNormal.Quantile(1 - (1-o.Confidence)/4)
	dcr := dcrAttack(sp, members, nonMembers, synth, z)
	ratio := densityRatioAttack(sp, members, nonMembers, synth, sp.encodeAll(reference), z)
	res.Attacks = []Attack{dcr, ratio}
	for _, a := range res.Attacks {
		res.Advantage = math.Max(res.Advantage, a.Advantage)
		switch {
		case a.Lower > o.MaxAdvantage:
			res.Refused = true
			res.Reasons = append(res.Reasons, fmt.Sprintf("the %s attack tells the owner's rows from held-out rows with advantage %.3f (%g%% interval %.3f to %.3f), above the %.3g the owner accepts: %s",
				a.Name, a.Advantage, 100*o.Confidence, a.Lower, a.Upper, o.MaxAdvantage, a.Detail))
		case a.Upper > o.MaxAdvantage:
			res.Warnings = append(res.Warnings, fmt.Sprintf("the %s attack's advantage %.3f is not shown to exceed %.3g, but its %g%% interval reaches %.3f: %d rows against %d held out are too few to show that it is below (hold out more rows)",
				a.Name, a.Advantage, o.MaxAdvantage, 100*o.Confidence, a.Upper, k, k))
		}
	}
	if res.Refused {
		return res, fmt.Errorf("%w: %s", ErrRefused, strings.Join(res.Reasons, "; "))
	}
	return res, nil
}

func pick(t *data.Table, rows []int) *data.Table {
	return t.Subset(slices.Sorted(slices.Values(rows)))
}

// advantage is 2·AUC − 1 of scores (higher: more likely a member) with
// Hanley & McNeil's interval at normal quantile z, clamped to [−1, 1].
func advantage(name string, member, nonMember []float64, z float64, detail string) Attack {
	auc := aucOf(member, nonMember)
	m, n := float64(len(member)), float64(len(nonMember))
	q1, q2 := auc/(2-auc), 2*auc*auc/(1+auc)
	se := math.Sqrt((auc*(1-auc) + (m-1)*(q1-auc*auc) + (n-1)*(q2-auc*auc)) / (m * n))
	// At AUC = 1 or 0 the formula's variance vanishes; keep the interval
	// honest with the variance of one swapped pair.
	se = math.Max(se, 1/math.Sqrt(m*n))
	return Attack{Name: name, Advantage: 2*auc - 1, Lower: math.Max(-1, 2*(auc-z*se)-1), Upper: math.Min(1, 2*(auc+z*se)-1), Detail: detail}
}

// aucOf is P(member score > non-member score) + ½ P(tie), by ranks.
func aucOf(member, nonMember []float64) float64 {
	type scored struct {
		v      float64
		member bool
	}
	all := make([]scored, 0, len(member)+len(nonMember))
	for _, v := range member {
		all = append(all, scored{v, true})
	}
	for _, v := range nonMember {
		all = append(all, scored{v, false})
	}
	slices.SortFunc(all, func(a, b scored) int { return cmp.Compare(a.v, b.v) })
	rankSum := 0.0
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		mid := float64(i+j+1) / 2 // average 1-based rank of the tie group
		for _, s := range all[i:j] {
			if s.member {
				rankSum += mid
			}
		}
		i = j
	}
	m, n := float64(len(member)), float64(len(nonMember))
	return (rankSum - m*(m+1)/2) / (m * n)
}
