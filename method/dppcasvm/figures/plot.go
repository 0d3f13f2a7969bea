package figures

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/dppub/dppub/eval"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// WritePNG draws a DPPCA-SVM figure: accuracy against ε (Figs. 1
// and 2, log scale), against the number of training records (Fig. 3, log
// scale), or training time per method as bars, one panel per dataset
// (Fig. 4).
func WritePNG(w io.Writer, rows []eval.Row, figure int) error {
	title := fmt.Sprintf("DPPCA-SVM Fig. %d", figure)
	switch figure {
	case 1, 2:
		return eval.WritePNG(w, rows, eval.PlotOptions{Title: title, X: "epsilon", Metric: "accuracy", LogX: true})
	case 3:
		return eval.WritePNG(w, accuracyBySize(rows), eval.PlotOptions{Title: title, X: "training records n", Metric: "accuracy", LogX: true})
	case 4:
		return writeTimingPNG(w, rows, title)
	}
	return fmt.Errorf("dppca-svm figures: dppca-svm has no figure %d to plot", figure)
}

// accuracyBySize returns Fig. 3's accuracy rows with Epsilon replaced by
// the number of training records of the same point (the train_records row
// that follows each accuracy row), so that WritePNG plots against n.
func accuracyBySize(rows []eval.Row) []eval.Row {
	var out []eval.Row
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

func sameDPPCAPoint(a, b eval.Row) bool {
	return a.Experiment == b.Experiment && a.Dataset == b.Dataset && a.Method == b.Method &&
		a.Calibration == b.Calibration && a.Noise == b.Noise && a.Epsilon == b.Epsilon
}

func writeTimingPNG(w io.Writer, rows []eval.Row, title string) error {
	panels := map[string][]eval.Row{}
	for _, r := range rows {
		if r.Metric == "seconds" {
			panels[r.Dataset] = append(panels[r.Dataset], r)
		}
	}
	if len(panels) == 0 {
		return fmt.Errorf("dppca-svm figures: no timing rows to plot")
	}
	var plots []*plot.Plot
	for _, k := range eval.SortedKeys(panels) {
		p, err := timingPanel(title+": "+k, panels[k])
		if err != nil {
			return err
		}
		plots = append(plots, p)
	}
	return eval.WritePanels(w, plots, 4.2*vg.Inch, 4.2*vg.Inch)
}

func timingPanel(title string, rows []eval.Row) (*plot.Plot, error) {
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
		return nil, fmt.Errorf("dppca-svm figures: plot: %w", err)
	}
	bars.Color = eval.Palette[0]
	p.Add(bars)
	p.NominalX(labels...)
	p.X.Tick.Label.Rotation = math.Pi / 4
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.Label.YAlign = draw.YCenter
	return p, nil
}
