package publish

import (
	"github.com/dppub/dppub/algo/marginal"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol/pdpmvds"
)

// The functions below are the pieces of PDPMVDS that a networked run
// (transport/methods) performs at different members, so that it publishes
// what PDPMVDS publishes in one process.

// PDPMVDSColumns bins one party's table over the domain: its attributes
// are the domain's attributes first, first+1, …; it returns the columns
// by global index and how many values were clamped to their bounds.
func PDPMVDSColumns(dom *marginal.Domain, t *data.Table, first int) (map[int][]uint16, int) {
	cols := map[int][]uint16{}
	clamped := 0
	for j := range t.Schema.Attributes {
		col := make([]uint16, t.Len())
		for r, row := range t.Rows {
			b, c := dom.Bin(first+j, row[j])
			if c {
				clamped++
			}
			col[r] = uint16(b)
		}
		cols[first+j] = col
	}
	return cols, clamped
}

// PDPMVDSEngineOptions are the engine's options (without its Source) for
// parties owning the domain's attributes as owners says, and the parties
// as the result lists them. o must have its defaults (see PDPMVDS); its
// Tables are not read.
func PDPMVDSEngineOptions(o PDPMVDSOptions, dom *marginal.Domain, owners []int, n int) (marginal.Options, []SynthesizeParty) {
	return o.engineOptions(dom, owners, n)
}

// PDPMVDSReport is the privacy report PDPMVDS writes, for the engine's
// result and the parties' accountants (in party order); dealt says that
// the Paillier key was dealt in process.
func PDPMVDSReport(o PDPMVDSOptions, s pdpmvds.Session, eng *marginal.Result, accts []*privacy.Accountant, n int, dealt bool) (*privacy.Report, error) {
	return pdpmvdsReport(o, s, eng, accts, n, dealt)
}

func (o PDPMVDSOptions) engineOptions(dom *marginal.Domain, owners []int, n int) (marginal.Options, []SynthesizeParty) {
	parties := make([]marginal.Party, len(o.Budgets))
	var listed []SynthesizeParty
	for k := range parties {
		var attrs []int
		for j, ow := range owners {
			if ow == k {
				attrs = append(attrs, j)
			}
		}
		parties[k] = marginal.Party{Name: o.Names[k], Rho: o.Budgets[k], Attrs: attrs}
		names := make([]string, len(attrs))
		for i, j := range attrs {
			names[i] = dom.Name(j)
		}
		listed = append(listed, SynthesizeParty{Name: o.Names[k], Rho: o.Budgets[k], Attributes: names})
	}
	return marginal.Options{
		Domain: dom, Parties: parties, Records: n, Split: o.Split, Score: marginal.IInDif,
		OneWayNoise: marginal.Laplace, ScoreNoise: o.Mechanism, MarginalNoise: o.Mechanism,
		Combine: o.Combine, GUM: marginal.GUMOptions{Rounds: o.Rounds, Rows: o.Rows},
		Progress: o.Progress,
	}, listed
}
