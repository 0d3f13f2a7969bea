//go:build !noparquet

package methods

import (
	"testing"

	"github.com/dppub/dppub/consortium"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method"
	ppcaspec "github.com/dppub/dppub/method/ppcadpmh"
	"github.com/dppub/dppub/transport"
)

// An owner whose dataset is a Parquet file reads it whole (there is no
// streaming Parquet scan), where it was read as delimited text before
// and refused: the table is Adult's, cell for cell.
func TestOwnerReadsParquetDataset(t *testing.T) {
	adult, pq := adultFile(t, data.WriteParquet)
	f := writeConsortium(t, map[string]string{"adult.parquet": pq, "adult.json": mustJSON(t, adult.Schema)},
		[]consortium.Member{
			{Name: "curator", Role: "curator", Address: "h:1"},
			owner("owner-1", "h:2", "adult.parquet", "adult.json", false),
		})
	sess := curatorSession(t, ppcaspec.Spec, f, `{"schema": "adult.json", "epsilon": 1}`)
	owner, _ := f.Member("owner-1")
	var l method.Local
	if err := readMemberData(transport.JoinInput{Consortium: f, Self: owner}, sess, &l); err != nil {
		t.Fatal(err)
	}
	if l.Table == nil || l.Table.Len() != adult.Len() {
		t.Fatalf("want Adult's %d rows as a table, got %v", adult.Len(), l.Table)
	}
	for i, row := range adult.Rows {
		for j, v := range row {
			if got := l.Table.Rows[i][j]; got != v {
				t.Fatalf("row %d column %d: %v, want %v", i, j, got, v)
			}
		}
	}
}
