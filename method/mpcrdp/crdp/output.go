package crdp

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/learn"
	"github.com/dppub/dppub/method/mpcrdp/correlation"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// Output is one release over the final features.
type Output struct {
	Kind     Release
	Notion   Notion
	Features []string
	// Factor is the notion's sensitivity factor used.
	Factor float64
	// Encoder encodes the final features (label excluded) in Features
	// order; a model scores rows encoded by it and divided by Scale.
	Encoder *data.Encoder
	Scale   float64
	Model   *learn.LinearModel
	// Queries and their noisy Answers; NoiseScale is each answer's
	// Laplace scale; Skipped counts named queries on other features.
	Queries    []Query
	Answers    []float64
	NoiseScale float64
	Skipped    int
	// Truth and MAE are computed from the real data: for the data
	// owners' eyes only, never published.
	Truth []float64
	MAE   float64
}

// finalSensitivities analyses the final features at w0 and at MCD.
func (p *Pipeline) finalSensitivities() (Sensitivities, error) {
	if p.sensDone {
		return p.res.Sensitivities, nil
	}
	if len(p.res.Final) == 0 {
		return Sensitivities{}, fmt.Errorf("no final features (run the selection first)")
	}
	at0, err := p.analyse(p.res.Final, p.cfg.InitialThreshold)
	if err != nil {
		return Sensitivities{}, err
	}
	atP, err := p.analyse(p.res.Final, p.res.MCD)
	if err != nil {
		return Sensitivities{}, err
	}
	p.res.Sensitivities = Sensitivities{GroupSensitivity: at0.GroupSensitivity, Sensitivity: at0.Sensitivity,
		K: at0.K, Correlated: at0.Correlated, SensitivityP: atP.Sensitivity, KP: atP.K, CorrelatedP: atP.Correlated}
	p.sensDone = true
	return p.res.Sensitivities, nil
}

// Sensitivities returns the final features' correlation analyses.
func (p *Pipeline) Sensitivities() (Sensitivities, error) { return p.finalSensitivities() }

func (p *Pipeline) releaseCharges() ([]privacy.Charge, error) {
	s, err := p.finalSensitivities()
	if err != nil {
		return nil, err
	}
	p.res.Factor = s.Factor(p.cfg.Notion, p.cfg.GroupSize)
	if p.cfg.Calibration == None {
		return nil, nil
	}
	ch, err := p.ReleaseCharge(p.cfg.Release, p.cfg.Notion, p.budget.Release)
	if err != nil {
		return nil, err
	}
	return []privacy.Charge{ch}, nil
}

// ReleaseCharge describes a release of the final features at budget eps
// under a notion.
func (p *Pipeline) ReleaseCharge(kind Release, notion Notion, eps float64) (privacy.Charge, error) {
	s, err := p.finalSensitivities()
	if err != nil {
		return privacy.Charge{}, err
	}
	factor := s.Factor(notion, p.cfg.GroupSize)
	ch := privacy.Charge{Calibration: string(p.cfg.Calibration)}
	switch kind {
	case Queries:
		q := p.numQueries()
		scale := QueryScale(p.cfg.Calibration, q, p.featureSets(), factor, eps)
		ch.Purpose = fmt.Sprintf("release: %d count queries over the %d final features", q, len(p.res.Final))
		ch.Spec = dp.Spec{Mechanism: "laplace", Norm: "L1", Sensitivity: scale * eps, Scale: scale, Guarantee: dp.Pure(eps)}
		if p.cfg.Calibration == Paper && q > 1 {
			actual := dp.Pure(float64(q) * eps)
			ch.Actual = &actual
			ch.Note = "the paper's Lap(2ΔCS_p/ε2) per query (Eq. 22) covers one query; the answers to Q queries compose to Q·ε2/2"
		} else {
			ch.Note = fmt.Sprintf("L1 sensitivity of the distinct answers: min(Q = %d queries, 2 × %d feature sets) × factor (mpcrdp.QuerySensitivity)", q, p.featureSets())
		}
	case LogReg:
		ch.Purpose = fmt.Sprintf("release: logistic regression by the functional mechanism on the %d final features", len(p.res.Final))
		ch.Spec = p.fmOptions(factor, eps).Spec()
		ch.Note = fmt.Sprintf("Taylor coefficients of one record have L1 norm ≤ s/2 + s²/8 with s = %d features + bias", len(p.res.Final))
	case SVM:
		ch.Purpose = fmt.Sprintf("release: SVM by objective perturbation on the %d final features", len(p.res.Final))
		ch.Spec = dp.Spec{Mechanism: "objective perturbation (Chaudhuri et al. 2011, Huber hinge)", Norm: "group size",
			Sensitivity: factor, Guarantee: dp.Pure(eps)}
		ch.Note = fmt.Sprintf("run at ε/%g: by group privacy a group of weight %g is protected at ε", factor, factor)
	default:
		return ch, fmt.Errorf("no release %q", kind)
	}
	if notion.DataDependent(p.cfg.GroupSize) {
		ch.Note += fmt.Sprintf("; sensitivity factor %g (%s) computed from the data without noise: NOT standard DP", factor, notion)
	}
	return ch, nil
}

// featureSets bounds the distinct feature sets the queries fix (public:
// the named queries, or every set of 1–3 final features).
func (p *Pipeline) featureSets() int {
	if p.querySet == nil {
		return GeneratedFeatureSets(len(p.res.Final))
	}
	sets := map[string]bool{}
	for _, q := range p.querySet {
		names := make([]string, len(q))
		for i, c := range q {
			names[i] = c.Feature
		}
		slices.Sort(names)
		sets[fmt.Sprint(names)] = true
	}
	return len(sets)
}

func (p *Pipeline) numQueries() int {
	if p.querySet != nil {
		return len(p.querySet)
	}
	return p.cfg.NumQueries
}

func (p *Pipeline) fmOptions(factor, eps float64) FMOptions {
	return FMOptions{Epsilon: eps, Factor: factor, RowL1: float64(len(p.res.Final)), Ridge: p.cfg.Ridge}
}

func (p *Pipeline) release() error {
	out, err := p.ReleaseAs(p.cfg.Release, p.cfg.Notion, p.budget.Release, p.src)
	p.res.Output = out
	return err
}

// ReleaseAs releases the final features as kind under notion at budget eps
// (ignored for calibration none, which releases without noise). The
// pipeline's own release step calls it with the configured release; an
// experiment may call it for others, at its own (uncharged) cost.
func (p *Pipeline) ReleaseAs(kind Release, notion Notion, eps float64, src *randx.Source) (*Output, error) {
	s, err := p.finalSensitivities()
	if err != nil {
		return nil, err
	}
	out := &Output{Kind: kind, Notion: notion, Features: slices.Clone(p.res.Final), Factor: s.Factor(notion, p.cfg.GroupSize), Scale: 1}
	exact := p.cfg.Calibration == None
	switch kind {
	case Queries:
		return out, p.answer(out, eps, exact, src)
	case LogReg, SVM:
		enc, X, err := EncodeFeatures(p.table, out.Features)
		if err != nil {
			return nil, err
		}
		out.Encoder = enc
		if kind == SVM {
			out.Scale = math.Sqrt(float64(len(out.Features)))
			X.Scale(1/out.Scale, X)
			out.Model, err = p.svm(X, out.Factor, eps, exact, src)
		} else {
			out.Model, err = p.logreg(X, out.Factor, eps, exact, src)
		}
		return out, err
	}
	return nil, fmt.Errorf("no release %q", kind)
}

func (p *Pipeline) logreg(X *mat.Dense, factor, eps float64, exact bool, src *randx.Source) (*learn.LinearModel, error) {
	if exact {
		c, err := learn.TrainLogReg(X, p.y, 2, learn.DefaultLogRegOptions())
		if err != nil {
			return nil, err
		}
		return c.Models[0], nil
	}
	return FitFM(X, p.y, p.fmOptions(factor, eps), src)
}

func (p *Pipeline) svm(X *mat.Dense, factor, eps float64, exact bool, src *randx.Source) (*learn.LinearModel, error) {
	if exact {
		c, err := learn.TrainSVM(X, p.y, 2, learn.DefaultSVMOptions(), src)
		if err != nil {
			return nil, err
		}
		return c.Models[0], nil
	}
	return TrainSVM(X, p.y, SVMOptions{Epsilon: eps, Factor: factor, Lambda: p.cfg.SVMLambda, Huber: p.cfg.Huber}, src)
}

// answer counts the queries over the final features and adds the noise.
func (p *Pipeline) answer(out *Output, eps float64, exact bool, src *randx.Source) error {
	codes, err := p.codes.Select(out.Features...)
	if err != nil {
		return err
	}
	levels := codes.Levels()
	if p.querySet == nil {
		out.Queries = GenerateQueries(levels, p.cfg.NumQueries, src)
	} else if out.Queries, out.Skipped, err = p.resolve(out.Features); err != nil {
		return err
	}
	rows := make([][]uint32, codes.Len())
	for i := range rows {
		rows[i] = codes.Row(i)
	}
	if out.Truth, err = CountQueries(rows, levels, out.Queries); err != nil {
		return err
	}
	out.Answers = slices.Clone(out.Truth)
	if !exact {
		// The sensitivity counts every query of the set, answered or skipped.
		l1 := QuerySensitivity(p.cfg.Calibration, p.numQueries(), p.featureSets(), out.Factor)
		out.NoiseScale = l1 / eps
		out.Answers = ReleaseAnswers(out.Queries, out.Truth, l1, eps, dp.NewNoiser(src))
	}
	if len(out.Answers) > 0 {
		out.MAE = MAE(out.Answers, out.Truth)
	}
	return nil
}

// resolve maps named queries onto the final features; queries naming
// another feature are skipped and counted.
func (p *Pipeline) resolve(features []string) ([]Query, int, error) {
	var out []Query
	skipped := 0
next:
	for q, nq := range p.querySet {
		query := make(Query, 0, len(nq))
		for _, c := range nq {
			f := slices.Index(features, c.Feature)
			if f < 0 {
				skipped++
				continue next
			}
			a, err := p.table.Schema.Attribute(c.Feature)
			if err != nil {
				return nil, 0, err
			}
			code, err := codeOf(a, c.Value, p.cfg.Bins)
			if err != nil {
				return nil, 0, fmt.Errorf("query %d: %w", q+1, err)
			}
			query = append(query, Condition{Feature: f, Code: code})
		}
		out = append(out, query)
	}
	return out, skipped, nil
}

func codeOf(a data.Attribute, value string, bins int) (uint32, error) {
	if a.Kind != data.Numeric {
		k, err := a.CategoryIndex(value)
		return uint32(max(k, 0)), err
	}
	v, err := strconv.ParseFloat(value, 64)
	if err != nil || math.IsNaN(v) {
		return 0, fmt.Errorf("value %q of numeric feature %q is not a number", value, a.Name)
	}
	_, coder := correlation.Coder(a, bins)
	return coder(v), nil
}
