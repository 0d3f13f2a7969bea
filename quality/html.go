package quality

import (
	"cmp"
	"fmt"
	"html"
	"html/template"
	"io"
	"math"
	"sort"
	"strings"
)

// WriteHTML writes the report as one self-contained HTML page: no
// scripts, no external files, every chart an inline SVG.
func (r *Report) WriteHTML(w io.Writer) error {
	view := struct {
		*Report
		ColumnCharts []template.HTML
		RealMatrix   template.HTML
		SynthMatrix  template.HTML
	}{Report: r}
	for _, c := range r.Columns {
		view.ColumnCharts = append(view.ColumnCharts, columnChart(c))
	}
	view.RealMatrix = heatmap(r.Association, r.Association.Real, "real")
	view.SynthMatrix = heatmap(r.Association, r.Association.Synth, "synthetic")
	if err := pageTemplate.Execute(w, view); err != nil {
		return fmt.Errorf("quality: html: %w", err)
	}
	return nil
}

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"f3":   func(x float64) string { return fmt.Sprintf("%.3f", x) },
	"pf3":  func(x *float64) string { return fmt.Sprintf("%.3f", *x) },
	"join": func(xs []string) string { return strings.Join(xs, ", ") },
	"pct":  func(x float64) string { return fmt.Sprintf("%g%%", 100*x) },
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>dppub quality report (owner only)</title>
<style>
body{font-family:sans-serif;margin:1.5em;color:#222;max-width:1400px}
.notice{background:#b00020;color:#fff;padding:1em;font-size:1.1em;font-weight:bold;border-radius:4px}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.25em .6em;text-align:right}
th{background:#f2f2f2}td.l,th.l{text-align:left}
.grid{display:flex;flex-wrap:wrap;gap:12px}.card{border:1px solid #ddd;padding:6px;border-radius:4px}
.key span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:middle}
.warn{background:#fff3cd;padding:.5em;border-left:4px solid #e0a800}
.refused{background:#b00020;color:#fff;padding:.5em;font-weight:bold}.pass{background:#e6f4ea;padding:.5em;border-left:4px solid #1e8e3e}
.caveat{font-style:italic}
</style></head><body>
<p class="notice" id="notice">{{.Notice}}</p>
<h1>Synthetic data quality</h1>
<section id="summary"><h2>Summary</h2>
<table><tr><th class="l">real rows</th><td>{{.RealRows}}</td></tr><tr><th class="l">synthetic rows</th><td>{{.SynthRows}}</td></tr>
<tr><th class="l">mean association difference</th><td>{{f3 .Association.MeanAbsDiff}}</td></tr></table>
{{range .Warnings}}<p class="warn">{{.}}</p>{{end}}
</section>
{{with .Privacy}}<section id="privacy"><h2>Privacy report (key facts)</h2>
<table><tr><th class="l">method</th><td class="l">{{.Method}}</td></tr><tr><th class="l">status</th><td class="l">{{.Status}}</td></tr><tr><th class="l">claimed guarantee</th><td class="l">{{.Claimed}}</td></tr></table></section>{{end}}
{{with .Gate}}<section id="gate"><h2>Release gate (membership inference)</h2>
<p>Non-members: {{.Holdout}}. Advantage is 2·AUC − 1 of an attack that tells the owner's rows from held-out rows using only the synthetic table: 0 tells nothing, 1 gives every member away.</p>
<p class="{{if .Refused}}refused{{else}}pass{{end}}" id="gate-verdict">{{.Verdict}}</p>
<table><tr><th class="l">owner</th><th class="l">attack</th><th>advantage</th><th>interval</th><th>accepted up to</th><th class="l">what the attack saw</th></tr>
{{range .Owners}}{{$o := .}}{{range .Attacks}}<tr><td class="l">{{$o.Owner}}</td><td class="l">{{.Name}}</td><td>{{f3 .Advantage}}</td><td>{{pct $o.Confidence}} {{f3 .Lower}} to {{f3 .Upper}}</td><td>{{f3 $o.MaxAdvantage}}</td><td class="l">{{.Detail}}</td></tr>{{end}}{{end}}
</table>
{{range .Owners}}{{range .Reasons}}<p class="warn">{{.}}</p>{{end}}{{range .Warnings}}<p class="warn">{{.}}</p>{{end}}{{end}}
<p class="caveat">{{.Caveat}}</p></section>{{end}}
{{with .Classifier}}<section id="classifier"><h2>Train on synthetic, test on real</h2>
<p>{{.Model}} predicting <b>{{.Label}}</b>, tested on {{.TestRows}} held-out real rows.</p>
<table><tr><th class="l">trained on</th><th>accuracy</th></tr>
<tr><td class="l">synthetic rows</td><td>{{f3 .SynthAccuracy}}</td></tr>
<tr><td class="l">real rows (80%)</td><td>{{f3 .RealAccuracy}}</td></tr>
<tr><td class="l">always the majority class</td><td>{{f3 .Majority}}</td></tr></table></section>{{end}}
<section id="marginals"><h2>Marginal distances (total variation, 0 = identical, 1 = disjoint)</h2>
<table><tr><th>order</th><th>sets</th><th>evaluated</th><th>mean</th><th>max</th><th class="l">worst set</th></tr>
{{range .Marginals}}<tr><td>{{.Order}}-way</td><td>{{.Sets}}</td><td>{{.Evaluated}}</td><td>{{f3 .Mean}}</td><td>{{f3 .Max}}</td><td class="l">{{join .Worst}}</td></tr>{{end}}
</table></section>
<section id="columns"><h2>Columns</h2>
<p class="key"><span style="background:#4477aa"></span>real<span style="background:#ee7733"></span>synthetic</p>
<table><tr><th class="l">column</th><th class="l">kind</th><th>TVD</th><th>W1 / range</th><th>KS</th></tr>
{{range .Columns}}<tr><td class="l">{{.Name}}</td><td class="l">{{.Kind}}</td><td>{{f3 .TVD}}</td><td>{{if .W1}}{{pf3 .W1}}{{end}}</td><td>{{if .KS}}{{pf3 .KS}}{{end}}</td></tr>{{end}}
</table>
<div class="grid">{{range .ColumnCharts}}<div class="card">{{.}}</div>{{end}}</div></section>
<section id="correlations"><h2>Associations: real and synthetic</h2>
<p>Pearson's r between numeric and binary columns (blue negative, red positive); Cramér's V where a column has more than two categories (purple). Hover a cell for its value.</p>
<div class="grid"><div class="card"><h3>real</h3>{{.RealMatrix}}</div><div class="card"><h3>synthetic</h3>{{.SynthMatrix}}</div></div></section>
<p class="notice">{{.Notice}}</p>
</body></html>
`))

// maxBars caps the categories drawn in one chart (the most frequent in
// the real data).
const maxBars = 40

// columnChart draws the real and synthetic shares of one column as
// side-by-side bars.
func columnChart(c Column) template.HTML {
	const w, h, top, bottom, left = 340.0, 170.0, 22.0, 30.0, 34.0
	idx := barOrder(c)
	peak := 0.0
	for _, k := range idx {
		peak = math.Max(peak, math.Max(c.Real[k], c.Synth[k]))
	}
	peak = cmp.Or(peak, 1)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" role="img" aria-label="%s">`, w, h, esc(c.Name))
	fmt.Fprintf(&b, `<text x="4" y="15" font-size="13" font-weight="bold">%s</text>`, esc(c.Name))
	fmt.Fprintf(&b, `<text x="%g" y="15" font-size="11" text-anchor="end">TVD %.3f</text>`, w-4, c.TVD)
	plotH := h - top - bottom
	slot := (w - left - 4) / float64(len(idx))
	for i, k := range idx {
		x := left + float64(i)*slot
		for s, v := range []float64{c.Real[k], c.Synth[k]} {
			bh := v / peak * plotH
			color := [2]string{"#4477aa", "#ee7733"}[s]
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s: %s %.4f</title></rect>`,
				x+float64(s)*slot*0.45, top+plotH-bh, math.Max(slot*0.43, 0.5), bh, color, esc(c.Labels[k]), [2]string{"real", "synthetic"}[s], v)
		}
	}
	fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#444"/>`, left, top+plotH, w-4, top+plotH)
	fmt.Fprintf(&b, `<text x="%g" y="%g" font-size="10" text-anchor="end">%.2f</text>`, left-3, top+8, peak)
	fmt.Fprintf(&b, `<text x="%g" y="%g" font-size="10">%s</text>`, left, h-14, esc(c.Labels[idx[0]]))
	fmt.Fprintf(&b, `<text x="%g" y="%g" font-size="10" text-anchor="end">%s</text>`, w-4, h-14, esc(c.Labels[idx[len(idx)-1]]))
	if len(idx) < len(c.Labels) {
		fmt.Fprintf(&b, `<text x="%g" y="%g" font-size="10">%d most frequent of %d categories</text>`, left, h-2, len(idx), len(c.Labels))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // every text is escaped above
}

// barOrder returns the cells to draw: all of them in order, or for a
// categorical column with many categories the most frequent real ones.
func barOrder(c Column) []int {
	idx := make([]int, len(c.Real))
	for k := range idx {
		idx[k] = k
	}
	if len(idx) <= maxBars {
		return idx
	}
	sort.SliceStable(idx, func(a, b int) bool { return c.Real[idx[a]] > c.Real[idx[b]] })
	return idx[:maxBars]
}

// heatmap draws one association matrix.
func heatmap(a Association, m [][]float64, what string) template.HTML {
	d := len(a.Names)
	cellPx := math.Max(4, math.Min(22, 560/float64(d)))
	label := 0.0
	if d <= 40 {
		label = 110
	}
	size := label + cellPx*float64(d)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" role="img" aria-label="%s associations">`, size+4, size+4, what)
	for i := range d {
		if label > 0 {
			y := label + cellPx*(float64(i)+0.7)
			fmt.Fprintf(&b, `<text x="%g" y="%.1f" font-size="10" text-anchor="end">%s</text>`, label-4, y, esc(trim(a.Names[i])))
			x := label + cellPx*(float64(i)+0.7)
			fmt.Fprintf(&b, `<text x="%.1f" y="%g" font-size="10" transform="rotate(-90 %.1f %g)">%s</text>`, x, label-4, x, label-4, esc(trim(a.Names[i])))
		}
		for j := range d {
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s × %s: %s %.3f</title></rect>`,
				label+cellPx*float64(j), label+cellPx*float64(i), cellPx, cellPx, color(m[i][j], a.Measure[i][j]),
				esc(a.Names[i]), esc(a.Names[j]), a.Measure[i][j], m[i][j])
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // every text is escaped above
}

func trim(s string) string {
	if r := []rune(s); len(r) > 16 {
		return string(r[:15]) + "…"
	}
	return s
}

// color maps r in [−1, 1] to blue–white–red and V in [0, 1] to
// white–purple.
func color(v float64, measure string) string {
	mix := func(c [3]float64, t float64) string {
		t = math.Max(0, math.Min(1, t))
		return fmt.Sprintf("rgb(%.0f,%.0f,%.0f)", 255+(c[0]-255)*t, 255+(c[1]-255)*t, 255+(c[2]-255)*t)
	}
	switch {
	case measure == "cramers_v":
		return mix([3]float64{118, 42, 131}, v)
	case v < 0:
		return mix([3]float64{33, 102, 172}, -v)
	default:
		return mix([3]float64{178, 24, 43}, v)
	}
}

func esc(s string) string { return html.EscapeString(s) }
