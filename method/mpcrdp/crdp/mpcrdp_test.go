package crdp

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/learn"
	"github.com/dppub/dppub/method/methodtest"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

func TestSplitSumsToEpsilon(t *testing.T) {
	for _, cal := range []Calibration{Sound, Paper} {
		c := Config{Epsilon: 2, B: 2, Calibration: cal, FeatureShare: 0.4}
		if err := c.Validate(); err != nil {
			t.Fatal(err)
		}
		b := c.Split(3)
		total := 3*b.StabilityPerParty + b.Pairs + b.Selection + b.Release
		if math.Abs(total-2) > 1e-12 || b.Selection != b.Release || math.Abs(b.Release-0.6) > 1e-12 {
			t.Errorf("%s: split %+v sums to %v, want 2 with ε2/2 = 0.6 twice", cal, b, total)
		}
		if (cal == Paper) != (b.StabilityPerParty == 0) {
			t.Errorf("%s: stability budget %v", cal, b.StabilityPerParty)
		}
	}
	if (Config{Calibration: None}).Split(3) != (Budget{}) {
		t.Error("calibration none spends budget")
	}
}

func TestConfigRejects(t *testing.T) {
	for _, c := range []Config{
		{Epsilon: 1},                            // no b
		{Epsilon: 0, B: 2},                      // no budget
		{Epsilon: 1, B: 2, FeatureShare: 1},     // nothing left for ε2
		{Epsilon: 1, B: 2, Notion: "weird"},     // unknown notion
		{Epsilon: 1, B: 2, InitialThreshold: 2}, // w0 > 1
		{Epsilon: 1, B: 2, Runs: 1},
		{Epsilon: math.Inf(1), B: 2},
	} {
		if err := c.Validate(); err == nil {
			t.Errorf("config %+v accepted", c)
		}
	}
}

// TestEntropySensitivityHolds replaces one record of many small random
// datasets in every possible way and checks that no entropy or information
// gain moves more than the proven bounds. Deterministic: it fails only if
// the bound is wrong.
func TestEntropySensitivityHolds(t *testing.T) {
	src := randx.NewSeeded(5)
	worstH, worstIG := 0.0, 0.0
	for trial := 0; trial < 200; trial++ {
		n := 2 + src.IntN(12)
		levels := 2 + src.IntN(4)
		x := column{codes: make([]uint32, n), levels: levels}
		y := column{codes: make([]uint32, n), levels: 2}
		for i := range n {
			// Skewed draws make small counts, where h(c+1) − h(c) is extreme.
			x.codes[i] = uint32(src.IntN(1 + src.IntN(levels)))
			y.codes[i] = uint32(src.IntN(2))
		}
		h0, ig0 := x.entropy(), infoGain(y, x)
		i := src.IntN(n)
		for v := range levels {
			for c := range 2 {
				x2 := column{codes: slices.Clone(x.codes), levels: levels}
				y2 := column{codes: slices.Clone(y.codes), levels: 2}
				x2.codes[i], y2.codes[i] = uint32(v), uint32(c)
				worstH = math.Max(worstH, math.Abs(x2.entropy()-h0)/EntropySensitivity(n))
				worstIG = math.Max(worstIG, math.Abs(infoGain(y2, x2)-ig0)/InfoGainSensitivity(n, 2))
			}
		}
	}
	if worstH > 1+1e-12 || worstIG > 1+1e-12 {
		t.Fatalf("a replacement moved an entropy by %.3f× and an information gain by %.3f× their bounds", worstH, worstIG)
	}
	if worstH < 0.3 {
		t.Errorf("entropy bound never approached (%.3f×): the test is not probing it", worstH)
	}
}

func TestPearsonFromMoments(t *testing.T) {
	src := randx.NewSeeded(2)
	n := 200
	feats := make([]pairFeature, 3)
	for f := range feats {
		feats[f] = pairFeature{name: fmt.Sprint(f), numeric: true, unit: make([]float64, n), col: column{codes: make([]uint32, n), levels: 1}}
	}
	for i := range n {
		a := src.Float64()
		feats[0].unit[i] = a
		feats[1].unit[i] = 0.5*a + 0.5*src.Float64()
		feats[2].unit[i] = 1 - a
	}
	plan := newRedundancyPlan(feats, None, 0)
	coef := plan.coefficients(None, 0, nil)
	want := []float64{stat.Correlation(feats[0].unit, feats[1].unit, nil),
		stat.Correlation(feats[0].unit, feats[2].unit, nil), stat.Correlation(feats[1].unit, feats[2].unit, nil)}
	for k, w := range want {
		if math.Abs(coef[k]-w) > 1e-9 {
			t.Errorf("pair %v: %v, want %v", plan.pairs[k], coef[k], w)
		}
	}
	if math.Abs(coef[1]+1) > 1e-9 {
		t.Errorf("x and 1−x correlate at %v, want −1", coef[1])
	}
	ch := newRedundancyPlan(feats, Sound, 0.5).charges(Sound, 0.5, n)
	if len(ch) != 1 || ch[0].Spec.Sensitivity != 9 || ch[0].Spec.Guarantee.Epsilon != 0.5 {
		t.Errorf("charges %+v, want one of sensitivity 3 + 6 at ε = 0.5", ch)
	}
	paper := plan.charges(Paper, 0.5, n)
	if len(paper) != 1 || paper[0].Actual == nil || paper[0].Actual.Epsilon != 3 {
		t.Errorf("paper charges %+v, want an actual ε of 2·3·0.5 = 3", paper)
	}
}

func TestNMIDetectsRedundantCategoricals(t *testing.T) {
	adult := methodtest.Table(t, "adult")
	tab := adult.Subset(randx.NewSeeded(1).Perm(adult.Len())[:5000])
	p := &Pipeline{table: tab}
	var cols []column
	for _, f := range []string{"education", "education-num", "race"} {
		var err error
		p.codes, err = discretizeForTest(tab, []string{"education", "education-num", "race"})
		if err != nil {
			t.Fatal(err)
		}
		cols = append(cols, p.column(f))
	}
	eduNum := nmi(cols[0].entropy(), cols[1].entropy(), jointEntropy(cols[0], cols[1]))
	eduRace := nmi(cols[0].entropy(), cols[2].entropy(), jointEntropy(cols[0], cols[2]))
	if math.Abs(eduNum-1) > 1e-9 || eduRace > 0.1 {
		t.Errorf("NMI(education, education-num) = %v (want 1: a relabelling), NMI(education, race) = %v (want small)", eduNum, eduRace)
	}
}

func TestL1LogisticSelectsTheSignal(t *testing.T) {
	src := randx.NewSeeded(4)
	n, d := 2000, 5
	X := mat.NewDense(n, d, nil)
	y := make([]int, n)
	for i := range n {
		for j := range d {
			X.Set(i, j, src.Float64())
		}
		if X.At(i, 0)+0.1*src.NormFloat64() > 0.5 {
			y[i] = 1
		}
	}
	S := NewSparse(X, nil, []int{0, 1, 2, 3, 4})
	lmax := LambdaMax(S, y)
	w, _, err := FitL1Logistic(S, y, L1Options{Lambda: 1.001 * lmax, MaxIter: 500})
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(w, func(v float64) bool { return v != 0 }) {
		t.Errorf("at λ just above λ_max the weights are %v, want all zero", w)
	}
	w, _, err = FitL1Logistic(S, y, L1Options{Lambda: 0.2 * lmax, MaxIter: 500})
	if err != nil {
		t.Fatal(err)
	}
	if !(w[0] > 1) || slices.ContainsFunc(w[1:], func(v float64) bool { return v != 0 }) {
		t.Errorf("at 0.2·λ_max the weights are %v, want only the first (positive)", w)
	}
}

// TestFMSensitivityBound checks on random one-hot-style rows that one
// record's Taylor coefficients have L1 norm at most s/2 + s²/8.
func TestFMSensitivityBound(t *testing.T) {
	src := randx.NewSeeded(9)
	for trial := 0; trial < 500; trial++ {
		attrs := 1 + src.IntN(6)
		var x []float64
		for range attrs {
			if src.IntN(2) == 0 {
				x = append(x, src.Float64()) // numeric
			} else {
				g := make([]float64, 2+src.IntN(4))
				g[src.IntN(len(g))] = 1
				x = append(x, g...)
			}
		}
		x = append(x, 1) // bias
		s := float64(attrs + 1)
		l1 := 0.0
		for j, v := range x {
			l1 += 0.5 * v
			for k := j; k < len(x); k++ {
				m := v * x[k] / 8
				if k != j {
					m *= 2
				}
				l1 += m
			}
		}
		if 2*l1 > FMSensitivity(s)+1e-9 {
			t.Fatalf("row %v: 2·L1 = %v exceeds s + s²/4 = %v", x, 2*l1, FMSensitivity(s))
		}
	}
}

func TestFMMatchesLogisticRegression(t *testing.T) {
	w, parties, _ := wdbcParties(t)
	_, X, err := EncodeFeatures(w, parties[2].Features)
	if err != nil {
		t.Fatal(err)
	}
	y := labelsOf(t, w, "diagnosis")
	lr, err := learn.TrainLogReg(X, y, 2, learn.DefaultLogRegOptions())
	if err != nil {
		t.Fatal(err)
	}
	exact, err := FitFM(X, y, FMOptions{Factor: 1, RowL1: 10, Ridge: 1e-6, Exact: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	huge, err := FitFM(X, y, FMOptions{Epsilon: 1e9, Factor: 1, RowL1: 10, Ridge: 1e-6}, randx.NewSeeded(1))
	if err != nil {
		t.Fatal(err)
	}
	acc := func(m *learn.LinearModel) float64 {
		n, _ := X.Dims()
		pred := make([]int, n)
		for i := range n {
			if m.Score(X.RawRowView(i)) > 0 {
				pred[i] = 1
			}
		}
		return learn.Accuracy(pred, y)
	}
	// The Taylor approximation is a different objective; on WDBC's "worst"
	// features both fit the training rows to within a few percent.
	a0, a1, a2 := acc(lr.Models[0]), acc(exact), acc(huge)
	if a1 < a0-0.05 || math.Abs(a1-a2) > 0.005 || a1 < 0.9 {
		t.Errorf("training accuracy: LR %.4f, FM exact %.4f, FM at ε = 1e9 %.4f", a0, a1, a2)
	}
	if _, err := FitFM(X, y, FMOptions{Epsilon: 1, Factor: 1, RowL1: 5, Ridge: 1e-3}, randx.NewSeeded(1)); err == nil {
		t.Error("rows above the declared L1 bound accepted")
	}
}

func TestCountQueriesAndScale(t *testing.T) {
	src := randx.NewSeeded(3)
	levels := []int{3, 2, 4}
	rows := make([][]uint32, 130) // not a multiple of 64
	for i := range rows {
		rows[i] = []uint32{uint32(src.IntN(3)), uint32(src.IntN(2)), uint32(src.IntN(4))}
	}
	qs := GenerateQueries(levels, 300, src)
	got, err := CountQueries(rows, levels, qs)
	if err != nil {
		t.Fatal(err)
	}
	for q, query := range qs {
		want := 0
		for _, r := range rows {
			if !slices.ContainsFunc(query, func(c Condition) bool { return r[c.Feature] != c.Code }) {
				want++
			}
		}
		if got[q] != float64(want) {
			t.Fatalf("query %v counts %v, want %d", query, got[q], want)
		}
		if len(query) < 1 || len(query) > 3 {
			t.Fatalf("query with %d conditions", len(query))
		}
	}
	for _, c := range []struct {
		name          string
		cal           Calibration
		queries, sets int
		want          float64
	}{
		{"paper: one query's Δ/ε", Paper, 10000, 175, 6},
		{"sound, shared features: 2·sets·Δ/ε", Sound, 10000, 175, 2 * 175 * 3 / 0.5},
		{"sound, few queries: Q·Δ/ε", Sound, 100, 175, 100 * 3 / 0.5},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := QueryScale(c.cal, c.queries, c.sets, 3, 0.5); math.Abs(got-c.want) > 1e-9 {
				t.Errorf("scale %v, want %v", got, c.want)
			}
		})
	}
	if GeneratedFeatureSets(10) != 175 {
		t.Errorf("1–3 of 10 features: %d sets, want 175", GeneratedFeatureSets(10))
	}
}

func TestCandidates(t *testing.T) {
	c, err := Candidates([]string{"a", "b", "c", "d", "e"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(c) != 10 || fmt.Sprint(c[0]) != "[a b]" || fmt.Sprint(c[9]) != "[d e]" || fmt.Sprint(c[4]) != "[b c]" {
		t.Errorf("candidates %v", c)
	}
	if c, _ := Candidates([]string{"a", "b"}, 4); len(c) != 1 || len(c[0]) != 2 {
		t.Errorf("small α gives %v, want one group", c)
	}
	if c, _ := Candidates(nil, 2); c != nil {
		t.Errorf("empty α gives %v", c)
	}
	if UtilitySensitivity(U1, Paper, 2, 10000, 2, 0) != 1 || UtilitySensitivity(U2, Paper, 2, 10000, 2, 50) != 0.02 ||
		UtilitySensitivity(U2, Sound, 2, 10000, 2, 50) != 1 || UtilitySensitivity(U1, Sound, 2, 10000, 2, 0) != 2*InfoGainSensitivity(10000, 2) {
		t.Error("utility sensitivities")
	}
}

// runPipeline runs a pipeline on WDBC, spending through an accountant.
func runPipeline(t *testing.T, c Config) (*Pipeline, *privacy.Accountant) {
	t.Helper()
	w, parties, an := wdbcParties(t)
	p, err := NewPipeline(PipelineOptions{Table: w, Label: "diagnosis", Parties: parties, Analyses: an, Config: c, Source: randx.NewSeeded(11)})
	if err != nil {
		t.Fatal(err)
	}
	acct, err := privacy.NewAccountant(privacy.AccountantOptions{Party: "all", Budget: dp.Pure(c.Epsilon)})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	err = p.RunAll(func(s Step) error {
		names = append(names, s.Name)
		for _, ch := range s.Charges {
			if err := acct.Spend(ch); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Done() {
		t.Fatalf("pipeline not done after steps %v", names)
	}
	return p, acct
}

func TestPipelineSoundSpendsExactlyEpsilon(t *testing.T) {
	p, acct := runPipeline(t, Config{Epsilon: 2, B: 4, Utility: U1, Notion: Standard, Release: LogReg})
	if got := acct.Spent().Epsilon; math.Abs(got-2) > 1e-9 {
		t.Errorf("spent ε = %v, want 2 (charges %+v)", got, acct.Charges())
	}
	r := p.Result()
	if math.Abs(r.MCD-0.9257) > 1e-3 {
		t.Errorf("MCD of WDBC's three parties = %.4f, want ≈ 0.9257", r.MCD)
	}
	all := append(slices.Clone(r.Best), r.Adjusted...)
	slices.Sort(all)
	want := slices.Clone(p.features)
	slices.Sort(want)
	if !slices.Equal(all, want) {
		t.Errorf("β ∪ α = %v, want every feature once", all)
	}
	final := slices.Clone(r.Best)
	if r.Chosen >= 0 {
		final = append(final, r.Candidates[r.Chosen]...)
	}
	if len(final) != len(r.Final) || slices.ContainsFunc(final, func(f string) bool { return !slices.Contains(r.Final, f) }) {
		t.Errorf("final %v is not β %v plus the chosen candidate", r.Final, r.Best)
	}
	if r.Factor != 1 || r.Output == nil || r.Output.Model == nil || len(r.Output.Model.W) != r.Output.Encoder.Dim() {
		t.Errorf("standard release: factor %v, output %+v", r.Factor, r.Output)
	}
	for name, s := range r.Scores {
		if s < 0 || s > 1 {
			t.Errorf("score of %s = %v", name, s)
		}
	}
	s := r.Sensitivities
	if !(s.SensitivityP <= s.Sensitivity && s.Sensitivity <= float64(s.GroupSensitivity) && s.KP <= s.GroupSensitivity) {
		t.Errorf("Theorem 1 and ΔCS ≤ ΔGS violated: %+v", s)
	}
}

func TestPipelinePaperChargesAndNotions(t *testing.T) {
	p, acct := runPipeline(t, Config{Epsilon: 4, B: 4, Utility: U1, Calibration: Paper, Notion: MPCRDP, Release: Queries, NumQueries: 500})
	r := p.Result()
	var actual bool
	for _, ch := range acct.Charges() {
		if ch.Actual != nil {
			actual = true
		}
	}
	if !actual || r.Output == nil || len(r.Output.Answers) != 500 {
		t.Fatalf("paper run: charges %+v, output %+v", acct.Charges(), r.Output)
	}
	if r.Factor != r.Sensitivities.SensitivityP || !(r.Factor >= 1) {
		t.Errorf("mp-crdp factor %v, ΔCS_p %v", r.Factor, r.Sensitivities.SensitivityP)
	}
	// Per-query Laplace(Δ/ε): the MAE of 500 answers is near the scale
	// (mean |Lap(b)| = b; sd b/√500 ≈ 4.5% of it; 5 sd ⇒ false alarm < 1e-6).
	if scale := r.Output.NoiseScale; math.Abs(r.Output.MAE-scale) > 5*scale/math.Sqrt(500) {
		t.Errorf("MAE %v far from the Laplace scale %v", r.Output.MAE, scale)
	}
	for _, n := range Notions {
		ch, err := p.ReleaseCharge(SVM, n, 1)
		if err != nil {
			t.Fatal(err)
		}
		if dep := strings.Contains(ch.Note, "NOT standard DP"); dep != n.DataDependent(0) {
			t.Errorf("notion %s: note %q", n, ch.Note)
		}
	}
}

func TestPipelineStepMisuse(t *testing.T) {
	w, parties, an := wdbcParties(t)
	p, err := NewPipeline(PipelineOptions{Table: w, Label: "diagnosis", Parties: parties, Analyses: an,
		Config: Config{Epsilon: 1, B: 4}, Source: randx.NewSeeded(1)})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Run(); err == nil {
		t.Error("Run before Next accepted")
	}
	if _, err := p.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Next(); err == nil {
		t.Error("Next twice accepted")
	}
	bad := []PipelineOptions{
		{Table: w, Label: "radius_mean", Parties: parties, Analyses: an, Config: Config{Epsilon: 1, B: 4}, Source: randx.NewSeeded(1)},
		{Table: w, Label: "diagnosis", Parties: parties, Analyses: an[:2], Config: Config{Epsilon: 1, B: 4}, Source: randx.NewSeeded(1)},
		{Table: w, Label: "diagnosis", Parties: parties, Analyses: an, Config: Config{Epsilon: 1, B: 4}},
	}
	for i, o := range bad {
		if _, err := NewPipeline(o); err == nil {
			t.Errorf("bad options %d accepted", i)
		}
	}
}

// TestReleaseAnswersSharesNoiseBetweenRepeatedCells: a query asked twice
// (conditions in another order) is one cell, released once; the noise of
// the distinct cells has the Laplace scale l1/ε (mean |noise| = b; with
// 4000 cells its sd is b/√4000 ≈ 1.6% of b, 8% is 5 sd: false rejection
// < 1e-6).
func TestReleaseAnswersSharesNoiseBetweenRepeatedCells(t *testing.T) {
	qs := []Query{{{Feature: 0, Code: 1}, {Feature: 2, Code: 0}}, {{Feature: 2, Code: 0}, {Feature: 0, Code: 1}}}
	got := ReleaseAnswers(qs, []float64{7, 7}, 10, 1, dp.NewNoiser(randx.NewSeeded(1)))
	if got[0] != got[1] {
		t.Fatalf("the same cell answered %v and %v", got[0], got[1])
	}
	many := make([]Query, 4000)
	for i := range many {
		many[i] = Query{{Feature: 0, Code: uint32(i)}}
	}
	truth := make([]float64, len(many))
	ans := ReleaseAnswers(many, truth, 10, 2, dp.NewNoiser(randx.NewSeeded(2)))
	if mae := MAE(ans, truth); math.Abs(mae/5-1) > 0.08 {
		t.Fatalf("mean |noise| %.3f, want the scale 5", mae)
	}
}
