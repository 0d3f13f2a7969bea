package mullda

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/dppub/dppub/learn"
	"github.com/dppub/dppub/model"
	"gonum.org/v1/gonum/mat"
)

// ReadModelFile decodes a published LDA model file (<out>.model.json).
func ReadModelFile(r io.Reader) (*ModelFile, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var f ModelFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("lda model: decode: %w", err)
	}
	return &f, nil
}

// Classifier turns the published model into the classifier `dppub
// predict` applies: rows are encoded and scaled to unit L2 norm as in the
// publication, projected on the directions (z = Wᵀx), and classified by
// the published class-conditional Gaussian model of the projections —
// projected class means μ_c, the shared projected covariance Σ, and the
// class counts n_c as priors:
//
//	score_c(z) = μ_cᵀΣ⁻¹z − ½ μ_cᵀΣ⁻¹μ_c + log(n_c / Σ n),
//
// the highest score wins (two classes: one scorer, the difference). Noisy
// counts below 1 count as 1. Everything used is in the file, so this is
// post-processing of the DP release.
func (f *ModelFile) Classifier() (*model.Model, error) {
	if len(f.Schema.Attributes) == 0 || f.Label == "" {
		return nil, fmt.Errorf("lda model: the file has no schema or label (written by a dppub before they were published); publish again")
	}
	W, err := f.directions()
	if err != nil {
		return nil, err
	}
	clf, err := f.discriminant()
	if err != nil {
		return nil, err
	}
	var features []string
	for _, name := range f.Schema.Names() {
		if name != f.Label {
			features = append(features, name)
		}
	}
	m, err := model.New(model.Options{Method: f.Method, Schema: f.Schema, Label: f.Label, Features: features,
		Positive: f.Positive, Classes: f.Classes, NormalizeL2: true, Components: W, Classifier: clf,
		Loss: "none: Gaussian discriminant of the DP projected class model"})
	if err != nil {
		return nil, fmt.Errorf("lda model: %w", err)
	}
	if !slices.Equal(m.Preprocess.Columns, f.Features) {
		return nil, fmt.Errorf("lda model: the schema encodes to columns %q, the directions are over %q", m.Preprocess.Columns, f.Features)
	}
	return m, nil
}

// directions returns W (p×d, one direction per column).
func (f *ModelFile) directions() (*mat.Dense, error) {
	d, p := len(f.Directions), len(f.Features)
	if d == 0 || p == 0 {
		return nil, fmt.Errorf("lda model: %d directions over %d features", d, p)
	}
	W := mat.NewDense(p, d, nil)
	for k, v := range f.Directions {
		if len(v) != p {
			return nil, fmt.Errorf("lda model: direction %d has %d values for %d features", k, len(v), p)
		}
		W.SetCol(k, v)
	}
	return W, nil
}

// discriminant builds the per-class linear scores over the projections.
func (f *ModelFile) discriminant() (*learn.Classifier, error) {
	classes, d := len(f.Classes), len(f.Directions)
	if len(f.ProjectedMeans) != classes || len(f.ClassCounts) != classes {
		return nil, fmt.Errorf("lda model: %d classes, %d projected means, %d counts", classes, len(f.ProjectedMeans), len(f.ClassCounts))
	}
	chol, err := f.covariance(d)
	if err != nil {
		return nil, err
	}
	total := 0.0
	for _, n := range f.ClassCounts {
		total += math.Max(n, 1)
	}
	models := make([]*learn.LinearModel, classes)
	for c, mu := range f.ProjectedMeans {
		if len(mu) != d {
			return nil, fmt.Errorf("lda model: projected mean %d has %d values for %d directions", c, len(mu), d)
		}
		var a mat.VecDense
		if err := chol.SolveVecTo(&a, mat.NewVecDense(d, mu)); err != nil {
			return nil, fmt.Errorf("lda model: %w", err)
		}
		w := a.RawVector().Data
		models[c] = &learn.LinearModel{W: w, B: -mat.Dot(&a, mat.NewVecDense(d, mu))/2 + math.Log(math.Max(f.ClassCounts[c], 1)/total)}
	}
	if classes == 2 {
		w := make([]float64, d)
		for j := range w {
			w[j] = models[1].W[j] - models[0].W[j]
		}
		models = []*learn.LinearModel{{W: w, B: models[1].B - models[0].B}}
	}
	return &learn.Classifier{Classes: classes, Models: models}, nil
}

// covariance factorises the published projected covariance, with a
// relative ridge of 1e-9 of its mean variance so that a rank-deficient
// one still has an inverse.
func (f *ModelFile) covariance(d int) (*mat.Cholesky, error) {
	if len(f.ProjectedCovariance) != d {
		return nil, fmt.Errorf("lda model: a projected covariance of %d rows for %d directions", len(f.ProjectedCovariance), d)
	}
	S := mat.NewSymDense(d, nil)
	trace := 0.0
	for i, row := range f.ProjectedCovariance {
		if len(row) != d {
			return nil, fmt.Errorf("lda model: projected covariance row %d has %d values, want %d", i, len(row), d)
		}
		for j := i; j < d; j++ {
			S.SetSym(i, j, (row[j]+f.ProjectedCovariance[j][i])/2)
		}
		trace += row[i]
	}
	if !(trace > 0) || math.IsInf(trace, 0) {
		return nil, fmt.Errorf("lda model: the projected covariance has trace %v; it cannot classify", trace)
	}
	for i := range d {
		S.SetSym(i, i, S.At(i, i)+1e-9*trace/float64(d))
	}
	var chol mat.Cholesky
	if !chol.Factorize(S) {
		return nil, fmt.Errorf("lda model: the projected covariance is not positive definite")
	}
	return &chol, nil
}
