package audits

import (
	"testing"
)

func TestValidation(t *testing.T) {
	if _, err := DPPCA(DPPCAOptions{Epsilon: 1, D: 1}); err == nil {
		t.Error("dppca with d = 1 accepted")
	}
	if _, err := DPPCA(DPPCAOptions{Epsilon: 1, Method: "pca-dpsvm"}); err == nil {
		t.Error("dppca without matrix noise accepted")
	}
}
