package correlation_test

import (
	"fmt"

	"github.com/dppub/dppub/method/mpcrdp/correlation"
)

// The paper's Table 2: users 1 and 2 agree on all four features, user 3 on
// three of them. At w0 = 0.75 user 1's record sensitivity is 1 + 1 + 3/4.
func ExampleAnalyze() {
	c, _ := correlation.NewCodes([]string{"fever", "cough", "headache", "flu"}, []int{2, 2, 2, 2},
		[][]uint32{{0, 1, 1, 1}, {0, 1, 1, 1}, {0, 1, 1, 0}, {1, 1, 0, 0}})
	r, _ := correlation.Analyze(c, correlation.Options{Threshold: 0.75})
	fmt.Printf("ΔCS = %v (record %d, K = %d, mean degree %.4f), ΔGS = %d\n",
		r.Sensitivity, r.Record+1, r.K, r.MeanDegree, r.GroupSensitivity)
	// Output: ΔCS = 2.75 (record 1, K = 3, mean degree 0.9167), ΔGS = 3
}
