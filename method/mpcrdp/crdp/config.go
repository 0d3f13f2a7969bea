package crdp

import (
	"cmp"
	"fmt"
	"math"

	"github.com/dppub/dppub/dp"
)

// Calibration chooses how the feature-selection steps are privatised
// (dp's shared vocabulary).
type Calibration = dp.Calibration

const (
	// Sound: DP stability selection (disjoint blocks + Laplace), Pearson
	// and NMI from Laplace-noised sufficient statistics with proven
	// sensitivities, Δu1 from the entropy bound, Δu2 = 1, count queries
	// noised for the whole query set. The default.
	Sound = dp.CalibrationSound
	// Paper: the paper's Algorithm 1 and 2 as written: no noise in the
	// cleaning and stability selection, Laplace(1/ε1) per coefficient,
	// Δu1 = log₂C, Δu2 = 1/K, Laplace(2Δ/ε2) per query.
	Paper = dp.CalibrationPaper
	// None runs every step without noise (the evaluation's non-private
	// baselines); it spends nothing and guarantees nothing.
	None = dp.CalibrationNone
)

// ParseCalibration checks a calibration name.
func ParseCalibration(s string) (Calibration, error) {
	return dp.NewWords("calibration", Sound, Paper, None).In("mpcrdp").Parse(s)
}

// Notion is the privacy notion the release noise is scaled for.
type Notion string

const (
	// Standard is record-level DP: sensitivity factor 1.
	Standard Notion = "standard"
	// Group is group DP: factor ΔGS, the largest correlated group.
	Group Notion = "group"
	// Correlated is Zhu et al.'s correlated DP: factor ΔCS at w0.
	Correlated Notion = "correlated"
	// MPCRDP is the paper's: factor ΔCS_p at w0 = MCD.
	MPCRDP Notion = "mp-crdp"
)

// Notions lists every notion.
var Notions = []Notion{Standard, Group, Correlated, MPCRDP}

// ParseNotion checks a notion name.
func ParseNotion(s string) (Notion, error) {
	return dp.NewWords("notion", Notions...).In("mpcrdp").Parse(s)
}

// DataDependent reports whether the notion's factor is computed from the
// private data (so the release is not standard DP).
func (n Notion) DataDependent(groupBound int) bool {
	return n == Correlated || n == MPCRDP || (n == Group && groupBound == 0)
}

// Guarantee says in words what a release at budget ε under the notion
// guarantees; factor is its sensitivity factor.
func (n Notion) Guarantee(eps, factor float64, groupBound int) string {
	switch n {
	case Standard:
		return fmt.Sprintf("standard ε-DP with ε = %g per record (replace one record); a group of k correlated records is protected only at k·ε (group privacy)", eps)
	case Group:
		if groupBound > 0 {
			return fmt.Sprintf("group DP: ε = %g for any group of up to %d records (declared public bound; by group privacy the mechanism is ε/%d-DP per record)", eps, groupBound, groupBound)
		}
		return fmt.Sprintf("group DP against the correlation found in the data: noise scaled to ΔGS = %g, the largest correlated group, so such a group is protected at ε = %g IF the correlations found are the true ones; ΔGS is computed from the data without noise, so this is NOT standard DP (declare --group-size for a data-independent bound)", factor, eps)
	case Correlated:
		return fmt.Sprintf("correlated DP (Zhu et al. 2015) with ε = %g and correlated sensitivity ΔCS = %g computed from the data at w0: a data-dependent calibration, NOT standard DP; ΔCS itself is revealed by the noise scale", eps, factor)
	case MPCRDP:
		return fmt.Sprintf("MP-CRDP correlated DP (the paper) with ε = %g and multiparty correlated sensitivity ΔCS_p = %g computed from the data at w0 = MCD: a data-dependent calibration, NOT standard DP; ΔCS_p and MCD are revealed by the noise scale", eps, factor)
	}
	return "unknown notion"
}

// Utility is MP-OP's utility function.
type Utility string

const (
	// U1 is the candidates' information gain with the label (Eq. 17).
	U1 Utility = "u1"
	// U2 is MCD/ΔCS_p of β ∪ candidate (Eq. 18).
	U2 Utility = "u2"
)

// ParseUtility checks a utility name.
func ParseUtility(s string) (Utility, error) {
	return dp.NewWords("utility", U1, U2).In("mpcrdp").Parse(s)
}

// Release is what the pipeline publishes.
type Release string

const (
	// Queries answers count queries.
	Queries Release = "queries"
	// LogReg trains logistic regression by the functional mechanism.
	LogReg Release = "logreg"
	// SVM trains an SVM by objective perturbation.
	SVM Release = "svm"
	// NoRelease stops after feature selection (for experiments that
	// release several ways from one selection; their cost is not charged).
	NoRelease Release = "none"
)

// ParseRelease checks a release name.
func ParseRelease(s string) (Release, error) {
	return dp.NewWords("release", Queries, LogReg, SVM, NoRelease).In("mpcrdp").Parse(s)
}

// Defaults of Config (the paper's §6.1 where it gives them).
const (
	DefaultInitialThreshold    = 0.9
	DefaultImportanceThreshold = 0.6
	DefaultPearsonThreshold    = 0.9
	DefaultFeatureShare        = 0.5
	DefaultMaxDominantShare    = 0.99
	DefaultRuns                = 20
	DefaultLambdaRatio         = 0.1
	DefaultQueries             = 10000
)

// Config holds the public parameters of one MP-CRDP run.
type Config struct {
	// Epsilon is the whole budget ε = ε1 + ε2/2 + ε2/2.
	Epsilon float64 `json:"epsilon" help:"whole budget ε = ε1 + ε2/2 + ε2/2"`
	// FeatureShare is ε1/ε (default 0.5).
	FeatureShare float64     `json:"feature_share,omitempty" help:"ε1/ε, the feature-selection share"`
	Calibration  Calibration `json:"calibration,omitempty" help:"sound | paper"` // default Sound
	// Notion defaults to Standard (record-level DP): the correlated
	// notions, the paper's MPCRDP among them, scale the release noise to a
	// sensitivity computed from the data and must be asked for explicitly.
	Notion  Notion  `json:"notion,omitempty" help:"standard | group | correlated | mp-crdp (all but standard, and group without --group-size, are NOT standard DP)"`
	Utility Utility `json:"utility,omitempty" help:"u1 (information gain) | u2 (MCD/ΔCS_p)"` // default U2
	Release Release `json:"release,omitempty" help:"logreg | svm | queries"`                 // default LogReg
	// InitialThreshold is w0 of the parties' analyses and of the
	// correlated notion (default 0.9).
	InitialThreshold float64 `json:"w0,omitempty" help:"initial correlation threshold w0"`
	// ImportanceThreshold is θ_im (default 0.6), PearsonThreshold θ_per
	// (default 0.9).
	ImportanceThreshold float64 `json:"importance_threshold,omitempty" help:"importance threshold θ_im"`
	PearsonThreshold    float64 `json:"pearson_threshold,omitempty" help:"Pearson threshold θ_per"`
	// B is the adjustment coefficient b, the size of a candidate group
	// (the paper: 2 for Adult, 4 for breast cancer). Required.
	B int `json:"b,omitempty" help:"adjustment coefficient b, features per candidate group (default: 2; 4 for --dataset wdbc)"`
	// MaxDominantShare drops, in the paper calibration, features whose
	// most frequent value covers at least this share (default 0.99).
	MaxDominantShare float64 `json:"max_dominant_share,omitempty" help:"paper calibration: drop features whose most frequent value covers this share"`
	// Runs is the number of stability-selection runs (default 20);
	// LambdaRatio the L1 penalty as a fraction of the smallest penalty
	// that selects nothing (default 0.1).
	Runs        int     `json:"runs,omitempty" help:"stability-selection runs"`
	LambdaRatio float64 `json:"lambda_ratio,omitempty" help:"L1 penalty of stability selection, as a fraction of the smallest that selects nothing"`
	// Bins is the number of equal-width bins of numeric features for the
	// correlation analysis, entropies and queries (default 10).
	Bins int `json:"bins,omitempty" help:"equal-width bins of numeric features (correlation, entropies, queries)"`
	// GroupSize > 0 is a declared public bound on correlated groups used
	// by the group notion instead of the measured ΔGS.
	GroupSize int `json:"group_size,omitempty" sign:"nonneg" help:"group notion: declared public bound on correlated groups (0: measured ΔGS, data-dependent)"`
	// NumQueries is the number of generated count queries (default 10000)
	// when no query set is given.
	NumQueries int `json:"num_queries,omitempty" help:"number of random count queries when no --queries file is given"`
	// SVMLambda is the SVM's regulariser on the mean loss (default 0:
	// resolved from n and ε, see SVMOptions);
	// Huber its smoothing (default 0.5). Ridge is the FM-regression ridge
	// per record (default 1e-3).
	SVMLambda float64 `json:"svm_lambda,omitempty" sign:"nonneg" help:"SVM regulariser (0: resolved from n and ε)"`
	Huber     float64 `json:"huber,omitempty" help:"Huber smoothing of the SVM loss"`
	Ridge     float64 `json:"ridge,omitempty" help:"FM-regression ridge per record"`
}

func (c *Config) defaults() {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.FeatureShare, DefaultFeatureShare)
	def(&c.InitialThreshold, DefaultInitialThreshold)
	def(&c.ImportanceThreshold, DefaultImportanceThreshold)
	def(&c.PearsonThreshold, DefaultPearsonThreshold)
	def(&c.MaxDominantShare, DefaultMaxDominantShare)
	def(&c.LambdaRatio, DefaultLambdaRatio)
	def(&c.Huber, 0.5)
	def(&c.Ridge, 1e-3)
	c.Calibration = cmp.Or(c.Calibration, Sound)
	c.Notion = cmp.Or(c.Notion, Standard)
	c.Utility = cmp.Or(c.Utility, U2)
	c.Release = cmp.Or(c.Release, LogReg)
	c.Runs = cmp.Or(c.Runs, DefaultRuns)
	c.Bins = cmp.Or(c.Bins, 10)
	c.NumQueries = cmp.Or(c.NumQueries, DefaultQueries)
}

// Validate fills the defaults and checks every parameter.
func (c *Config) Validate() error {
	c.defaults()
	unit := func(name string, v float64, closed bool) error {
		if !(v > 0 && (v < 1 || closed && v == 1)) {
			return fmt.Errorf("mpcrdp: %s = %v outside (0, 1)", name, v)
		}
		return nil
	}
	if c.Calibration != None && (!(c.Epsilon > 0) || math.IsInf(c.Epsilon, 0)) {
		return fmt.Errorf("mpcrdp: ε = %v must be positive and finite", c.Epsilon)
	}
	for _, chk := range []error{
		unit("feature share ε1/ε", c.FeatureShare, false),
		unit("initial threshold w0", c.InitialThreshold, true),
		unit("importance threshold θ_im", c.ImportanceThreshold, true),
		unit("Pearson threshold θ_per", c.PearsonThreshold, true),
		unit("maximum dominant share", c.MaxDominantShare, true),
		unit("lambda ratio", c.LambdaRatio, false),
	} {
		if chk != nil {
			return chk
		}
	}
	if _, err := ParseCalibration(string(c.Calibration)); err != nil {
		return err
	}
	if _, err := ParseNotion(string(c.Notion)); err != nil {
		return err
	}
	if _, err := ParseUtility(string(c.Utility)); err != nil {
		return err
	}
	if _, err := ParseRelease(string(c.Release)); err != nil {
		return err
	}
	switch {
	case c.B < 1:
		return fmt.Errorf("mpcrdp: adjustment coefficient b = %d must be at least 1", c.B)
	case c.Runs < 2:
		return fmt.Errorf("mpcrdp: %d stability-selection runs, need at least 2", c.Runs)
	case c.Bins < 2 || c.Bins > 1<<16:
		return fmt.Errorf("mpcrdp: %d bins, want 2 to 65536", c.Bins)
	case c.GroupSize < 0:
		return fmt.Errorf("mpcrdp: group size bound %d is negative", c.GroupSize)
	case c.NumQueries < 1:
		return fmt.Errorf("mpcrdp: %d queries", c.NumQueries)
	case c.SVMLambda < 0 || !(c.Huber > 0) || !(c.Ridge > 0):
		return fmt.Errorf("mpcrdp: SVM λ = %v, Huber h = %v, ridge = %v must be positive", c.SVMLambda, c.Huber, c.Ridge)
	}
	return nil
}

// Budget is the split of ε over MP-CRDP's noisy steps.
type Budget struct {
	// StabilityPerParty is each party's stability-selection budget
	// (sound: ε1/(2N); paper and none: 0).
	StabilityPerParty float64
	// Pairs is the budget of the redundancy step (sound ε1/2, paper ε1).
	Pairs float64
	// Selection and Release are ε2/2 each.
	Selection, Release float64
}

// Split divides the budget among the steps for N parties.
func (c Config) Split(parties int) Budget {
	if c.Calibration == None {
		return Budget{}
	}
	e1 := c.FeatureShare * c.Epsilon
	half := (c.Epsilon - e1) / 2
	b := Budget{Pairs: e1, Selection: half, Release: half}
	if c.Calibration == Sound {
		b.Pairs = e1 / 2
		b.StabilityPerParty = e1 / 2 / float64(parties)
	}
	return b
}
