package infer

import "github.com/dppub/dppub/engine/marginal/domain"

// Model is a graphical model over a discretised domain fitted to noisy
// marginals (Private-PGM: McKenna, Sheldon & Miklau, "Graphical-model based
// estimation and inference for differential privacy", ICML 2019). Its
// distribution is p(x) ∝ exp(Σ_r θ_r(x_r)) over the measured attribute sets
// r; a junction tree over those sets makes every marginal inside a clique
// exact to compute. Beliefs are kept as counts summing to Total.
type Model struct {
	sizes []int
	total float64
	tree  *jtree
	// sets are the measured attribute sets, theta their log-potentials.
	sets  [][]int
	theta []*domain.Marginal
	// home[r] is the clique holding sets[r]; toSet[r] projects its cells
	// onto sets[r].
	home  []int
	toSet []stride
	// covers group the sets by clique for the mirror-descent steps.
	covers []cover
	// sweeps[c] walks clique c's cells; targets[c] are the maps a
	// calibration runs over them: [0] onto c's separator with its parent
	// (onto no attribute for a root), then onto each of coversOf[c], then
	// onto each child's separator.
	sweeps   []*sweep
	targets  [][]target
	coversOf [][]int
	// derivations[c] are the downward sums of clique c read off other
	// sums rather than swept (derived[c][k] for its target k).
	derivations [][]derivation
	derived     [][]bool
	// absorb[c] multiplies children's messages into another child's
	// (absorbed[c] marks them) for the upward sweep; kidProduct[c][j]
	// holds such a product for child j, kidTables[c] what kidMessages
	// returns.
	absorb     [][]derivation
	absorbed   [][]bool
	kidProduct [][][]float64
	kidTables  [][][]float64
	// log[c] is the log-potential of clique c (the sum of the θ_r it
	// holds), belief[c] its calibrated belief as counts.
	log, belief []*domain.Marginal
	msg         [][]float64 // upward message of each clique
	upScale     []float64   // what calibrate multiplied each msg by
	down        [][]float64 // downward message of each clique
	rootSum     [][]float64 // each root's belief summed by the upward pass
	pot         [][]float64 // exp of log, scaled per clique
	proj        *projections
	// messages caches variable elimination's upward messages for the
	// current beliefs (message); calibrate starts a new one.
	messages *budgetCache[*domain.Marginal]
}

// newModel lays out a model over the measured sets (each sorted; every
// attribute is covered by the tree even when no set holds it).
func newModel(sizes []int, sets [][]int, total float64) *Model {
	m := &Model{sizes: sizes, total: total, tree: newJTree(sizes, sets), sets: sets, proj: newProjections()}
	t := m.tree
	k := len(t.cliques)
	m.log, m.belief = make([]*domain.Marginal, k), make([]*domain.Marginal, k)
	m.msg, m.down, m.rootSum = make([][]float64, k), make([][]float64, k), make([][]float64, k)
	m.upScale = make([]float64, k)
	m.sweeps = make([]*sweep, k)
	for c, cl := range t.cliques {
		m.log[c] = newFactor(sizes, cl)
		m.belief[c] = newFactor(sizes, cl)
		m.sweeps[c] = newSweep(m.log[c])
		if t.parent[c] >= 0 {
			m.msg[c] = make([]float64, int(tableCells(sizes, t.sep[c])))
			m.down[c] = make([]float64, len(m.msg[c]))
		} else {
			m.rootSum[c] = make([]float64, 1)
		}
	}
	m.home, m.toSet, m.theta = make([]int, len(sets)), make([]stride, len(sets)), make([]*domain.Marginal, len(sets))
	for r, s := range sets {
		m.home[r] = t.home(s)
		m.toSet[r] = newStride(m.log[m.home[r]], s)
		m.theta[r] = newFactor(sizes, s)
	}
	m.covers = newCovers(m)
	m.coversOf, m.targets = make([][]int, k), make([][]target, k)
	for i, v := range m.covers {
		m.coversOf[v.clique] = append(m.coversOf[v.clique], i)
	}
	for c := range t.cliques {
		own := []int(nil) // a root's sums go onto no attribute: its total
		if t.parent[c] >= 0 {
			own = t.sep[c]
		}
		sw := m.sweeps[c]
		tg := []target{sw.target(own)}
		for _, i := range m.coversOf[c] {
			tg = append(tg, sw.target(m.covers[i].attrs))
		}
		for _, kid := range t.children[c] {
			tg = append(tg, sw.target(t.sep[kid]))
		}
		m.targets[c] = tg
	}
	m.derivations, m.derived = make([][]derivation, k), make([][]bool, k)
	m.absorb, m.absorbed = make([][]derivation, k), make([][]bool, k)
	m.kidTables, m.kidProduct = make([][][]float64, k), make([][][]float64, k)
	for c := range t.cliques {
		ks := make([]int, len(m.targets[c])-1)
		for i := range ks {
			ks[i] = i + 1
		}
		m.derivations[c], m.derived[c] = m.newDerivations(c, ks)
		m.newAbsorptions(c)
	}
	return m
}

// Cells is the size of the model's junction tree: the cells of its
// cliques (8 bytes each per table), which marginal.AdaptiveOptions.MaxCells caps.
func (m *Model) Cells() float64 { return m.tree.cells() }

// Holds reports whether one clique of the model's junction tree contains
// the attribute set (sorted): measuring it then leaves the tree as it is.
func (m *Model) Holds(set []int) bool { return m.tree.home(set) >= 0 }

// Sets are the measured attribute sets the model was laid out over (the
// caller must not modify them).
func (m *Model) Sets() [][]int { return m.sets }

// ModelCells is the size in cells of the junction tree a model over the
// attribute sets would have (Model.Cells), computed without building it.
func ModelCells(sizes []int, sets [][]int) float64 { return modelCells(sizes, sets) }
