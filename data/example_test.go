package data_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/dppub/dppub/data"
	"gonum.org/v1/gonum/mat"
)

func Example() {
	schema, err := data.ParseSchema([]byte(`{"attributes": [
		{"name": "age", "kind": "numeric", "min": 0, "max": 100, "integer": true},
		{"name": "sex", "kind": "categorical", "categories": ["Female", "Male"]},
		{"name": "smoker", "kind": "binary", "categories": ["no", "yes"]}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	csv := "age,sex,smoker\n40,Male,no\n?,Female,yes\n25,Female,yes\n"
	table, stats, err := data.ReadCSV(strings.NewReader(csv), schema, data.ReadOptions{Header: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("kept %d rows, dropped %d with a missing value\n", stats.Rows, stats.DroppedMissing)

	enc, _ := data.NewEncoder(schema, data.EncoderOptions{Exclude: []string{"smoker"}})
	m, _, _ := enc.Encode(table)
	fmt.Println(enc.ColumnNames())
	fmt.Printf("%v\n", mat.Formatted(m))

	_ = data.WriteCSV(os.Stdout, enc.Decode(m))
	// Output:
	// kept 2 rows, dropped 1 with a missing value
	// [age sex=Female sex=Male]
	// ⎡ 0.4     0     1⎤
	// ⎣0.25     1     0⎦
	// age,sex
	// 40,Male
	// 25,Female
}
