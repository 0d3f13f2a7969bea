package rowsynth_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/method/methodtest"
	"github.com/dppub/dppub/method/rowsynth"
	"github.com/dppub/dppub/ownerstats"
	"github.com/dppub/dppub/randx"
)

// runOwners publishes from owners who hold rows, or, for the owners
// marked in fromStats, the fine statistics of those rows (through the
// file format).
func runOwners(t *testing.T, parts []*data.Table, fromStats []bool, st rowsynth.Settings, seed uint64) (*method.Run, error) {
	t.Helper()
	lo := method.LocalOptions{Stats: map[string]*ownerstats.Statistics{}, Schemas: []data.Schema{parts[0].Schema}, Source: randx.NewSeeded(seed)}
	for i, p := range parts {
		name := method.LocalOwner(i + 1)
		if !fromStats[i] {
			lo.AddOwner(name, p)
			continue
		}
		lo.AddOwner(name, nil)
		lo.Stats[name] = methodtest.FileStatistics(t, p, ownerstats.Config{Schema: p.Schema, Fine: true, Bins: st.Bins, BinsFor: st.BinsFor})
	}
	return method.RunLocal(context.Background(), rowsynth.Spec, &st, lo)
}

// The same seeded session publishes the same bytes, table and report,
// whether its owners hold rows or bring fine statistics files; a session
// that may measure marginals of three attributes is refused before any
// charge.
func TestStatisticsOwnersPublishTheSameBytes(t *testing.T) {
	tab := methodtest.Table(t, "adult")
	rows := make([]int, 4000)
	for i := range rows {
		rows[i] = i
	}
	parts := methodtest.Split(t, tab.Subset(rows), 3, 5)
	base := rowsynth.Settings{Epsilon: 1, Delta: 1e-5, EngineSettings: method.EngineSettings{MaxCells: 1, Rounds: 5}}
	equalWidth := base
	equalWidth.BinShare = -1
	for _, c := range []struct {
		name string
		st   rowsynth.Settings
	}{
		{"bins chosen from the data", base},
		{"equal-width bins", equalWidth},
	} {
		t.Run(c.name, func(t *testing.T) {
			want, err := runOwners(t, parts, []bool{false, false, false}, c.st, 9)
			if err != nil {
				t.Fatal(err)
			}
			for _, mix := range [][]bool{{false, true, false}, {true, true, true}} {
				got, err := runOwners(t, parts, mix, c.st, 9)
				if err != nil {
					t.Fatalf("statistics %v: %v", mix, err)
				}
				if a, b := csvBytes(t, want.Outcome.Table), csvBytes(t, got.Outcome.Table); len(a) == 0 || !bytes.Equal(a, b) {
					t.Fatalf("statistics %v: another synthetic table (%d vs %d bytes)", mix, len(b), len(a))
				}
				a, _ := json.Marshal(want.Outcome.Report)
				b, _ := json.Marshal(got.Outcome.Report)
				if !bytes.Equal(a, b) {
					t.Fatalf("statistics %v: another privacy report:\n%s\n%s", mix, b, a)
				}
			}
		})
	}
	cliques := base
	cliques.MaxCells = 0 // the default: combined marginals of 3+ attributes
	if _, err := runOwners(t, parts, []bool{false, true, false}, cliques, 9); err == nil || !strings.Contains(err.Error(), "max_cells 1") {
		t.Fatalf("a session that may combine marginals accepted statistics: %v", err)
	}
	adaptive := base
	adaptive.Method = marginal.MethodAdaptive
	if _, err := runOwners(t, parts, []bool{false, true, false}, adaptive, 9); err == nil || !strings.Contains(err.Error(), "method paper") {
		t.Fatalf("an adaptive session accepted statistics: %v", err)
	}
}

func csvBytes(t *testing.T, tab *data.Table) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := data.WriteCSV(&b, tab); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
