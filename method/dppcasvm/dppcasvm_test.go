package dppcasvm

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/method/dppcasvm/dppca"
	"github.com/dppub/dppub/method/methodtest"
	"github.com/dppub/dppub/model"
	"github.com/dppub/dppub/randx"
)

// A setting that does not apply to a method is refused, and the others
// are checked and named by their keys.
func TestValidatePerMethod(t *testing.T) {
	methodtest.CheckMistakes(t, []methodtest.Mistake[Settings]{
		methodtest.Wrong("delta on a pure method", withEpsilon(dppca.DPPCASVM, func(s *Settings) { s.Delta = 1e-5 }), "delta", "does not apply to dppca-svm"),
		methodtest.Wrong("share on pca-dpsvm", withEpsilon(dppca.PCADPSVM, func(s *Settings) { s.ComponentShare = 0.3 }), "component_share", "does not apply"),
		methodtest.Wrong("objective on pca-dpsvm", withEpsilon(dppca.PCADPSVM, func(s *Settings) { s.DPSVM = Objective }), "dp_svm", "does not apply"),
		methodtest.Wrong("epsilon", withEpsilon(dppca.AGSVM, func(s *Settings) { s.Epsilon = 0 }), "epsilon", "must be positive"),
		methodtest.Wrong("scaling", withEpsilon(dppca.DPPCASVM, func(s *Settings) { s.Scaling = "minmax" }), "scaling", `"minmax"`),
		methodtest.Wrong("share", withEpsilon(dppca.DPPCASVM, func(s *Settings) { s.ComponentShare = 1 }), "component_share", "(0, 1)"),
		methodtest.Wrong("dp svm", withEpsilon(dppca.ModSuLQSVM, func(s *Settings) { s.DPSVM = "input" }), "dp_svm", `"input"`),
		methodtest.Wrong("calibration", withEpsilon(dppca.DPPCASVM, func(s *Settings) { s.Calibration = "loose" }), "calibration", `"loose"`),
	})
	for _, m := range dppca.Methods {
		st := New(m)
		st.Epsilon = 1
		st.SetDefaults()
		if err := st.Validate(); err != nil {
			t.Errorf("%s defaults: %v", m, err)
		}
		if want := m.Gaussian(); st.Applies("delta") != want {
			t.Errorf("%s: delta applies %v, want %v", m, !want, want)
		}
	}
	if _, err := For("svm"); err == nil || !strings.Contains(err.Error(), `"svm"`) {
		t.Errorf("unknown method: %v", err)
	}
}

// withEpsilon are method m's settings at ε = 1, then changed by set.
func withEpsilon(m dppca.Method, set func(*Settings)) Settings {
	st := New(m)
	st.Epsilon = 1
	set(st)
	return *st
}

// A Gaussian method's run takes δ = 1/n² by default and publishes the
// model's JSON, which loads back with its report.
func TestRunPublishesTheModel(t *testing.T) {
	tab := methodtest.Table(t, "wdbc")
	st := New(dppca.AGSVM)
	st.Epsilon, st.Label = 2, "diagnosis"
	out, err := method.RunCentral(context.Background(), AGSVM, st, method.Local{Table: tab, Source: randx.NewSeeded(3)})
	if err != nil {
		t.Fatal(err)
	}
	n := float64(tab.Len())
	if st.Delta != 1/(n*n) || out.Report.Claimed.Delta != st.Delta {
		t.Fatalf("δ = %v, report %v, want 1/n² = %v", st.Delta, out.Report.Claimed, 1/(n*n))
	}
	m, err := model.Read(bytes.NewReader(out.Data))
	if err != nil {
		t.Fatal(err)
	}
	if m.Label != "diagnosis" || m.Privacy == nil || out.Detail.(*Result).Fit.Components.K < 1 {
		t.Fatalf("model %+v", m)
	}
	st = New(dppca.DPPCASVM)
	st.Epsilon = 1
	if _, err := method.RunCentral(context.Background(), DPPCASVM, st, method.Local{Table: tab}); err == nil || !strings.Contains(err.Error(), "label is required") {
		t.Fatalf("no label: %v", err)
	}
}

// warnAt is a budget ε at which a warning is due or not.
type warnAt struct {
	name string
	eps  float64
	warn bool
}

// When the noise on A drowns it (WDBC, d = 30, at ε = 1: its largest
// eigenvalue near 1.7) the published report says so, in the report the
// model embeds as well as in the one written beside it; at ε = 4 (near
// 0.42) it does not.
func TestReportWarnsWhenComponentsAreNoise(t *testing.T) {
	tab := methodtest.Table(t, "wdbc")
	for _, c := range []warnAt{{"eps 1", 1, true}, {"eps 4", 4, false}} {
		t.Run(c.name, func(t *testing.T) {
			st := New(dppca.DPPCASVM)
			st.Epsilon, st.Label = c.eps, "diagnosis"
			out, err := method.RunCentral(context.Background(), DPPCASVM, st, method.Local{Table: tab, Source: randx.NewSeeded(1)})
			if err != nil {
				t.Fatal(err)
			}
			m, err := model.Read(bytes.NewReader(out.Data))
			if err != nil {
				t.Fatal(err)
			}
			for where, warnings := range map[string][]string{"report": out.Report.Warnings, "model's report": m.Privacy.Warnings} {
				got := strings.Contains(strings.Join(warnings, "\n"), "principal components are mostly noise")
				if got != c.warn {
					t.Errorf("%s warns %v, want %v: %q", where, got, c.warn, warnings)
				}
			}
		})
	}
}
