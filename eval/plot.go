package eval

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// PlotOptions choose what a figure shows.
type PlotOptions struct {
	Title  string
	X      string // "epsilon", "k" or "parties"
	Metric string // e.g. "accuracy"
	LogX   bool
}

// WritePNG draws one panel per (dataset, task) with a line per
// (method, calibration, noise), error bars at ±1 std, and methods without
// an x value (e.g. no-privacy) as horizontal reference lines.
func WritePNG(w io.Writer, rows []Row, o PlotOptions) error {
	panels := groupPanels(rows, o.Metric)
	if len(panels) == 0 {
		return fmt.Errorf("eval: no %q rows to plot", o.Metric)
	}
	var plots []*plot.Plot
	for _, key := range SortedKeys(panels) {
		p, err := panelPlot(key, panels[key], o)
		if err != nil {
			return err
		}
		plots = append(plots, p)
	}
	return WritePanels(w, plots, 5*vg.Inch, 5.5*vg.Inch)
}

// WritePanels draws plots side by side, each width × height, as one PNG.
func WritePanels(w io.Writer, plots []*plot.Plot, width, height vg.Length) error {
	cols := len(plots)
	img := vgimg.New(vg.Length(cols)*width, height)
	tiles := draw.Tiles{Rows: 1, Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := plot.Align([][]*plot.Plot{plots}, tiles, draw.New(img))
	for j, p := range plots {
		p.Draw(canvases[0][j])
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(w); err != nil {
		return fmt.Errorf("eval: png: %w", err)
	}
	return nil
}

func groupPanels(rows []Row, metric string) map[string][]Row {
	out := map[string][]Row{}
	for _, r := range rows {
		if r.Metric != metric {
			continue
		}
		key := r.Dataset + ", Y=" + r.Task
		out[key] = append(out[key], r)
	}
	return out
}

// SortedKeys returns m's keys in order.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func xOf(r Row, x string) float64 {
	switch x {
	case "k":
		return float64(r.K)
	case "parties":
		return float64(r.Parties)
	}
	return r.Epsilon
}

func seriesName(r Row) string {
	name := r.Method
	if r.Calibration != "" {
		name += " (" + r.Calibration
		if r.Noise != "" && r.Noise != "local" {
			name += ", " + r.Noise
		}
		name += ")"
	}
	return name
}

// Palette are the colours of a figure's series, in order.
var Palette = []color.Color{
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}, color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff}, color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
	color.RGBA{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff},
}

func panelPlot(title string, rows []Row, o PlotOptions) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	if o.Title != "" {
		p.Title.Text = o.Title + ": " + title
	}
	p.X.Label.Text = o.X
	p.Y.Label.Text = o.Metric
	p.Legend.Top = false
	p.Legend.Left = false
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.Legend.YOffs = vg.Points(-4)
	if o.LogX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	series := map[string][]Row{}
	var refs []Row
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		if r.Method == "no-privacy" {
			refs = append(refs, r)
			continue
		}
		series[seriesName(r)] = append(series[seriesName(r)], r)
		xmin, xmax = math.Min(xmin, xOf(r, o.X)), math.Max(xmax, xOf(r, o.X))
	}
	for i, name := range SortedKeys(series) {
		s := series[name]
		sort.Slice(s, func(a, b int) bool { return xOf(s[a], o.X) < xOf(s[b], o.X) })
		pts := make(plotter.XYs, len(s))
		errs := make(plotter.YErrors, len(s))
		for j, r := range s {
			pts[j] = plotter.XY{X: xOf(r, o.X), Y: r.Mean}
			errs[j] = struct{ Low, High float64 }{r.Std, r.Std}
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, fmt.Errorf("eval: plot %s: %w", name, err)
		}
		c := Palette[i%len(Palette)]
		line.Color, points.Color = c, c
		bars, err := plotter.NewYErrorBars(struct {
			plotter.XYer
			plotter.YErrorer
		}{pts, errs})
		if err != nil {
			return nil, fmt.Errorf("eval: plot %s: %w", name, err)
		}
		bars.Color = c
		p.Add(line, points, bars)
		p.Legend.Add(name, line, points)
	}
	for _, r := range refs {
		if math.IsInf(xmin, 1) {
			break
		}
		ref, err := plotter.NewLine(plotter.XYs{{X: xmin, Y: r.Mean}, {X: xmax, Y: r.Mean}})
		if err != nil {
			return nil, err
		}
		ref.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		ref.Color = color.Black
		p.Add(ref)
		p.Legend.Add("No Privacy", ref)
	}
	return p, nil
}
