// Package rowsynth defines synthesize-rows as a method: owners of rows
// (hospitals with different patients) publish one synthetic table with
// the marginal engine (engine/marginal) run over their pooled records,
// through secure aggregation and distributed noise (method/rowsynth/roles),
// so that the result has the quality of one curator holding all the rows
// without any owner showing its records or its counts to anyone.
package rowsynth

import (
	"cmp"
	"fmt"
	"math"

	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/method"
	proto "github.com/dppub/dppub/method/rowsynth/roles"
)

// Name is the method's name.
const Name = "synthesize-rows"

// RoleCoordinator runs the engine, holds no data and publishes the table
// (the curator of a consortium of owners of rows).
const RoleCoordinator = "curator"

// Settings are synthesize-rows' settings. Every owner's budget is the
// same: its records enter every release.
type Settings struct {
	// Epsilon and Delta state each owner's budget as (ε, δ)-DP; it is
	// spent as ρ-zCDP with ρ the largest whose Canonne–Kamath–Steinke
	// conversion gives ε at δ (marginal.RhoFor). Rho gives ρ directly
	// instead.
	Epsilon float64 `json:"epsilon,omitempty" help:"privacy budget ε of each owner (spent as ρ-zCDP, converted at --delta)"`
	Delta   float64 `json:"delta,omitempty" help:"δ of the (ε, δ) budget (default 1/n² of all the owners' n records, at most 1e-5; required over the network)"`
	Rho     float64 `json:"rho,omitempty" help:"each owner's budget as ρ-zCDP instead of --epsilon"`
	// Noise says who draws the noise (default insider-safe).
	Noise proto.NoiseMode `json:"noise,omitempty" help:"noise mode: insider-safe (every owner and the coordinator add a share; any K of K+1 make up the noise) or exact (the owners' shares sum to the central noise)"`
	// EngineSettings are the marginal engine's (method.EngineSettings),
	// as one curator has them: with method adaptive the coordinator runs
	// the curator's AIM-style rounds, each owner scoring the round's
	// candidates on its own records (roles.KindSelect).
	method.EngineSettings
	// SelectCandidates is how many candidates each adaptive round asks
	// the owners to score (default roles.DefaultSelectCandidates): the
	// coordinator learns every one's noisy score, so a round's noise
	// grows as √C (roles.Measurer.Select).
	SelectCandidates int `json:"select_candidates,omitempty" help:"adaptive method: candidates each round asks the owners to score, kept by a public filter (default 16; each round's noise grows as the square root of this)"`
}

// DefaultBinShare is the default share of ρ spent choosing numeric bins
// (the single-owner engine's default).
const DefaultBinShare = 0.05

// SetDefaults fills the zero fields.
func (s *Settings) SetDefaults() {
	s.Noise = cmp.Or(s.Noise, proto.NoiseInsiderSafe)
	s.BinShare = cmp.Or(s.BinShare, DefaultBinShare)
	s.BinRefine = cmp.Or(s.BinRefine, domain.DefaultRefine)
	s.EngineSettings.SetDefaults()
	if !s.Neighbours.PublicCount() && s.Rho != 0 && s.Delta == 0 {
		// n is private: a ρ budget is stated as (ε, δ) at the public cap,
		// as synthesize states it.
		s.Delta = dp.MaxDefaultDelta
	}
}

// DefaultRecords sets δ = 1/n² of the owners' n records together (at
// most dp.MaxDefaultDelta) when the budget is (ε, δ) without a δ (one
// process). Under add/remove n is private and δ is not derived from it:
// ε needs --delta (Validate says so).
func (s *Settings) DefaultRecords(records int) {
	if s.Epsilon > 0 && s.Delta == 0 && s.Neighbours.PublicCount() {
		s.Delta = dp.DefaultDeltaCapped(records)
	}
}

// Validate checks the settings.
func (s *Settings) Validate() error {
	switch {
	case (s.Epsilon != 0) == (s.Rho != 0):
		return fmt.Errorf("give the budget as epsilon (with delta) or as rho, exactly one; got epsilon %v, rho %v", s.Epsilon, s.Rho)
	case s.Epsilon != 0 && (!(s.Epsilon > 0) || math.IsInf(s.Epsilon, 0)):
		return fmt.Errorf("epsilon must be positive and finite, got %v", s.Epsilon)
	case s.Epsilon != 0 && s.Delta == 0 && !s.Neighbours.PublicCount():
		return method.Fieldf("delta", "--neighbours add-remove keeps the owners' record counts private, so δ cannot default to 1/n²: give --delta with --epsilon %v", s.Epsilon)
	case s.Epsilon != 0 && !(s.Delta > 0 && s.Delta < 1):
		return fmt.Errorf("delta must be in (0, 1) with epsilon (over the network it is not derived from the owners' sizes), got %v", s.Delta)
	case s.Rho != 0 && s.Delta != 0 && !(s.Delta > 0 && s.Delta < 1):
		return fmt.Errorf("delta must be in (0, 1), got %v", s.Delta)
	case s.Noise.Check() != nil:
		return fmt.Errorf("noise: %w", s.Noise.Check())
	}
	if err := s.EngineSettings.Validate(); err != nil {
		return err
	}
	if err := method.CheckNeighbours(Name, s.Neighbours, dp.NeighboursReplaceOne, dp.NeighboursAddRemove); err != nil {
		return err
	}
	if err := s.RefuseScore("the owners compute the paper's score of their own records (roles.OwnerScore)"); err != nil {
		return err
	}
	if s.Selection == measurement.SelectPermuteAndFlip {
		return method.Fieldf("selection", "must be exponential for owners of rows: the coordinator selects from the owners' noisy summed scores (roles.KindSelect), not by a mechanism over exact scores, got %q", s.Selection)
	}
	if s.SelectCandidates < 0 || s.SelectCandidates > proto.MaxSelectSets {
		return method.Fieldf("select_candidates", "must be between 1 and %d, got %d", proto.MaxSelectSets, s.SelectCandidates)
	}
	if s.Rho != 0 {
		if err := dp.CheckRho(s.Rho); err != nil {
			return err
		}
	}
	_, err := s.rho()
	return err
}

// rho is each owner's zCDP budget.
func (s *Settings) rho() (float64, error) {
	if s.Rho != 0 {
		return s.Rho, nil
	}
	return marginal.RhoFor(s.Epsilon, s.Delta)
}

// NoiseMode says who draws each release's noise.
type NoiseMode = proto.NoiseMode

// The noise modes.
const (
	NoiseInsiderSafe = proto.NoiseInsiderSafe
	NoiseExact       = proto.NoiseExact
)
