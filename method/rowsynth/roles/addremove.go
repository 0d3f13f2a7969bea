package roles

import (
	"fmt"
	"math"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/measurement"
)

// FrequencyGrid is the public grid (2^-24) an owner rounds a reference
// frequency to under add/remove neighbours before scaling it by its own
// record count n_k. Rounding the frequency, not the product n_k·f as
// replace-one does, keeps the reference n_k·f̃ exactly linear in n_k, so
// that adding a record moves it by f̃ and nothing more (a rounding of the
// product could move every cell by a further grid step). The products
// are multiples of the grid, exact in floating point while a score's
// terms total less than 2^28 (exactScore); the rounding moves an
// owner's reference by at most n_k·2^-25 per cell (under 0.01 for a
// million records).
const FrequencyGrid = 1.0 / (1 << 24)

// maxReferenceMass bounds ‖f̃‖₁ of one reference an owner accepts under
// add/remove: an honest reference sums to about 1 (a model's
// frequencies, or noisy one-ways over the noisy n), and the bound keeps
// the sensitivity 1 + ‖f̃‖₁ and every neighbour's sum exact.
const maxReferenceMass = 1 << 20

// roundedFrequencies are freq rounded to FrequencyGrid, and their L1
// norm (exact: a sum of multiples of the grid below 2^29).
func roundedFrequencies(freq []float64) ([]float64, float64, error) {
	out := make([]float64, len(freq))
	mass := 0.0
	for i, f := range freq {
		r := math.Round(f / FrequencyGrid)
		if math.IsNaN(r) || math.IsInf(r, 0) {
			return nil, 0, fmt.Errorf("reference frequency %v is not finite", f)
		}
		out[i] = r * FrequencyGrid
		mass += math.Abs(out[i])
		if !(mass <= maxReferenceMass) {
			return nil, 0, fmt.Errorf("reference frequencies of total mass above %d", maxReferenceMass)
		}
	}
	return out, mass, nil
}

// AddRemoveReference is an owner's reference under add/remove
// neighbours: records·f̃_x for the frequencies f rounded to
// FrequencyGrid, exact, and the sensitivity 1 + ‖f̃‖₁ of the owner's
// score OwnerScore against it (AddRemoveScoreSensitivity).
func AddRemoveReference(freq []float64, records int) ([]float64, float64, error) {
	f, mass, err := roundedFrequencies(freq)
	if err != nil {
		return nil, 0, err
	}
	n := float64(records)
	for i := range f {
		f[i] *= n
	}
	return f, 1 + mass, nil
}

// AddRemoveScoreSensitivity is the sensitivity, under add/remove
// neighbours, of the owners' summed score Σ_k ‖M(D_k) − n_k·f̃‖₁ against a
// public reference f (frequencies over the released noisy count ñ:
// M_r(p̂)/ñ for a candidate, or N*_i·N*_j/ñ² for a pair), rounded to
// FrequencyGrid. Adding a record to owner k moves its counts M(D_k) by 1
// in one cell and its reference n_k·f̃ by f̃, i.e. by ‖f̃‖₁ in L1 (‖M_r(p̂)‖₁/ñ for
// a candidate); by the reverse triangle inequality its summand
// moves by at most 1 + ‖f̃‖₁, removing one likewise, and no other
// owner's summand moves (f and ñ are public, released before). For a
// model's frequencies ‖f̃‖₁ is 1 up to rounding, so the bound is about
// 2: the owners' private n_k cost what replace-one's moved record does,
// where one curator's score (its reference public) has sensitivity 1.
// Each owner computes it from the reference it was sent.
func AddRemoveScoreSensitivity(freq []float64) (float64, error) {
	_, mass, err := roundedFrequencies(freq)
	return 1 + mass, err
}

// pairFrequencies are the pair score's reference frequencies a_i·b_j
// (mixed radix, the second attribute fastest), public.
func pairFrequencies(a, b []float64) []float64 {
	out := make([]float64, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x*y)
		}
	}
	return out
}

// Sensitivity is the L1 and L2 sensitivity, under nb, of what an owner
// releases for q summed over the owners, computed from the request's own
// content (its kind, its number of sets, its references) and nothing it
// declares. Under replace-one: a count vector 2 / √2, a pair score 2,
// the scores of c candidates 2c / 2√c (SelectSensitivity); a count
// request is refused (the counts are public). Under add/remove: a count
// vector and the record count 1 / 1 (one owner's counts move in one
// cell by one), a pair score s = AddRemoveScoreSensitivity of its
// reference, the scores of candidates Σ_i s_i / √(Σ_i s_i²).
func (q *Request) Sensitivity(nb dp.Neighbours) (what string, l1, l2 float64, err error) {
	if nb.PublicCount() {
		switch q.Kind {
		case KindHistogram, KindMarginal:
			return "a count vector", measurement.CountL1, measurement.CountL2, nil
		case KindScore:
			return "a pair score", measurement.IInDifSensitivity, measurement.IInDifSensitivity, nil
		case KindSelect:
			l1, l2 := SelectSensitivity(len(q.Sets))
			return fmt.Sprintf("the scores of %d candidates", len(q.Sets)), l1, l2, nil
		}
		return "", 0, 0, fmt.Errorf("request of kind %q under %s", q.Kind, nb.Or())
	}
	switch q.Kind {
	case KindHistogram, KindMarginal:
		return "a count vector under add/remove", measurement.CountL1AddRemove, measurement.CountL2AddRemove, nil
	case KindCount:
		return "the record count under add/remove", measurement.CountL1AddRemove, measurement.CountL2AddRemove, nil
	case KindScore:
		if len(q.Refs) != 2 {
			return "", 0, 0, fmt.Errorf("score request with %d reference vectors, want 2", len(q.Refs))
		}
		s, err := AddRemoveScoreSensitivity(pairFrequencies(q.Refs[0], q.Refs[1]))
		return "a pair score under add/remove", s, s, err
	case KindSelect:
		sq := 0.0
		for _, f := range q.Refs {
			s, err := AddRemoveScoreSensitivity(f)
			if err != nil {
				return "", 0, 0, err
			}
			l1, sq = l1+s, sq+s*s
		}
		return fmt.Sprintf("the scores of %d candidates under add/remove", len(q.Refs)), l1, math.Sqrt(sq), nil
	}
	return "", 0, 0, fmt.Errorf("request of kind %q under %s", q.Kind, nb.Or())
}

// OwnNoiseUnder is the noise an owner whose session's relation is nb
// releases q at: q must name nb itself (a coordinator cannot have owners
// calibrate to one relation while it states another), and the declared
// noise must be exactly the owner's own calibration of q's Sensitivity
// under nb at the declared mechanism and ρ.
func (q *Request) OwnNoiseUnder(nb dp.Neighbours) (measurement.Noise, error) {
	if q.Neighbours.Or() != nb.Or() {
		return measurement.Noise{}, fmt.Errorf("the request is calibrated to %s neighbours, the owner's session to %s", q.Neighbours.Or(), nb.Or())
	}
	what, l1, l2, err := q.Sensitivity(nb)
	if err != nil {
		return measurement.Noise{}, err
	}
	return ownCalibration(what, l1, l2, q.Release.Noise)
}

// Calibrate sets q's noise to the calibration of its Sensitivity under
// nb at mechanism mech and ρ rho, and names nb in q: what the coordinator
// sends, and what each owner will recompute (OwnNoiseUnder).
func (q *Request) Calibrate(nb dp.Neighbours, mech measurement.Mechanism, rho float64) error {
	_, l1, l2, err := q.Sensitivity(nb)
	if err != nil {
		return err
	}
	noise, err := measurement.Calibrate(mech, l1, l2, rho)
	if err != nil {
		return err
	}
	q.Release.Noise, q.Neighbours = noise, nb.Or()
	return nil
}

// addRemoveScores are an owner's scores under add/remove: OwnerScore of
// its counts[i] against AddRemoveReference(refs[i]), each sum checked
// exact on FrequencyGrid.
func addRemoveScores(counts, refs [][]float64, records int) ([]float64, error) {
	out := make([]float64, len(counts))
	for i, c := range counts {
		ref, _, err := AddRemoveReference(refs[i], records)
		if err != nil {
			return nil, err
		}
		if len(ref) != len(c) {
			return nil, fmt.Errorf("score over %d counts with a reference of %d", len(c), len(ref))
		}
		if err := exactScore(c, ref, FrequencyGrid); err != nil {
			return nil, err
		}
		out[i] = OwnerScore(c, ref)
	}
	return out, nil
}
