package method_test

import (
	"strings"
	"testing"

	"github.com/dppub/dppub/method"
	_ "github.com/dppub/dppub/method/registry"
)

// Settings written down (the JSON of --settings FILE, --set, a networked
// session) refuse a zero or negative budget, δ or size instead of
// reading it as "not given" and filling the default; the few keys whose
// zero or negative values mean something keep them.
func TestExplicitSettingsRefuseNonPositive(t *testing.T) {
	cases := []struct {
		method, raw, want string
	}{
		{"synthesize-rows", `{"epsilon": 1, "delta": 0}`, "delta must be positive and finite, got 0"},
		{"synthesize-rows", `{"epsilon": 1, "bins": 0}`, "bins must be positive, got 0"},
		{"synthesize-rows", `{"epsilon": 1, "rows": 0}`, "rows must be positive, got 0"},
		{"synthesize-rows", `{"epsilon": 1, "max_cells": -5}`, "max_cells must be positive, got -5"},
		{"synthesize-rows", `{"epsilon": 0, "rho": 1}`, "epsilon must be positive and finite, got 0"},
		{"synthesize-rows", `{"epsilon": 1, "bin_share": 0}`, "bin_share must not be 0"},
		{"synthesize-rows", `{"epsilon": 1, "delta": 1e-6, "bin_share": -1}`, ""},
		{"ppca-dp-mh", `{"epsilon": 1, "k": 0}`, "k must be positive, got 0"},
		{"ppca-dp-mh", `{"epsilon": 1}`, ""},
		{"dp-subn3", `{"epsilon": 1, "frontier": 0}`, ""},
		{"dp-subn3", `{"epsilon": 1, "frontier": -1}`, "frontier must not be negative, got -1"},
		{"pdp-mvds", `{"budgets": {"a": 1, "b": 0}}`, "budgets must be positive and finite, got 0"},
		{"synthesize-rows", `{"epsilon": 1, "bins_for": {"age": 0}}`, "bins_for must be positive, got 0"},
	}
	for _, c := range cases {
		t.Run(c.method+" "+c.raw, func(t *testing.T) {
			s, err := method.Lookup(c.method)
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.Settings([]byte(c.raw))
			switch {
			case c.want == "" && err != nil && strings.Contains(err.Error(), "must"):
				// Another rule of the method may refuse; not the sign.
				if strings.Contains(err.Error(), "positive") || strings.Contains(err.Error(), "negative") {
					t.Errorf("refused: %v", err)
				}
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("got %v, want an error saying %q", err, c.want)
			}
		})
	}
}
