package datasets_test

import (
	"fmt"

	"github.com/dppub/dppub/datasets"
)

func ExampleList() {
	for _, d := range datasets.List() {
		fmt.Printf("%-8s %6d × %-3d embedded=%-5v label=%q\n", d.Name, d.Rows, d.Columns, d.Embedded, d.Label)
	}
	// Output:
	// adult     45222 × 15  embedded=true  label="income"
	// big5      19719 × 57  embedded=false label=""
	// musk2      6598 × 167 embedded=false label="target"
	// nltcs     21574 × 16  embedded=true  label=""
	// shuttle   58000 × 10  embedded=false label="Class"
	// wdbc        569 × 31  embedded=true  label="diagnosis"
}

func ExampleLoad() {
	adult, err := datasets.Load("adult")
	if err != nil {
		fmt.Println(err)
		return
	}
	income, _ := adult.Counts("income")
	fmt.Println(adult.Len(), income)
	// Output: 45222 [34014 11208]
}
