// Package pdpmvds defines PDP-MVDS (parties of columns synthesising one
// table with personalised budgets through secure multi-party marginals)
// as a method: its settings, the session its synthesizer opens, every
// role built from it, and the published table with its privacy report.
// A one-process run can drive the engine's measurements one protocol
// session at a time (RunMeasured, which also times every phase) or as one
// session (method.RunLocal, as the network does); both build the roles
// and draw the randomness here, in one order.
package pdpmvds

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/method"
	proto "github.com/dppub/dppub/method/pdpmvds/roles"
)

// Name is the method's name.
const Name = "pdp-mvds"

// Roles: the synthesizer runs the engine (it holds no data), the third
// party S assists the secure computation; the parties have method.RoleOwner.
const (
	RoleSynthesizer = "synthesizer"
	RoleThirdParty  = "third-party"
)

// Settings are PDP-MVDS's settings. The parties are the members of role
// owner in order, each holding the columns its own schema declares, for
// the same records in the same row order — or, with Link, for
// overlapping sets of records under an ID column, which the session links
// first.
type Settings struct {
	// Records is the public record count n every party holds (one
	// process: the tables'). With Link it may be left out: the record
	// count is then the size of the intersection the linkage finds (if
	// given, the intersection must have exactly this size).
	Records int `json:"records,omitempty" flag:"-"`
	// Link starts the session with record linkage: every party's schema
	// names an ID column, the parties find the IDs they all hold by a
	// multi-party Diffie–Hellman private set intersection (package
	// protocol/psi), each keeps its rows of those IDs in one common order
	// and drops the ID column, and PDP-MVDS runs on them. No budget is
	// spent; the linkage reveals the set sizes exactly (the report says
	// which).
	Link bool `json:"link,omitempty" help:"link the parties' records first by private set intersection on their ID columns (the schemas' id); the record count is then the intersection's"`
	// Rho is every party's zCDP budget ρ_k for the session; Budgets
	// overrides it per party (by name).
	Rho     float64            `json:"rho,omitempty" flag:"-"`
	Budgets map[string]float64 `json:"budgets,omitempty"`
	// SSPP is the secure-computation suite (default commodity).
	SSPP proto.Suite `json:"sspp,omitempty" help:"secure scalar product: commodity or paillier"`
	// Noise is the noise mode (default insider-safe).
	Noise proto.NoiseMode `json:"noise,omitempty" help:"noise mode: insider-safe or exact"`
	// Mechanism of the pair scores and the selected marginals (default
	// Gaussian; Laplace with the exact noise mode uses DLPA in the
	// Paillier suite, as the paper).
	Mechanism measurement.Mechanism `json:"mechanism,omitempty" help:"noise of the pair scores and marginals: gaussian or laplace (one-way marginals are always Laplace)"`
	// EngineSettings are the marginal engine's (method.EngineSettings).
	// BinShare is the share of each party's ρ_k it spends choosing the
	// bins of its own numeric attributes from its own columns (noisy
	// histograms on a public grid, measurement.ChooseCuts), refining the
	// equal-width Bins, so that a value many records share (a zero) keeps
	// a bin of its own; a party without numeric attributes spends nothing
	// on bins. Zero or negative keeps the equal-width bins, with each
	// public value (minimum, maximum, 0 inside the bounds) a bin of its
	// own (domain.PublicValueCuts) and no budget on them: the default, unlike the single-owner engines'
	// 0.05, because with 0.05 on Adult (3 parties, ρ 0.05 to 1) the 2-way
	// total-variation distance measured on the equal-width grid rose by
	// 4–19 %, and the comparison of the protocol with the single-owner
	// engine (publish's TestPDPMVDSMatchesSingleOwner, equal-width there)
	// no longer held. The adaptive method and the score indif are refused
	// (Validate): the parties cannot compute AIM's selection scores or
	// PrivSyn's score over the others' columns without revealing them.
	method.EngineSettings
	// Delta states each party's zCDP spend as (ε, δ)-DP too (default 1/n²).
	Delta float64 `json:"delta,omitempty" help:"δ at which each party's zCDP spend is also stated as (ε, δ)-DP (default 1/n², at most 1e-5)"`
	// Keys is, for the paillier suite over the network, the directory
	// (relative to the consortium file and inside its directory, on each
	// member's own machine) of the key ceremony's files: party k reads
	// only its party-k.key.json, S only public-key.json. No key ever
	// travels over the network.
	Keys string `json:"keys,omitempty" flag:"-"`
	// KeyBits sizes every Paillier key (default 2048); InsecureTestKeys
	// allows smaller, INSECURE keys (tests only).
	KeyBits          int  `json:"key_bits,omitempty" help:"Paillier modulus size (paillier suite); 3072 recommended beyond 2030"`
	InsecureTestKeys bool `json:"insecure_test_keys,omitempty" help:"INSECURE: allow --key-bits below 2048 (tests only)"`
	// Workers bounds each role's parallelism (0: GOMAXPROCS); local to
	// each member.
	Workers int `json:"workers,omitempty" help:"goroutines per role and step (default: all cores)"`
}

// SetDefaults fills the zero fields.
func (s *Settings) SetDefaults() {
	s.SSPP = cmp.Or(s.SSPP, proto.SuiteCommodity)
	s.Noise = cmp.Or(s.Noise, proto.NoiseInsiderSafe)
	s.Mechanism = cmp.Or(s.Mechanism, measurement.Gaussian)
	s.EngineSettings.SetDefaults()
	s.KeyBits = cmp.Or(s.KeyBits, proto.DefaultKeyBits)
	if s.Delta == 0 && s.Records > 0 {
		s.Delta = dp.DefaultDeltaCapped(s.Records)
	}
}

// DefaultRecords takes the public record count from the parties' tables
// (a one-process run), and δ = 1/n² from it. With Link the record count
// is the intersection's, not yet known: δ defaults to 1/n² of the
// smallest table, whose size bounds the intersection's (so δ is no
// larger than 1/n² of the linked records).
func (s *Settings) DefaultRecords(n int) {
	if s.Link {
		if s.Delta == 0 && n > 0 {
			s.Delta = dp.DefaultDeltaCapped(n)
		}
		s.SetDefaults()
		return
	}
	if s.Records == 0 {
		s.Records = n
	}
	s.SetDefaults()
}

// Validate checks the settings on their own; the budgets are checked
// against the parties when a session opens.
func (s *Settings) Validate() error {
	switch {
	case s.Link && s.Records < 0:
		return fmt.Errorf("records must not be negative, got %d", s.Records)
	case s.Link && s.Records == 0 && s.Delta == 0:
		// δ = 1/n² needs n, which only the linkage finds.
		return fmt.Errorf("a linked session without records learns its record count from the linkage, so it needs delta")
	case !s.Link && s.Records < 1:
		return fmt.Errorf("the settings need the public record count (records), got %d", s.Records)
	case s.SSPP != proto.SuiteCommodity && s.SSPP != proto.SuitePaillier:
		return fmt.Errorf("sspp must be commodity or paillier, got %q", s.SSPP)
	case s.SSPP != proto.SuitePaillier && s.Keys != "":
		return fmt.Errorf("keys is for sspp paillier")
	case s.Keys != "" && !filepath.IsLocal(s.Keys):
		// The coordinator names the directory; it must not steer a party
		// to read a key file from anywhere but its consortium directory.
		return fmt.Errorf("keys must be a directory inside the consortium file's directory (relative, no ..), got %q", s.Keys)
	case s.KeyBits < 2048 && !s.InsecureTestKeys:
		return fmt.Errorf("key_bits %d is below 2048; set insecure_test_keys for a test run", s.KeyBits)
	case s.Noise.Check() != nil:
		return fmt.Errorf("noise: %w", s.Noise.Check())
	case s.Mechanism != measurement.Gaussian && s.Mechanism != measurement.Laplace:
		return fmt.Errorf("mechanism must be gaussian or laplace, got %q", s.Mechanism)
	case s.Workers < 0:
		return method.Fieldf("workers", "must not be negative, got %d", s.Workers)
	case !(s.Delta > 0 && s.Delta < 1):
		return fmt.Errorf("delta must be in (0, 1), got %v", s.Delta)
	}
	if err := s.EngineSettings.Validate(); err != nil {
		return err
	}
	if err := s.RefuseScore("the parties compute the paper's score by secure products"); err != nil {
		return err
	}
	if s.BinRefine != "" {
		return method.Fieldf("bin_refine", "is not available for parties of columns: the bins a party chooses are the bins it measures, got %q", s.BinRefine)
	}
	if err := method.CheckNeighbours(Name, s.Neighbours, dp.NeighboursReplaceOne); err != nil {
		return err
	}
	return s.RefuseAdaptive("parties of columns cannot compute AIM's selection scores over the other parties' columns without revealing them; PDP-MVDS runs the paper method")
}

// binsOn says whether the parties choose their numeric attributes' bins
// from their data.
func (s *Settings) binsOn() bool { return s.BinShare > 0 }

// rho is the named party's budget.
func (s *Settings) rho(party string) float64 {
	if r, ok := s.Budgets[party]; ok {
		return r
	}
	return s.Rho
}

// checkParties checks the budgets against the session's parties.
func (s *Settings) checkParties(parties []string) error {
	for name := range s.Budgets {
		if !slices.Contains(parties, name) {
			return fmt.Errorf("budgets names %q, not a party of the session %v", name, parties)
		}
	}
	for _, p := range parties {
		if err := dp.CheckRho(s.rho(p)); err != nil {
			return fmt.Errorf("%s's budget (set rho or budgets): %w", p, err)
		}
	}
	return nil
}
