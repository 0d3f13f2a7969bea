package ppcadpmh

import (
	"bytes"
	"context"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method/methodtest"
	"github.com/dppub/dppub/ownerstats"
	"github.com/dppub/dppub/randx"
)

// TestPPCASinkWritesTheWholeTablesBytes: for a fixed seed, the synthetic
// rows handed to a Sink a chunk at a time, written with WriteCSVHeader and
// WriteCSVRows, are byte for byte the CSV of the table the run returns
// without one — from the owners' rows and from their statistics — and the
// reports are the same.
func TestPPCASinkWritesTheWholeTablesBytes(t *testing.T) {
	owners := methodtest.Owners(t, "adult", 3, 11)
	var stats []*ownerstats.Statistics
	for _, o := range owners {
		stats = append(stats, methodtest.FileStatistics(t, o, ownerstats.Config{Schema: o.Schema}))
	}
	settings := Settings{Epsilon: 1}
	for _, tc := range []struct {
		name string
		opts func() Options
	}{
		{"rows", func() Options {
			return Options{Owners: owners, Settings: settings, Source: randx.NewSeeded(12)}
		}},
		{"statistics", func() Options {
			return Options{Statistics: stats, Schema: owners[0].Schema, Settings: settings, Source: randx.NewSeeded(12)}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			whole, err := Publish(context.Background(), tc.opts())
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			if err := data.WriteCSV(&want, whole.Synthetic); err != nil {
				t.Fatal(err)
			}

			var got bytes.Buffer
			chunks := 0
			o := tc.opts()
			o.Sink = func(c *data.Table) error {
				if chunks == 0 {
					if err := data.WriteCSVHeader(&got, c.Schema); err != nil {
						return err
					}
				}
				chunks++
				return data.WriteCSVRows(&got, c)
			}
			streamed, err := Publish(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if streamed.Synthetic != nil {
				t.Fatal("a run with a sink returned the table too")
			}
			if chunks < 2*len(owners) {
				t.Fatalf("%d chunks for %d owners: the rows were not streamed", chunks, len(owners))
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Fatalf("streamed CSV (%d bytes) differs from the whole table's (%d bytes)", got.Len(), want.Len())
			}
			wr, _ := whole.Report.JSON()
			sr, _ := streamed.Report.JSON()
			if !bytes.Equal(wr, sr) {
				t.Fatalf("reports differ:\n%s\nvs\n%s", wr, sr)
			}
		})
	}
}
