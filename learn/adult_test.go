package learn

import (
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// encodedAdult loads the embedded Adult data (45222 rows), splits it 80/20
// with a seeded source and encodes it as the evaluations do: numeric
// attributes min–max scaled into [0,1] by their declared bounds, categorical
// ones one-hot. Label 1 is income >50K.
func encodedAdult(t testing.TB) (Xtr *mat.Dense, ytr []int, Xte *mat.Dense, yte []int) {
	t.Helper()
	tab, err := datasets.Load("adult")
	if err != nil {
		t.Fatal(err)
	}
	train, test, err := data.TrainTestSplit(tab, 0.8, randx.NewSeeded(71))
	if err != nil {
		t.Fatal(err)
	}
	enc, err := data.NewEncoder(tab.Schema, data.EncoderOptions{Exclude: []string{"income"}})
	if err != nil {
		t.Fatal(err)
	}
	encode := func(part *data.Table) (*mat.Dense, []int) {
		X, _, err := enc.Encode(part)
		if err != nil {
			t.Fatal(err)
		}
		income, err := part.Column("income")
		if err != nil {
			t.Fatal(err)
		}
		y := make([]int, len(income))
		for i, v := range income {
			y[i] = int(v)
		}
		return X, y
	}
	Xtr, ytr = encode(train)
	Xte, yte = encode(test)
	return Xtr, ytr, Xte, yte
}

// Adult anchor: LIBLINEAR with one-hot and [0,1] scaling reaches ≈ 0.85.
func TestAdultAccuracy(t *testing.T) {
	if testing.Short() {
		t.Skip("accuracy on the whole Adult table (about 4–9 s on 2 cores); runs without -short")
	}
	Xtr, ytr, Xte, yte := encodedAdult(t)
	svm, err := TrainSVM(Xtr, ytr, 2, DefaultSVMOptions(), randx.NewSeeded(72))
	if err != nil {
		t.Fatal(err)
	}
	lr, err := TrainLogReg(Xtr, ytr, 2, DefaultLogRegOptions())
	if err != nil {
		t.Fatal(err)
	}
	accSVM := Accuracy(svm.PredictAll(Xte), yte)
	accLR := Accuracy(lr.PredictAll(Xte), yte)
	_, d := Xtr.Dims()
	t.Logf("Adult (%d features) 80/20 accuracy: SVM %.4f, logistic regression %.4f", d, accSVM, accLR)
	if accSVM < 0.84 {
		t.Errorf("SVM accuracy %.4f < 0.84", accSVM)
	}
	if accLR < 0.84 {
		t.Errorf("logistic regression accuracy %.4f < 0.84", accLR)
	}
}
