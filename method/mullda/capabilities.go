package mullda

import (
	"bytes"

	"github.com/dppub/dppub/model"
)

// readModel reads an LDA-DP / Mul-LDA-DP model file as the classifier
// its DP Gaussian model of the projections makes (method.Spec.ReadModel).
func readModel(b []byte) (*model.Model, error) {
	lf, err := ReadModelFile(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return lf.Classifier()
}
