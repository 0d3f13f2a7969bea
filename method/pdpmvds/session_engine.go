// The synthesizer's side of a session: the marginal engine driven over the
// parties and S (Coordinate over the network, RunMeasured in one process),
// and the publication of its synthetic records.

package pdpmvds

import (
	"context"
	"fmt"

	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/infer"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/method"
	proto "github.com/dppub/dppub/method/pdpmvds/roles"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/protocol/psi"
	"github.com/dppub/dppub/randx"
)

// Progress is the coordinator's attachment in one process: the engine's
// stages.
type Progress func(stage string, done, total int)

// Result is the in-process detail of a run (Outcome.Detail).
type Result struct {
	Engine  *marginal.Result
	Domain  *domain.Domain
	Parties []Party
	// KeysDealt says the Paillier key was dealt in this process.
	KeysDealt bool
}

// Party is one party as the result lists it.
type Party struct {
	Name       string
	Rho        float64
	Attributes []string
}

// Coordinate builds the synthesizer: the engine runs in a goroutine and
// each of its measurements is one request to the parties and S within
// this one session. With bins chosen from the data it first gathers every
// party's bins (proto.Gathering) and tells them to every member.
func (s *Session) Coordinate(src *randx.Source, attach any) (*method.Coordination, error) {
	progress, err := method.Attached[Progress](attach)
	if err != nil {
		return nil, err
	}
	engSrc, decodeSrc := src.Child(), src.Child()
	r := &engineRun{}
	var role protocol.Role
	if s.Settings.Link {
		role = s.counter(r, engSrc, progress)
	} else {
		if _, _, _, err := s.layout(); err != nil {
			return nil, err
		}
		if role, err = s.engineRole(r, engSrc, progress); err != nil {
			return nil, err
		}
	}
	publish := func(accts []*privacy.Accountant) (*method.Outcome, error) {
		if r.eng == nil {
			return nil, fmt.Errorf("the engine did not finish")
		}
		return r.ls.Publish(r.eng, r.dom, r.parties, accts, decodeSrc, src, false)
	}
	cleanup := func() {
		if r.driver != nil {
			r.driver.Stop()
		}
	}
	return &method.Coordination{Role: method.Rename(role, s.ID, s.names()), Publish: publish, Cleanup: cleanup}, nil
}

// engineRun is what the coordinator learns as its session goes on: the
// session for the linked records and chosen bins, its domain, the engine.
type engineRun struct {
	ls      *Session
	dom     *domain.Domain
	parties []Party
	eng     *marginal.Result
	driver  *proto.Driver
}

// counter is the coordinator of a session that links its parties'
// records first: it waits for every party's count of common records (it
// sees no blinded set), tells S, and then goes on as Coordinate does on
// the session for that count. A party's bins (proto.Binning), sent as
// soon as it has linked, may overtake another party's count: the
// Counter holds them for the gathering.
func (s *Session) counter(r *engineRun, engSrc *randx.Source, progress Progress) *psi.Counter {
	return psi.NewCounter(proto.CoordinatorID, s.ID, s.partyIDs(), []string{proto.ThirdPartyID}, func(n int) (protocol.Role, error) {
		ls, err := s.WithRecords(n)
		if err != nil {
			return nil, err
		}
		return ls.engineRole(r, engSrc, progress)
	})
}

// engineRole is the coordinator's role from the bins phase on: the
// gathering of the parties' bins when they are chosen from the data, then
// the engine's driver on the domain they make.
func (s *Session) engineRole(r *engineRun, engSrc *randx.Source, progress Progress) (protocol.Role, error) {
	if !s.needsBins() {
		return s.startEngine(r, engSrc, progress)
	}
	expect := s.expected()
	var notify []string
	for k := range s.Owners {
		notify = append(notify, proto.PartyID(k))
	}
	notify = append(notify, proto.ThirdPartyID)
	return proto.NewGathering(proto.CoordinatorID, expect, notify, func(all map[int][]float64) (protocol.Role, error) {
		ws, err := s.withCuts(all)
		if err != nil {
			return nil, err
		}
		return ws.startEngine(r, engSrc, progress)
	}), nil
}

// startEngine builds the engine's driver on the session's domain.
func (s *Session) startEngine(r *engineRun, engSrc *randx.Source, progress Progress) (protocol.Role, error) {
	dom, owners, ps, err := s.layout()
	if err != nil {
		return nil, err
	}
	eo, parties := s.engineOptions(dom, owners, progress)
	eo.Source = engSrc
	r.ls, r.dom, r.parties = s, dom, parties
	driver, err := proto.NewDriver(context.Background(), ps, func(ctx context.Context, m measurement.Measurer) error {
		var err error
		r.eng, err = marginal.Synthesize(ctx, m, eo)
		return err
	})
	if err != nil {
		return nil, err
	}
	r.driver = driver
	return driver, nil
}

// RunMeasured runs the engine in one process over member roles built by
// Join (in member order), one protocol session per measurement, timing
// every phase. It draws from src exactly as Coordinate does.
func (s *Session) RunMeasured(ctx context.Context, roles []protocol.Role, accts []*privacy.Accountant, src *randx.Source,
	progress Progress, dealt bool) (*method.Outcome, []proto.Phase, error) {
	s, err := s.BinLocal(roles)
	if err != nil {
		return nil, nil, err
	}
	dom, owners, _, err := s.layout()
	if err != nil {
		return nil, nil, err
	}
	var parties []*proto.Party
	var third *proto.ThirdParty
	for _, r := range roles {
		switch x := method.Unwrap(r).(type) {
		case *proto.Party:
			parties = append(parties, x)
		case *proto.ThirdParty:
			third = x
		default:
			return nil, nil, fmt.Errorf("unexpected role %T", x)
		}
	}
	m, err := proto.NewMeasurer(proto.MeasurerOptions{Parties: parties, ThirdParty: third})
	if err != nil {
		return nil, nil, err
	}
	eo, listed := s.engineOptions(dom, owners, progress)
	eo.Source = src.Child()
	decodeSrc := src.Child()
	eng, err := marginal.Synthesize(ctx, m, eo)
	phases := m.Phases()
	if err != nil {
		return nil, phases, err
	}
	out, err := s.Publish(eng, dom, listed, accts, decodeSrc, src, dealt)
	return out, phases, err
}

// engineOptions are the engine's options (without its Source).
func (s *Session) engineOptions(dom *domain.Domain, owners []int, progress Progress) (marginal.Options, []Party) {
	st := s.Settings
	parties := make([]marginal.Party, len(s.Owners))
	var listed []Party
	for k, name := range s.Owners {
		var attrs []int
		for j, ow := range owners {
			if ow == k {
				attrs = append(attrs, j)
			}
		}
		// The bins were paid for out of the party's own budget.
		parties[k] = marginal.Party{Name: name, Rho: st.rho(name) - s.binRho(k), Attrs: attrs}
		names := make([]string, len(attrs))
		for i, j := range attrs {
			names[i] = dom.Name(j)
		}
		listed = append(listed, Party{Name: name, Rho: st.rho(name), Attributes: names})
	}
	return marginal.Options{
		Domain: dom, Parties: parties, Records: st.Records, Split: st.Split, Score: measurement.IInDif,
		OneWayNoise: measurement.Laplace, ScoreNoise: st.Mechanism, MarginalNoise: st.Mechanism,
		Combine: st.Combine(), GUM: infer.GUMOptions{Rounds: st.Rounds, Rows: st.Rows},
		Progress: progress,
	}, listed
}

// Publish decodes the engine's synthetic records and builds the report.
func (s *Session) Publish(eng *marginal.Result, dom *domain.Domain, parties []Party, accts []*privacy.Accountant,
	decodeSrc, src *randx.Source, dealt bool) (*method.Outcome, error) {
	syn, err := dom.Decode(eng.Data, decodeSrc)
	if err != nil {
		return nil, err
	}
	_, _, ps, err := s.layout()
	if err != nil {
		return nil, err
	}
	binRho := 0.0
	for k := range s.Owners {
		binRho += s.binRho(k)
	}
	report, err := Report(s.Settings, ps, eng, dom, accts, src, dealt, binRho)
	if err != nil {
		return nil, err
	}
	summary := fmt.Sprintf("%d of %d pairs selected; %d marginals measured", len(eng.Selection.Chosen), len(eng.Candidates), len(eng.Measured))
	return &method.Outcome{Table: syn, Report: report, Summary: summary,
		Detail: &Result{Engine: eng, Domain: dom, Parties: parties, KeysDealt: dealt}}, nil
}
