package learn

import (
	"testing"

	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// WDBC: 569 rows, 30 features min–max scaled over the whole file, seeded
// 5-fold cross-validation. MP-CRDP (Table 1) reports 0.9789 for an SVM and
// 0.9854 for logistic regression on the merged data.
func TestWDBCAccuracy(t *testing.T) {
	X, y := loadWDBC(t)
	if n, d := X.Dims(); n != 569 || d != 30 {
		t.Fatalf("wdbc is %d×%d, want 569×30", n, d)
	}
	svm := crossValidate(t, randx.NewSeeded(21), X, y, 5, func(X *mat.Dense, y []int) (*Classifier, error) {
		return TrainSVM(X, y, 2, DefaultSVMOptions(), randx.NewSeeded(22))
	})
	lr := crossValidate(t, randx.NewSeeded(21), X, y, 5, func(X *mat.Dense, y []int) (*Classifier, error) {
		return TrainLogReg(X, y, 2, DefaultLogRegOptions())
	})
	t.Logf("WDBC 5-fold accuracy: SVM %.4f, logistic regression %.4f", svm, lr)
	if svm < 0.95 {
		t.Errorf("SVM accuracy %.4f < 0.95", svm)
	}
	if lr < 0.95 {
		t.Errorf("logistic regression accuracy %.4f < 0.95", lr)
	}
}
