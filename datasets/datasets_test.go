package datasets

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/internal/testenv"
)

func loadStats(t *testing.T, name string) (*data.Table, data.ReadStats) {
	t.Helper()
	tab, st, err := load(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := tab.Validate(); err != nil {
		t.Fatal(err)
	}
	return tab, st
}

func counts(t *testing.T, tab *data.Table, attr string) []int {
	t.Helper()
	c, err := tab.Counts(attr)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// checkShape compares a loaded table with its Info.
func checkShape(t *testing.T, name string, tab *data.Table) {
	t.Helper()
	s, _ := lookup(name)
	if tab.Len() != s.info.Rows || len(tab.Schema.Attributes) != s.info.Columns {
		t.Fatalf("%s: %d×%d, Info says %d×%d", name, tab.Len(), len(tab.Schema.Attributes), s.info.Rows, s.info.Columns)
	}
	if s.info.Label != "" {
		if _, err := tab.Schema.Index(s.info.Label); err != nil {
			t.Fatalf("%s: label: %v", name, err)
		}
	}
}

func TestSchemasAreValid(t *testing.T) {
	for _, info := range List() {
		s, err := Schema(info.Name)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(); err != nil {
			t.Errorf("%s: %v", info.Name, err)
		}
		if len(s.Attributes) != info.Columns {
			t.Errorf("%s: %d attributes, Info says %d", info.Name, len(s.Attributes), info.Columns)
		}
	}
	if len(big5Countries) != 249+4+1 {
		t.Fatalf("big5 country list has %d codes, want 249 ISO + 4 GeoIP + other", len(big5Countries))
	}
}

func TestUnknownDataset(t *testing.T) {
	_, err := Load("iris")
	if err == nil || !strings.Contains(err.Error(), `"iris"`) || !strings.Contains(err.Error(), "adult, big5, musk2, nltcs, shuttle, wdbc") {
		t.Fatalf("error %v", err)
	}
	if _, err := Schema("iris"); err == nil {
		t.Fatal("Schema(iris) accepted")
	}
}

func TestAdult(t *testing.T) {
	tab, st := loadStats(t, "adult")
	checkShape(t, "adult", tab)
	// 48842 rows, 3620 with a "?" (adult.names: 45222 without unknowns).
	if st.DroppedMissing != 3620 || st.SkippedLines != 1 || st.Clamped != 0 {
		t.Fatalf("stats %+v", st)
	}
	if got := counts(t, tab, "income"); !slices.Equal(got, []int{34014, 11208}) {
		t.Fatalf("income counts %v, want [34014 11208]", got)
	}
	if got := counts(t, tab, "sex"); got[0]+got[1] != 45222 {
		t.Fatalf("sex counts %v", got)
	}
	// First row of adult.data and first kept row of adult.test.
	first := []float64{39, 5, 77516, 0, 13, 2, 8, 3, 0, 1, 2174, 0, 40, 0, 0}
	if !slices.Equal(tab.Rows[0], first) {
		t.Fatalf("row 0 = %v", tab.Rows[0])
	}
	if !slices.Equal(tab.Rows[30162], []float64{25, 0, 226802, 2, 7, 2, 7, 1, 4, 1, 0, 0, 40, 0, 0}) {
		t.Fatalf("row 30162 (first of adult.test) = %v", tab.Rows[30162])
	}
	e, err := data.NewEncoder(tab.Schema, data.EncoderOptions{Exclude: []string{"income"}})
	if err != nil {
		t.Fatal(err)
	}
	if e.Dim() != 6+8+16+7+14+6+5+2+41 {
		t.Fatalf("encoded dimension %d", e.Dim())
	}
}

func TestNLTCS(t *testing.T) {
	tab, _ := loadStats(t, "nltcs")
	checkShape(t, "nltcs", tab)
	if !slices.Equal(tab.Schema.Names(), nltcsNames) {
		t.Fatalf("names %v", tab.Schema.Names())
	}
	// Column sums from shared/data/README.md.
	want := []int{2285, 5947, 8697, 4483, 9466, 5347, 14577, 4671, 7646, 5590, 10477, 11965, 10638, 4949, 4552, 3144}
	for j, name := range nltcsNames {
		if got := counts(t, tab, name)[1]; got != want[j] {
			t.Errorf("%s: %d ones, want %d", name, got, want[j])
		}
	}
}

func TestWDBC(t *testing.T) {
	tab, st := loadStats(t, "wdbc")
	checkShape(t, "wdbc", tab)
	if st.Clamped != 0 || st.DroppedMissing != 0 {
		t.Fatalf("stats %+v", st)
	}
	if got := counts(t, tab, "diagnosis"); !slices.Equal(got, []int{357, 212}) {
		t.Fatalf("diagnosis counts %v", got)
	}
	if tab.IDs[0] != "842302" || tab.Schema.ID != "id" || len(slices.Compact(slices.Sorted(slices.Values(tab.IDs)))) != 569 {
		t.Fatalf("IDs wrong: first %q", tab.IDs[0])
	}
	names := tab.Schema.Names()
	if names[1] != "radius_mean" || names[18] != "concave_points_se" || names[30] != "fractal_dimension_worst" {
		t.Fatalf("names %v", names)
	}
	// Row 0 of wdbc.data: radius_mean 17.99, area_worst 2019.
	if tab.Rows[0][1] != 17.99 || tab.Rows[0][24] != 2019 {
		t.Fatalf("row 0 = %v", tab.Rows[0])
	}
}

// TestEmbeddedMatchesShared checks that the embedded copies read exactly
// like the original files in ../shared/data.
func TestEmbeddedMatchesShared(t *testing.T) {
	for _, name := range []string{"adult", "nltcs", "wdbc"} {
		dir := testenv.SharedData(t, name)
		fromDir, err := LoadFrom(name, dir)
		if err != nil {
			t.Fatal(err)
		}
		embedded, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		if !fromDir.Equal(embedded) {
			t.Errorf("%s: embedded copy differs from %s", name, dir)
		}
	}
}

// readSharedStats reads the shared copy of a dataset with the
// statistics of its reading and checks its shape.
func readSharedStats(t *testing.T, name string) (*data.Table, data.ReadStats) {
	t.Helper()
	s, _ := lookup(name)
	tab, st, err := s.read(openIn(testenv.SharedData(t, name)))
	if err != nil {
		t.Fatal(err)
	}
	checkShape(t, name, tab)
	return tab, st
}

// readShared reads the shared copy of a dataset that reads clean (no
// value clamped, no record dropped) and checks its shape.
func readShared(t *testing.T, name string) *data.Table {
	t.Helper()
	tab, st := readSharedStats(t, name)
	if st.Clamped != 0 || st.DroppedMissing != 0 {
		t.Fatalf("stats %+v", st)
	}
	return tab
}

func TestMusk2(t *testing.T) {
	tab := readShared(t, "musk2")
	if got := counts(t, tab, "target"); !slices.Equal(got, []int{5581, 1017}) {
		t.Fatalf("target counts %v", got)
	}
	// Row 1: f1 = 46, f2 = -108.
	if tab.Rows[0][0] != 46 || tab.Rows[0][1] != -108 {
		t.Fatalf("row 0 starts %v", tab.Rows[0][:3])
	}
}

func TestShuttle(t *testing.T) {
	tab := readShared(t, "shuttle")
	want := []int{45586, 50, 171, 8903, 3267, 10, 13}
	if got := counts(t, tab, "Class"); !slices.Equal(got, want) {
		t.Fatalf("Class counts %v, want %v", got, want)
	}
	if !slices.Equal(tab.Rows[0], []float64{50, 21, 77, 0, 28, 0, 27, 48, 22, 1}) {
		t.Fatalf("row 0 = %v", tab.Rows[0])
	}
}

func TestBig5(t *testing.T) {
	tab, st := readSharedStats(t, "big5")
	// 369 "(nu" plus one empty country read as "other"; 83 ages above 100
	// are kept (and clamped later by the encoder).
	if st.MappedToOther != 370 || st.Clamped != 83 || st.DroppedMissing != 0 {
		t.Fatalf("stats %+v", st)
	}
	country := counts(t, tab, "country")
	at := func(code string) int { return country[slices.Index(big5Countries, code)] }
	if at("US") != 8753 || at("GB") != 1531 || at("other") != 370 || at("A1") != 8 {
		t.Fatalf("country counts US %d GB %d other %d A1 %d", at("US"), at("GB"), at("other"), at("A1"))
	}
	if got := counts(t, tab, "source"); !slices.Equal(got, []int{12099, 3653, 303, 137, 3527, 0}) {
		t.Fatalf("source counts %v", got)
	}
	zeros := 0
	for _, item := range big5Items {
		zeros += counts(t, tab, item)[0]
	}
	if zeros != 50 {
		t.Fatalf("%d missed answers, README says 50", zeros)
	}
}

func TestLoadExternalFallbacks(t *testing.T) {
	shared := testenv.SharedData(t, "shuttle")
	t.Setenv(EnvDataDir, filepath.Join(t.TempDir(), "nothing-here"))
	// $DPPUB_DATA/shuttle is absent, so Load falls back to ../shared/data.
	tab, err := Load("shuttle")
	if err != nil || tab.Len() != 58000 {
		t.Fatalf("fallback to %s: %v", shared, err)
	}
	// A DPPUB_DATA directory holding the dataset wins.
	env := t.TempDir()
	os.Mkdir(filepath.Join(env, "shuttle"), 0o755)
	os.WriteFile(filepath.Join(env, "shuttle", "shuttle.csv"),
		[]byte("V1,V2,V3,V4,V5,V6,V7,V8,V9,Class\n1,2,3,4,5,6,7,8,9,High\n"), 0o644)
	t.Setenv(EnvDataDir, env)
	tab, err = Load("shuttle")
	if err != nil || tab.Len() != 1 {
		t.Fatalf("DPPUB_DATA not used: %v", err)
	}
	// A broken file is reported with its path and line.
	os.WriteFile(filepath.Join(env, "shuttle", "shuttle.csv"),
		[]byte("V1,V2,V3,V4,V5,V6,V7,V8,V9,Class\n1,2,3,4,5,6,7,8,9,Low\n"), 0o644)
	_, err = Load("shuttle")
	if err == nil || !strings.Contains(err.Error(), "shuttle.csv") || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("error %v", err)
	}
}

func TestLoadExternalMissing(t *testing.T) {
	t.Setenv(EnvDataDir, t.TempDir())
	t.Chdir(t.TempDir()) // no go.mod above a temporary directory
	_, err := Load("big5")
	if err == nil || !strings.Contains(err.Error(), "not found") || !strings.Contains(err.Error(), filepath.Join(os.Getenv(EnvDataDir), "big5")) {
		t.Fatalf("error %v", err)
	}
	if _, err := Load("adult"); err != nil {
		t.Fatalf("embedded dataset needs no directory: %v", err)
	}
}

func BenchmarkLoadAdult(b *testing.B) {
	for b.Loop() {
		if _, err := Load("adult"); err != nil {
			b.Fatal(err)
		}
	}
}
