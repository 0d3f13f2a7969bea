package audits

import (
	"math"
	"testing"

	"github.com/dppub/dppub/method/mullda/lda"
)

// The sound zero-sum factor is derived here from the covariance of the
// view; method/mullda/lda derives it by conditioning. Both must agree.
func TestZeroSumFactorMatchesLDA(t *testing.T) {
	for _, m := range []int{2, 3, 5, 10, 100} {
		f, err := ZeroSumPrecisionFactor(m, ViewPublisher)
		if err != nil {
			t.Fatal(err)
		}
		r := lda.ViewFactor(m)
		if math.Abs(f-1/(r*r)) > 1e-9 {
			t.Errorf("M=%d: precision factor %v, lda.ViewFactor gives %v", m, f, 1/(r*r))
		}
	}
	if f, _ := ZeroSumPrecisionFactor(10, ViewMessage); math.Abs(f-1) > 1e-12 {
		t.Errorf("one message: factor %v, want 1", f)
	}
	if f, _ := ZeroSumPrecisionFactor(2, ViewPublisher); math.Abs(f-1.4) > 1e-9 {
		t.Errorf("M=2 publisher: factor %v, want 7/5", f)
	}
}

func TestValidation(t *testing.T) {
	if _, err := ZeroSum(ZeroSumOptions{Owners: 1, Epsilon: 1, Delta: 1e-5}); err == nil {
		t.Error("one owner accepted")
	}
	if _, err := ZeroSum(ZeroSumOptions{Epsilon: 1, Delta: 1e-5, View: "curator"}); err == nil {
		t.Error("unknown view accepted")
	}
	if _, err := MulLDA(MulLDAOptions{Epsilon: 1, Delta: 0}); err == nil {
		t.Error("mul-lda-dp with δ = 0 accepted")
	}
}
