package eval

import (
	"fmt"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// WriteDPPCAPNG draws a DPPCA-SVM figure: accuracy against ε (Figs. 1
// and 2, log scale), against the number of training records (Fig. 3, log
// scale), or training time per method as bars, one panel per dataset
// (Fig. 4).
func WriteDPPCAPNG(w io.Writer, rows []Row, figure int) error {
	title := fmt.Sprintf("DPPCA-SVM Fig. %d", figure)
	switch figure {
	case 1, 2:
		return WritePNG(w, rows, PlotOptions{Title: title, X: "epsilon", Metric: "accuracy", LogX: true})
	case 3:
		return WritePNG(w, accuracyBySize(rows), PlotOptions{Title: title, X: "training records n", Metric: "accuracy", LogX: true})
	case 4:
		return writeTimingPNG(w, rows, title)
	}
	return fmt.Errorf("eval: dppca-svm has no figure %d to plot", figure)
}

// accuracyBySize returns Fig. 3's accuracy rows with Epsilon replaced by
// the number of training records of the same point (the train_records row
// that follows each accuracy row), so that WritePNG plots against n.
func accuracyBySize(rows []Row) []Row {
	var out []Row
	last := -1
	for _, r := range rows {
		switch {
		case r.Metric == "accuracy" && r.Method == "no-privacy":
			out = append(out, r)
		case r.Metric == "accuracy":
			out = append(out, r)
			last = len(out) - 1
		case r.Metric == "train_records" && last >= 0 && sameDPPCAPoint(out[last], r):
			out[last].Epsilon = r.Mean
			last = -1
		}
	}
	return out
}

func sameDPPCAPoint(a, b Row) bool {
	return a.Experiment == b.Experiment && a.Dataset == b.Dataset && a.Method == b.Method &&
		a.Calibration == b.Calibration && a.Noise == b.Noise && a.Epsilon == b.Epsilon
}

func writeTimingPNG(w io.Writer, rows []Row, title string) error {
	panels := map[string][]Row{}
	for _, r := range rows {
		if r.Metric == "seconds" {
			panels[r.Dataset] = append(panels[r.Dataset], r)
		}
	}
	if len(panels) == 0 {
		return fmt.Errorf("eval: no timing rows to plot")
	}
	keys := sortedKeys(panels)
	plots := [][]*plot.Plot{make([]*plot.Plot, len(keys))}
	for i, k := range keys {
		p, err := timingPanel(title+": "+k, panels[k])
		if err != nil {
			return err
		}
		plots[0][i] = p
	}
	const side = 4.2 * vg.Inch
	img := vgimg.New(vg.Length(len(keys))*side, side)
	tiles := draw.Tiles{Rows: 1, Cols: len(keys), PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := plot.Align(plots, tiles, draw.New(img))
	for j := range plots[0] {
		plots[0][j].Draw(canvases[0][j])
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(w); err != nil {
		return fmt.Errorf("eval: png: %w", err)
	}
	return nil
}

func timingPanel(title string, rows []Row) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = "training time (s)"
	values := make(plotter.Values, len(rows))
	labels := make([]string, len(rows))
	for i, r := range rows {
		values[i] = r.Mean
		labels[i] = strings.TrimSuffix(r.Method, " (all features, no privacy)")
		if r.Calibration != "" {
			labels[i] += " (" + r.Calibration + ")"
		}
	}
	bars, err := plotter.NewBarChart(values, vg.Points(14))
	if err != nil {
		return nil, fmt.Errorf("eval: plot: %w", err)
	}
	bars.Color = palette[0]
	p.Add(bars)
	p.NominalX(labels...)
	p.X.Tick.Label.Rotation = math.Pi / 4
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.Label.YAlign = draw.YCenter
	return p, nil
}
