package eval

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/randx"
)

func TestFindComparison(t *testing.T) {
	cs := []Comparison{{Paper: "a", Figure: 3}, {Paper: "a", Figure: 4}, {Paper: "b", Figure: 1, Baseline: "x"}}
	for _, c := range []struct {
		paper  string
		figure int
		err    string
	}{
		{"b", 1, ""},
		{"a", 4, ""},
		{"a", 2, "no baseline comparison in a Fig. 2 (have a 3, 4; b 1)"},
		{"c", 1, "no baseline comparison in c Fig. 1"},
	} {
		t.Run(fmt.Sprintf("%s-%d", c.paper, c.figure), func(t *testing.T) {
			got, err := FindComparison(cs, c.paper, c.figure)
			switch {
			case c.err == "" && (err != nil || got.Paper != c.paper || got.Figure != c.figure):
				t.Errorf("got %+v, %v", got, err)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Errorf("error %v, want %q", err, c.err)
			}
		})
	}
	if e := (Comparison{Paper: "lda-dp", Figure: 2}).Experiment(); e != "lda-dp-fig2" {
		t.Errorf("experiment %q", e)
	}
}

// A baseline that publishes its one owner's rows unchanged scores exactly
// what an SVM on the real training split scores: the sweep must split,
// train and test as the papers do, with the repetitions' own sources.
func TestBaselineRowsOfTheRealTable(t *testing.T) {
	real := Baseline{Name: "real", SingleOwner: true, Synthesize: func(_ context.Context, p BaselinePoint) (*data.Table, error) {
		return p.Owners[0], nil
	}}
	// Two tasks on one dataset (WDBC, embedded): they share each split.
	tasks := []Task{{Dataset: "wdbc", Name: "diagnosis", Label: "diagnosis"},
		{Dataset: "wdbc", Name: "malignant", Label: "diagnosis", Positive: []string{"M"}}}
	rows, err := BaselineRows(context.Background(), real, BaselineOptions{Reps: 2, Source: randx.NewSeeded(5),
		Comparison: Comparison{Paper: "p", Figure: 1, Tasks: tasks, Epsilons: []float64{1}, Parties: []int{3}, Metric: "misclassification"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 {
		t.Fatalf("%d rows, want accuracy and misclassification for 2 tasks", len(rows))
	}
	src := randx.NewSeeded(5)
	want := make([][]float64, len(tasks))
	for range 2 {
		rep := src.Child()
		train, test, err := Split80(tasks[0], rep)
		if err != nil {
			t.Fatal(err)
		}
		for i, task := range tasks {
			a, err := SVMAccuracy(task, train, test, rep)
			if err != nil {
				t.Fatal(err)
			}
			want[i] = append(want[i], a)
		}
	}
	for i, task := range tasks {
		acc, mis := rows[2*i], rows[2*i+1]
		m, s := MeanStd(want[i])
		if acc.Task != task.Name || acc.Metric != "accuracy" || acc.Mean != m || acc.Std != s || acc.Parties != 1 ||
			acc.Experiment != "p-fig1" || acc.Method != "real" || acc.Reps != 2 {
			t.Errorf("%s: row %+v, want mean %v ± %v", task.Name, acc, m, s)
		}
		if mis.Metric != "misclassification" || math.Abs(acc.Mean+mis.Mean-1) > 1e-12 {
			t.Errorf("%s: misclassification row %+v", task.Name, mis)
		}
	}
}

// A baseline of several owners gets the training split cut into the
// comparison's numbers of owners, every row once.
func TestBaselineRowsSplitAmongOwners(t *testing.T) {
	var got [][2]int
	count := Baseline{Name: "count", Synthesize: func(_ context.Context, p BaselinePoint) (*data.Table, error) {
		n := 0
		for _, o := range p.Owners {
			n += o.Len()
		}
		got = append(got, [2]int{len(p.Owners), n})
		return p.Owners[0], nil
	}}
	_, err := BaselineRows(context.Background(), count, BaselineOptions{Reps: 1, Source: randx.NewSeeded(6),
		Comparison: Comparison{Tasks: []Task{{Dataset: "wdbc", Name: "diagnosis", Label: "diagnosis"}}, Epsilons: []float64{1}, Parties: []int{2, 5}, Metric: "accuracy"}})
	if err != nil {
		t.Fatal(err)
	}
	train, _, err := Split80(Task{Dataset: "wdbc"}, randx.NewSeeded(1))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != [2]int{2, train.Len()} || got[1] != [2]int{5, train.Len()} {
		t.Errorf("owners and rows per publication %v, want 2 and 5 owners of %d rows", got, train.Len())
	}
	if _, err := BaselineRows(context.Background(), count, BaselineOptions{Reps: -1}); err == nil {
		t.Error("reps = -1 accepted")
	}
}
