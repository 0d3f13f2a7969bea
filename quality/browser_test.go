package quality

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dppub/dppub/randx"
)

// browser returns a headless-capable Chromium, or skips.
func browser(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium found (apt-get install chromium): skipping the browser rendering test")
	return ""
}

func runBrowser(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--user-data-dir=" + t.TempDir(), "--no-first-run"}
	out, err := exec.CommandContext(ctx, bin, append(base, args...)...).Output()
	if err != nil {
		t.Fatalf("%s %v: %v", bin, args, err)
	}
	return out
}

// The report renders in a real browser: the DOM the browser builds holds
// every section and chart, and a screenshot shows the red owner-only
// notice and the charts' real (blue) and synthetic (orange) bars.
func TestHTMLInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser; skipped with -short")
	}
	bin := browser(t)
	tab := adult(t)
	src := randx.NewSeeded(5)
	real := tab.Subset(src.Perm(tab.Len())[:2000])
	g := &Gate{Holdout: "a random 0.2 of each owner's rows", Verdict: "PASS: largest density-ratio advantage 0.031", Caveat: "A pass is not a privacy guarantee.",
		Owners: []GateOwner{{Owner: "owner-1", Members: 1000, NonMembers: 1000, MaxAdvantage: 0.1, Confidence: 0.95,
			Attacks: []GateAttack{{Name: "distance-to-closest-record", Advantage: -0.02, Lower: -0.08, Upper: 0.04}, {Name: "density-ratio", Advantage: 0.031, Lower: -0.03, Upper: 0.09}}}}}
	r, err := Compare(real, shuffledColumns(real, src), Options{Label: "income", Source: src, Gate: g})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	url := "file://" + page
	dom := string(runBrowser(t, bin, "--dump-dom", url))
	for _, want := range []string{`id="notice"`, `id="summary"`, `id="gate"`, `id="classifier"`, `id="marginals"`, `id="columns"`, `id="correlations"`} {
		if !strings.Contains(dom, want) {
			t.Errorf("rendered DOM lacks %s", want)
		}
	}
	if got := strings.Count(dom, "<svg"); got != len(tab.Schema.Attributes)+2 {
		t.Errorf("rendered DOM has %d charts, want %d", got, len(tab.Schema.Attributes)+2)
	}
	shot := filepath.Join(dir, "shot.png")
	runBrowser(t, bin, "--screenshot="+shot, "--window-size=1400,2200", url)
	checkScreenshot(t, shot)
}

func checkScreenshot(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	var red, blue, orange, other int
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			r, g, bl = r>>8, g>>8, bl>>8
			switch {
			case near(r, 0xb0) && near(g, 0x00) && near(bl, 0x20):
				red++
			case near(r, 0x44) && near(g, 0x77) && near(bl, 0xaa):
				blue++
			case near(r, 0xee) && near(g, 0x77) && near(bl, 0x33):
				orange++
			case r < 250 || g < 250 || bl < 250:
				other++
			}
		}
	}
	if red < 1000 || blue < 200 || orange < 200 || other < 1000 {
		t.Fatalf("screenshot %s looks blank or broken: %d notice, %d real-bar, %d synthetic-bar, %d other non-white pixels", path, red, blue, orange, other)
	}
	t.Logf("screenshot: %d notice, %d real-bar, %d synthetic-bar pixels", red, blue, orange)
}

func near(v, want uint32) bool { return v+6 >= want && v <= want+6 }
