package roles

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/randx"
)

func selectRequest(sets [][]int, refs [][]float64, declaredFor int) *Request {
	l1, l2 := SelectSensitivity(declaredFor)
	n, err := measurement.Calibrate(measurement.Gaussian, l1, l2, 0.01)
	if err != nil {
		panic(err)
	}
	return &Request{Session: "s", ID: 3, Kind: KindSelect, Sets: sets, Refs: refs,
		Release: measurement.Release{Purpose: "adaptive selection 1", Parties: []int{0}, Noise: n}}
}

// A select request survives the wire, and one of a bad shape is refused
// when it is read, before an owner counts or charges anything.
func TestSelectRequestWire(t *testing.T) {
	uniform := func(n int) []float64 {
		f := make([]float64, n)
		for i := range f {
			f[i] = 1 / float64(n)
		}
		return f
	}
	good := selectRequest([][]int{{0, 1}, {1}}, [][]float64{uniform(6), uniform(2)}, 2)
	b, err := good.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var back Request
	if err := back.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if len(back.Sets) != 2 || back.Sets[0][1] != 1 || len(back.Refs[0]) != 6 || back.Release.Noise != good.Release.Noise {
		t.Fatalf("read back %+v", back)
	}
	for _, c := range []struct {
		name string
		q    *Request
		want string
	}{
		{"no sets", selectRequest(nil, nil, 1), "at least one"},
		{"fewer references", selectRequest([][]int{{0}, {1}}, [][]float64{uniform(2)}, 2), "references"},
		{"unsorted set", selectRequest([][]int{{1, 0}}, [][]float64{uniform(6)}, 1), "sorted"},
		{"repeated set", selectRequest([][]int{{0}, {0}}, [][]float64{uniform(2), uniform(2)}, 2), "twice"},
		{"four attributes", selectRequest([][]int{{0, 1, 2, 3}}, [][]float64{uniform(16)}, 1), "attributes"},
		{"negative frequency", selectRequest([][]int{{0}}, [][]float64{{1.5, -0.5}}, 1), "non-negative"},
		{"not finite", selectRequest([][]int{{0}}, [][]float64{{math.Inf(1), 0}}, 1), "non-negative"},
		{"not summing to one", selectRequest([][]int{{0}}, [][]float64{{1e6, 1e6}}, 1), "sum to"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := c.q.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var q Request
			if err := q.UnmarshalBinary(b); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error saying %q", err, c.want)
			}
		})
	}
}

// An owner calibrates a select request to the number of sets it was
// sent: a declaration for fewer candidates is refused.
func TestSelectOwnNoise(t *testing.T) {
	sets := [][]int{{0}, {1}, {0, 1}, {2}}
	refs := [][]float64{{0.5, 0.5}, {0.5, 0.5}, {0.25, 0.25, 0.25, 0.25}, {0.5, 0.5}}
	if _, err := selectRequest(sets, refs, 4).OwnNoise(); err != nil {
		t.Fatalf("an honest declaration refused: %v", err)
	}
	for _, declared := range []int{1, 3} {
		if _, err := selectRequest(sets, refs, declared).OwnNoise(); err == nil {
			t.Errorf("a declaration for %d of 4 candidates accepted", declared)
		}
	}
}

// An owner's scores are its L1 errors against its share of the model's
// estimate: 10 records counted (6, 4) against frequencies (0.5, 0.5)
// score |6 − 5| + |4 − 5| = 2.
func TestSelectValues(t *testing.T) {
	q := selectRequest([][]int{{0}}, [][]float64{{0.5, 0.5}}, 1)
	v, plan, err := q.SelectValues([][]float64{{6, 4}}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(v) != 1 || math.Abs(v[0]-2) > plan.Grid {
		t.Fatalf("scores %v on grid %v, want 2", v, plan.Grid)
	}
	if _, _, err := q.SelectValues([][]float64{{6, 4, 0}}, 10); err == nil {
		t.Fatal("a reference of the wrong length accepted")
	}
}

// The filter reads public quantities only: it keeps at most k, half by
// the largest last utility, scores every uncovered candidate before any
// candidate a measured set covers, and then scores the covered ones too
// (re-measurement, as AIM's), every candidate within a few rounds.
// Before, the covered ones were never offered while another was.
func TestSelectFilter(t *testing.T) {
	var f SelectFilter
	var q measurement.SelectQuery
	for a := range 6 {
		for b := a + 1; b < 6; b++ {
			q.Candidates = append(q.Candidates, []int{a, b})
			q.Weights = append(q.Weights, 1)
		}
	}
	f.measure([]int{0, 1, 2}) // covers (0,1), (0,2), (1,2)
	seen := map[int]int{}
	first := -1
	for round := range 8 {
		kept := f.keep(q, 4)
		if len(kept) != 4 {
			t.Fatalf("round %d kept %d candidates, want 4", round, len(kept))
		}
		uncoveredSeen := 0
		for i, s := range q.Candidates {
			if s[1] > 2 && seen[i] > 0 {
				uncoveredSeen++
			}
		}
		for _, i := range kept {
			if s := q.Candidates[i]; s[1] <= 2 && uncoveredSeen < 12 && seen[i] == 0 {
				t.Fatalf("round %d kept %v, which a measured set covers, while %d uncovered candidates were never scored", round, s, 12-uncoveredSeen)
			}
		}
		for _, i := range kept {
			seen[i]++
			if i == 14 && first < 0 {
				first = round
			}
			// Candidate (4,5), index 14, always scores highest.
			u := 1.0
			if i == 14 {
				u = 100
			}
			f.scored(q.Candidates[i], u)
		}
		f.round++
	}
	if len(seen) != 15 {
		t.Errorf("8 rounds scored %d of the 15 candidates, covered ones included", len(seen))
	}
	if first < 0 || seen[14] != 8-first {
		t.Errorf("the best candidate, first scored in round %d, was scored in %d of the %d rounds since: want it kept once found", first, seen[14], 8-first)
	}
}

// Where the query bounds each candidate's score (a spanning tree's
// rounds: measurement.SelectQuery.MaxScores), the never-scored candidates
// of equal weight are offered in the order of the largest utility they
// could have, w·(bound − penalty): the first round's exploration takes
// the heavier candidate, then the three of largest reach, and a
// candidate whose penalty exceeds any score it could have is offered
// only after every other has been scored.
func TestSelectFilterOffersTheLargestReachFirst(t *testing.T) {
	var f SelectFilter
	var q measurement.SelectQuery
	reach := map[int]float64{}
	for a := range 5 {
		for b := a + 1; b < 5; b++ {
			i := len(q.Candidates)
			q.Candidates = append(q.Candidates, []int{a, b})
			q.Weights = append(q.Weights, 1)
			q.MaxScores = append(q.MaxScores, float64(100*(i%4)))
			q.Penalties = append(q.Penalties, float64(10*i))
			reach[i] = q.Weights[i] * (q.MaxScores[i] - q.Penalties[i])
		}
	}
	const heavy = 8 // of negative reach, but heavier: offered first
	q.Weights[heavy] = 2
	reach[heavy] *= 2
	byReach := slices.SortedFunc(maps.Keys(reach), func(a, b int) int { return cmp.Compare(reach[b], reach[a]) })
	first := f.keep(q, 4)
	want := []int{heavy}
	for _, i := range byReach {
		if i != heavy && len(want) < 4 {
			want = append(want, i)
		}
	}
	if slices.Sort(want); !slices.Equal(first, want) {
		t.Fatalf("first round kept %v, want the heavier %d and the three of largest reach %v (reach %v)", first, heavy, want, reach)
	}
	seen := map[int]bool{}
	for round := 0; len(seen) < len(q.Candidates); round++ {
		kept := f.keep(q, 4)
		for _, i := range kept {
			left := func(j int) bool { return reach[j] >= 0 && !seen[j] && !slices.Contains(kept, j) }
			if i != heavy && reach[i] < 0 && !seen[i] && slices.ContainsFunc(byReach, left) {
				t.Fatalf("round %d offered %v (reach %v) before every candidate of reach ≥ 0", round, q.Candidates[i], reach[i])
			}
		}
		for _, i := range kept {
			seen[i] = true
			f.scored(q.Candidates[i], 0)
		}
		f.round++
		if round > 10 {
			t.Fatalf("10 rounds scored %d of %d candidates", len(seen), len(q.Candidates))
		}
	}
}

// In a round that offers triples the filter drops the candidates a
// measured set covers, as long as another is open: NLTCS's workload, where
// offering them measured worse (SelectFilter).
func TestSelectFilterDropsCoveredAmongTriples(t *testing.T) {
	for _, c := range []struct {
		name     string
		measured [][]int
		wantAll  bool
	}{
		{"a measured triple covers four of the candidates", [][]int{{0, 1, 2}}, false},
		{"every candidate covered: all offered", [][]int{{0, 1, 2, 3}}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var f SelectFilter
			var q measurement.SelectQuery
			for a := range 4 {
				for b := a + 1; b < 4; b++ {
					q.Candidates = append(q.Candidates, []int{a, b})
				}
			}
			q.Candidates = append(q.Candidates, []int{0, 1, 2}, []int{1, 2, 3})
			for range q.Candidates {
				q.Weights = append(q.Weights, 1)
			}
			for _, m := range c.measured {
				f.measure(m)
			}
			seen := map[int]bool{}
			for range 6 {
				for _, i := range f.keep(q, 4) {
					seen[i] = true
					f.scored(q.Candidates[i], 1)
				}
				f.round++
			}
			for i, s := range q.Candidates {
				if covered := f.covered(s); seen[i] != (!covered || c.wantAll) {
					t.Errorf("candidate %v (covered %v) scored %v in 6 rounds", s, covered, seen[i])
				}
			}
		})
	}
}

// A one-way marginal stays a candidate after every attribute has been
// measured, as for one curator; a pair inside a measured set does not.
func TestSelectFilterKeepsOneWays(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  []int
		open bool
	}{
		{"one-way inside a measured pair", []int{1}, true},
		{"one-way measured alone", []int{3}, true},
		{"pair inside a measured triple", []int{0, 2}, false},
		{"pair across two measured sets", []int{2, 3}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f SelectFilter
			f.measure([]int{0, 1, 2})
			f.measure([]int{3})
			if got := !f.covered(tc.set); got != tc.open {
				t.Errorf("candidate %v open = %v, want %v", tc.set, got, tc.open)
			}
		})
	}
}

// On a model that fits the pooled records exactly the pooled score is 0,
// and the owners' summed score of a random split is all excess: each
// owner's counts deviate from its share n_k·f by its own sampling
// deviation. splitExcess, which the coordinator computes from public
// quantities only (the owners' record counts and the model), is that
// excess's expected value: over 200 random splits of 21 000 records
// of one triple of binary attributes the mean summed score is within 5 %
// of it (the mean's relative standard error is about 1 % with 3 owners
// and 0.6 % with 10, so the bound is more than 4 standard errors).
func TestSplitExcessIsARandomSplitsExpectedExcess(t *testing.T) {
	freq := []float64{0.30, 0.05, 0.10, 0.15, 0.02, 0.08, 0.12, 0.18}
	const n, splits = 21000, 200
	cells := make([]int, 0, n)
	pooled := make([]float64, len(freq))
	for x, f := range freq {
		for range int(math.Round(f * n)) {
			cells = append(cells, x)
			pooled[x]++
		}
	}
	ref, err := SelectReference(freq, n, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != n || OwnerScore(pooled, ref) != 0 {
		t.Fatalf("%d records with pooled score %v: the test's model should fit exactly", len(cells), OwnerScore(pooled, ref))
	}
	for _, owners := range []int{3, 10} {
		t.Run(fmt.Sprintf("%d owners", owners), func(t *testing.T) {
			sizes := make([]int, owners)
			for k := range sizes {
				sizes[k] = n / owners
				if k < n%owners {
					sizes[k]++
				}
			}
			excess := (&Measurer{c: &Coordinator{records: sizes}}).splitExcess(freq)
			src := randx.NewSeeded(uint64(owners))
			sum := 0.0
			for range splits {
				perm := src.Perm(n)
				at := 0
				for _, nk := range sizes {
					counts := make([]float64, len(freq))
					for _, i := range perm[at : at+nk] {
						counts[cells[i]]++
					}
					at += nk
					ref, err := SelectReference(freq, nk, 1)
					if err != nil {
						t.Fatal(err)
					}
					sum += OwnerScore(counts, ref)
				}
			}
			mean := sum / splits
			t.Logf("mean summed score %.1f, splitExcess %.1f, pooled score 0", mean, excess)
			if !(excess > 0) || math.Abs(mean-excess) > 0.05*excess {
				t.Errorf("mean summed score %.1f of %d owners on an exactly fitting model, splitExcess %.1f: want within 5%%", mean, owners, excess)
			}
		})
	}
}

// Utilities releases every candidate's summed score in requests of at
// most the chunk's sets, sent in one round: at a huge ρ each utility is
// w·(Σ_k owner k's score − penalty − ExcessShare·splitExcess), each owner
// is charged once per request, the charges summing to the ρ asked, and
// the filter remembers every utility.
func TestUtilities(t *testing.T) {
	sets := [][]int{{0}, {1}, {0, 1}}
	refs := [][]float64{{0.2, 0.3, 0.5}, uniformFrequencies(11), uniformFrequencies(33)}
	for _, chunk := range []int{0, 2, 1} {
		t.Run(fmt.Sprint(chunk), func(t *testing.T) {
			s := newSetup(t, NoiseInsiderSafe, 40, 61)
			const rho = 1e8
			q := measurement.SelectQuery{Candidates: sets, Weights: []float64{1, 2, 0.5}, Penalties: []float64{1, 0, 3}}
			for _, f := range refs {
				est := make([]float64, len(f))
				for i, v := range f {
					est[i] = 101 * v
				}
				q.Estimates = append(q.Estimates, est)
			}
			var got, want []float64
			var round int
			engine := func(ctx context.Context, m *Measurer) error {
				m.utilitiesChunk = chunk
				if err := m.SetDomain(ctx, nil); err != nil {
					return err
				}
				var err error
				if got, err = m.Utilities(ctx, q, "test", rho); err != nil {
					return err
				}
				for i, set := range sets {
					score := 0.0
					for k := range s.tables {
						score += s.ownerSetScore(t, k, set, refs[i])
					}
					want = append(want, q.Weights[i]*(score-q.Penalties[i]-ExcessShare*m.splitExcess(refs[i])))
					if u := m.filter.last[fmt.Sprint(set)]; u.utility != got[i] {
						return fmt.Errorf("the filter remembers %v for %v, released %v", u.utility, set, got[i])
					}
				}
				round = m.filter.round
				return nil
			}
			if err := s.run(t, engine); err != nil {
				t.Fatal(err)
			}
			for i := range sets {
				if math.Abs(got[i]-want[i]) > 0.01 {
					t.Errorf("candidate %v: utility %v, want %v", sets[i], got[i], want[i])
				}
			}
			requests := len(sets)
			if chunk == 0 {
				requests = 1
			} else {
				requests = (len(sets) + chunk - 1) / chunk
			}
			for k, a := range s.accts {
				if n, spent := len(a.Charges()), a.Spent().Rho; n != requests || math.Abs(spent-rho) > 1e-9*rho {
					t.Errorf("owner %d charged %d times, ρ = %v in all; want %d times, ρ = %v", k+1, n, spent, requests, rho)
				}
			}
			if round != 1 {
				t.Errorf("the filter counts %d rounds after one release", round)
			}
		})
	}
}

// Owners pool a tree's selections where one release's noise per
// candidate is no more than a round's (c ≤ rounds × the candidates a
// round scores) or at most PoolNoise of the records (n = 101 here).
func TestPools(t *testing.T) {
	for _, c := range []struct {
		candidates, rounds, perRound int
		rho                          float64
		want                         bool
	}{
		{351, 26, 0, 1e-6, true},   // zeroinfl's tree: 27 attributes
		{496, 31, 0, 1e-6, true},   // 32 attributes: 16 per round exactly
		{528, 32, 0, 1e-6, false},  // 33 attributes, noise far above n/3
		{2628, 72, 0, 1e-6, false}, // wide: 73 attributes
		{2628, 72, 64, 1e-6, true}, // … with 64 candidates a round
		{465, 30, 8, 1e-6, false},  // WDBC with 8 a round
		{2628, 72, 0, 12.9, true},  // σ = √(2·2628/12.9) = 20.18 ≤ 0.2·101
		{2628, 72, 0, 12.8, false}, // σ = 20.26 > 0.2·101
	} {
		t.Run(fmt.Sprint(c.candidates, "/", c.rounds, "/", c.perRound, "/", c.rho), func(t *testing.T) {
			s := newSetup(t, NoiseInsiderSafe, 40, 61)
			var got bool
			engine := func(ctx context.Context, m *Measurer) error {
				m.SelectCandidates = c.perRound
				got = m.Pools(c.candidates, c.rounds, c.rho)
				return nil
			}
			if err := s.run(t, engine); err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("Pools(%d, %d, %v) with %d a round = %v, want %v", c.candidates, c.rounds, c.rho, c.perRound, got, c.want)
			}
		})
	}
}

func uniformFrequencies(n int) []float64 {
	f := make([]float64, n)
	for i := range f {
		f[i] = 1 / float64(n)
	}
	return f
}

// ownerSetScore is owner k's exact score of set against its share of the
// reference frequencies: ‖M(D_k) − n_k·f‖₁.
func (s *setup) ownerSetScore(t *testing.T, k int, set []int, f []float64) float64 {
	t.Helper()
	dom, err := domain.New(s.params.Schema, domain.Options{Bins: s.params.Bins})
	if err != nil {
		t.Fatal(err)
	}
	ds, _, err := dom.Encode(s.tables[k])
	if err != nil {
		t.Fatal(err)
	}
	m, err := domain.Count(ds, set)
	if err != nil {
		t.Fatal(err)
	}
	n := float64(s.tables[k].Len())
	out := 0.0
	for i, v := range m.Counts {
		out += math.Abs(v - n*f[i])
	}
	return out
}

// A select query whose slices do not match its candidates, or with a
// weight that is not positive, is refused before anything is asked of
// the owners; MaxScores may be absent.
func TestCheckQueryRefusesMismatchedSlices(t *testing.T) {
	ok := measurement.SelectQuery{Candidates: [][]int{{0, 1}, {1, 2}}, Estimates: [][]float64{{1}, {1}},
		Weights: []float64{1, 1}, Penalties: []float64{0, 0}}
	for _, c := range []struct {
		name string
		edit func(*measurement.SelectQuery)
		want string
	}{
		{"no score bounds", func(*measurement.SelectQuery) {}, ""},
		{"a bound per candidate", func(q *measurement.SelectQuery) { q.MaxScores = []float64{3, 4} }, ""},
		{"one bound for two candidates", func(q *measurement.SelectQuery) { q.MaxScores = []float64{3} }, "2 candidates, 1 score bounds"},
		{"one penalty for two candidates", func(q *measurement.SelectQuery) { q.Penalties = q.Penalties[:1] }, "1 penalties"},
		{"a weight of 0", func(q *measurement.SelectQuery) { q.Weights = []float64{1, 0} }, "has weight 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := ok
			c.edit(&q)
			err := checkQuery("adaptive selection 1", q)
			if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}
