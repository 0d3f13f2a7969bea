package crdp

import (
	"os"
	"strings"
	"testing"
)

// docs/privacy-design.md's FM row gives the replace-one sensitivity the
// code charges, s + s²/4, not the per-record norm s/2 + s²/8.
func TestPrivacyDesignStatesFMSensitivity(t *testing.T) {
	body, err := os.ReadFile("../../../docs/privacy-design.md")
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "| `method/mpcrdp/crdp` FM regression") {
			row = line
		}
	}
	if !strings.Contains(row, "replace-one Δ₁ = factor·(s + s²/4)") {
		t.Fatalf("FM row %q does not give the replace-one sensitivity factor·(s + s²/4)", row)
	}
	for _, s := range []float64{1, 3, 11} {
		if got, want := FMSensitivity(s), s+s*s/4; got != want {
			t.Errorf("FMSensitivity(%v) = %v, the row says %v", s, got, want)
		}
	}
	// The charge: factor 2 on rows of 4 features (s = 5).
	if got := (FMOptions{Epsilon: 1, Factor: 2, RowL1: 4}).Spec().Sensitivity; got != 2*(5+25.0/4) {
		t.Errorf("FM charged at sensitivity %v, the row says 2·(5 + 25/4) = %v", got, 2*(5+25.0/4))
	}
}
