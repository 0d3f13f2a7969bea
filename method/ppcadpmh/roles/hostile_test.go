package roles

import (
	"math"
	"strings"
	"testing"

	"github.com/dppub/dppub/method/ppcadpmh/ppca"
	"github.com/dppub/dppub/protocol"
)

// A hostile curator's models, built from the real message type: an owner
// samples its synthetic rows from the model it is sent, so one over
// another number of columns, with a non-finite value or a negative σ², or
// one sent before the owner's statistics, is refused. The old code took
// each of them: it streamed rows cut at the wrong width, or NaN rows.
// Nothing more is charged either way: the owner paid once, for its
// statistics.
func TestHostileModelsAreRefused(t *testing.T) {
	const p = 3
	model := func(edit func(*ModelMsg)) ModelMsg {
		m := ModelMsg{Mean: []float64{0.5, 0.5, 0.5}, Eigenvalues: []float64{0.3, 0.1, 0.05}, K: 1, Sigma2: 0.05,
			Components: []float64{1, 0, 0}}
		if edit != nil {
			edit(&m)
		}
		return m
	}
	for _, tc := range []struct {
		name      string
		m         ModelMsg
		beforeRun bool // sent before the owner's statistics
		want      string
	}{
		{"narrower model", ModelMsg{Mean: []float64{0.5, 0.5}, Eigenvalues: []float64{0.3, 0.1}, K: 1, Sigma2: 0.05, Components: []float64{1, 0}}, false, "model over 2 columns"},
		{"wider model", ModelMsg{Mean: []float64{0.5, 0.5, 0.5, 0.5}, Eigenvalues: []float64{0.3, 0.1, 0.1, 0.1}, K: 1, Sigma2: 0.05, Components: []float64{1, 0, 0, 0}}, false, "model over 4 columns"},
		{"NaN mean", model(func(m *ModelMsg) { m.Mean[1] = math.NaN() }), false, "non-finite value NaN"},
		{"infinite component", model(func(m *ModelMsg) { m.Components[0] = math.Inf(1) }), false, "non-finite value +Inf"},
		{"negative noise variance", model(func(m *ModelMsg) { m.Sigma2 = -1 }), false, "σ² = -1 < 0"},
		{"model before the statistics", model(nil), true, "before its statistics"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr := params(2, p, SecureAggregate, ppca.Gaussian)
			owners, accts := newOwners(t, pr, 5, 7)
			w := owners[1] // waits for owner-a's seed before its statistics
			if _, err := w.Start(); err != nil {
				t.Fatal(err)
			}
			if !tc.beforeRun {
				a, err := owners[0].Start()
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range a {
					if e.To == w.ID() {
						if _, err := w.Handle(e); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			before := len(accts[1].Charges())
			e, err := protocol.Seal("s", pr.Curator, w.ID(), tc.m)
			if err != nil {
				t.Fatal(err)
			}
			_, err = protocol.Safely(w.ID(), "handling the model", func() ([]protocol.Envelope, error) { return w.Handle(e) })
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want a refusal saying %q", err, tc.want)
			}
			if got := len(accts[1].Charges()); got != before {
				t.Errorf("the model changed the owner's charges from %d to %d", before, got)
			}
		})
	}
}
