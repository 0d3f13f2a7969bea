package bayesnet

import (
	"testing"

	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
)

func benchRun(b *testing.B, name string, eps float64) {
	tab, err := datasets.Load(name)
	if err != nil {
		b.Fatal(err)
	}
	z, _ := NewDiscretizer(tab.Schema, DiscretizeOptions{})
	d, _, err := z.Discretize(tab)
	if err != nil {
		b.Fatal(err)
	}
	src := randx.NewSeeded(1)
	b.ResetTimer()
	for b.Loop() {
		acct, _ := privacy.NewAccountant(privacy.AccountantOptions{Party: "o", Budget: dp.Pure(eps)})
		m, err := Run(d, Options{Epsilon: eps}, acct, src)
		if err != nil {
			b.Fatal(err)
		}
		m.Sample(int(d.N), src)
	}
}

// Structure, parameters and sampling of n rows.
func BenchmarkRunNLTCS(b *testing.B) { benchRun(b, "nltcs", 0.8) }
func BenchmarkRunAdult(b *testing.B) { benchRun(b, "adult", 0.8) }
