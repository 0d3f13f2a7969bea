package mullda

import "testing"

func TestSettingsChecks(t *testing.T) {
	for name, s := range map[string]Settings{
		"no label":          {Epsilon: 1, Delta: 1e-6},
		"no delta":          {Label: "y", Epsilon: 1},
		"bad calibration":   {Label: "y", Epsilon: 1, Delta: 1e-6, Calibration: "exact"},
		"paper with counts": {Label: "y", Epsilon: 1, Delta: 1e-6, Calibration: "paper", PublicCounts: true},
		"bad noise":         {Label: "y", Epsilon: 1, Delta: 1e-6, Noise: "loud"},
		"negative ridge":    {Label: "y", Epsilon: 1, Delta: 1e-6, Ridge: -1},
	} {
		t.Run(name, func(t *testing.T) {
			s.SetDefaults()
			if s.Validate() == nil {
				t.Errorf("accepted %+v", s)
			}
		})
	}
	ok := Settings{Label: "y", Epsilon: 1, Delta: 1e-6}
	ok.SetDefaults()
	sess := &session{Settings: ok}
	if err := ok.Validate(); err != nil || sess.Unsound() || ok.output() != "synthetic" {
		t.Fatalf("defaults: %v, unsound %v, output %v", err, sess.Unsound(), ok.output())
	}
	ok.DefaultRecords(100)
	if ok.Delta != 1e-6 {
		t.Fatalf("a given δ was replaced by %v", ok.Delta)
	}
	for _, c := range []struct {
		records int
		want    float64
	}{{1000, 1e-6}, {100, 1e-5}, {2, 1e-5}} {
		none := Settings{Label: "y", Epsilon: 1}
		none.DefaultRecords(c.records)
		if none.Delta != c.want {
			t.Errorf("default δ for n = %d is %v, want min(1/n², 1e-5) = %v", c.records, none.Delta, c.want)
		}
	}
}
