// Package methodtest holds what the methods' tests share: owners of rows
// cut from a built-in dataset, their statistics as a file brings them, and
// the check that a settings mistake is
// named by its key. Tests only; no method imports it.
package methodtest

import (
	"errors"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/ownerstats"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

// Table is the built-in dataset called name.
func Table(tb testing.TB, name string) *data.Table {
	tb.Helper()
	t, err := datasets.Load(name)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// TableOrSkip is the dataset called name, or skips the test, saying why,
// when it is not available (an external dataset, read from
// ../shared/data or $DPPUB_DATA, that this machine does not have).
func TableOrSkip(tb testing.TB, name string) *data.Table {
	tb.Helper()
	t, err := datasets.Load(name)
	if err != nil {
		tb.Skipf("dataset %s not available: %v", name, err)
	}
	return t
}

// Owners splits the built-in dataset called name into m owners of rows,
// each row to an owner drawn from seed.
func Owners(tb testing.TB, name string, m int, seed uint64) []*data.Table {
	tb.Helper()
	return Split(tb, Table(tb, name), m, seed)
}

// Split splits tab into m owners of rows, each row to an owner drawn from
// seed.
func Split(tb testing.TB, tab *data.Table, m int, seed uint64) []*data.Table {
	tb.Helper()
	owners, err := data.SplitHorizontal(tab, m, nil, randx.NewSeeded(seed))
	if err != nil {
		tb.Fatal(err)
	}
	return owners
}

// FileStatistics are tab's statistics under cfg as an owner brings them
// from elsewhere (the Beam pipeline, a statistics file): computed, written
// in the statistics file format and read back.
func FileStatistics(tb testing.TB, tab *data.Table, cfg ownerstats.Config) *ownerstats.Statistics {
	tb.Helper()
	var back ownerstats.Statistics
	if err := back.UnmarshalBinary(StatisticsFile(tb, tab, cfg)); err != nil {
		tb.Fatal(err)
	}
	return &back
}

// StatisticsFile is the content of a statistics file of tab's statistics
// under cfg.
func StatisticsFile(tb testing.TB, tab *data.Table, cfg ownerstats.Config) []byte {
	tb.Helper()
	st, err := ownerstats.FromTable(tab, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := st.MarshalBinary()
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// Accountant is a fresh accountant of party holding budget.
func Accountant(tb testing.TB, party string, budget dp.Guarantee) *privacy.Accountant {
	tb.Helper()
	a, err := privacy.NewAccountant(privacy.AccountantOptions{Party: party, Budget: budget})
	if err != nil {
		tb.Fatal(err)
	}
	return a
}

// ZeroShare is the share of tab's rows whose column col is exactly 0.
func ZeroShare(tb testing.TB, tab *data.Table, col string) float64 {
	tb.Helper()
	s, err := tab.Share(col, 0)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// FieldMistake fails tb unless err is a mistake in the setting key (a
// method.FieldError, which a command line reports under the key's flag)
// whose message contains want.
func FieldMistake(tb testing.TB, err error, key, want string) {
	tb.Helper()
	var fe method.FieldError
	if !errors.As(err, &fe) || fe.Key != key || !strings.Contains(err.Error(), want) {
		tb.Fatalf("got %v, want a mistake in %s saying %q", err, key, want)
	}
}

// Mistake is a settings value S whose validation, defaults filled, must
// fail in the setting Key with a message containing Want.
type Mistake[S any] struct {
	Name     string
	Settings S
	Key      string
	Want     string
}

// Wrong is the case of settings st named name, whose mistake is in key
// and says want.
func Wrong[S any](name string, st S, key, want string) Mistake[S] {
	return Mistake[S]{Name: name, Settings: st, Key: key, Want: want}
}

// CheckMistakes runs each case as a subtest: its settings' defaults are
// filled, and Validate must report the mistake the case names.
func CheckMistakes[S any, PS interface {
	*S
	method.Settings
}](t *testing.T, cases []Mistake[S]) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			st := PS(&c.Settings)
			st.SetDefaults()
			FieldMistake(t, st.Validate(), c.Key, c.Want)
		})
	}
}
