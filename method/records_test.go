package method

import (
	"testing"

	"github.com/dppub/dppub/data"
)

// The default δ of a one-process session comes from the records it
// publishes from: all the owners' records for owners of rows (before,
// the smallest owner's, so one owner with 2 rows made δ = 1/4 for every
// owner), the common record count for parties of columns.
func TestRecordCount(t *testing.T) {
	rows := func(n int) *data.Table { return &data.Table{Rows: make([][]float64, n)} }
	ts := map[string]*data.Table{"owner-1": rows(2), "owner-2": rows(1000), "owner-3": rows(500)}
	cases := []struct {
		split Split
		want  int
	}{{Rows, 1502}, {Columns, 2}}
	for _, c := range cases {
		if got := recordCount(c.split, ts, nil); got != c.want {
			t.Errorf("%v: %d records, want %d", c.split, got, c.want)
		}
	}
}
