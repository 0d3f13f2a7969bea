package rowsynth

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/engine/marginal"
	"github.com/dppub/dppub/engine/marginal/domain"
	"github.com/dppub/dppub/engine/marginal/measurement"
	"github.com/dppub/dppub/method"
	proto "github.com/dppub/dppub/method/rowsynth/roles"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// Spec is synthesize-rows' definition.
var Spec = method.RowsSpec(Name,
	"one synthetic table from owners of rows at the quality of one curator: the marginal engine over secure aggregation with distributed noise",
	RoleCoordinator, open).WithDemo(demo)

// session is what the coordinator sends every owner.
type session struct {
	method.RowsOf[Settings]
}

func open(r method.RowsOf[Settings]) (*session, error) {
	s := &session{r}
	_, _, err := s.params()
	return s, err
}

// params are the protocol's public parameters and each owner's ρ.
func (s *session) params() (proto.Params, float64, error) {
	if err := s.Settings.Validate(); err != nil {
		return proto.Params{}, 0, err
	}
	rho, err := s.Settings.rho()
	if err != nil {
		return proto.Params{}, 0, err
	}
	p := proto.Params{Session: s.ID, Owners: len(s.Owners), Schema: s.Schema,
		Bins: s.Settings.Bins, BinsFor: s.Settings.BinsFor, Noise: s.Settings.Noise, Neighbours: s.Settings.Neighbours.Or()}
	return p, rho, p.Validate()
}

// names maps the protocol's role IDs to the members' names.
func (s *session) names() map[string]string {
	m := map[string]string{proto.CoordinatorID: s.Coordinator}
	for k, o := range s.Owners {
		m[proto.OwnerID(k)] = o
	}
	return m
}

func (s *session) Members() []method.Member {
	_, rho, err := s.params()
	if err != nil {
		rho = 0 // open validated the settings; Join will refuse them again
	}
	// The session's δ (given with --epsilon, or beside --rho) is the δ at
	// which an owner with an (ε, δ) lifetime budget counts the session.
	return s.OwnerMembersAt(dp.Concentrated(rho), s.Settings.Delta)
}

func (s *session) Unsound() bool { return false }

func (s *session) Join(l method.Local) (protocol.Role, error) {
	p, _, err := s.params()
	if err != nil {
		return nil, err
	}
	k := slices.Index(s.Owners, l.Name)
	if k < 0 {
		return nil, fmt.Errorf("%s is not an owner of the session", l.Name)
	}
	if l.Neighbours != "" && l.Neighbours.Or() != p.Neighbours.Or() {
		// The owner's budget is stated under its own relation: a session
		// under another would calibrate its releases (and the report) to
		// a guarantee its budget does not count.
		return nil, fmt.Errorf("%s's budget is stated under %s neighbours, the session asks for %s", l.Name, l.Neighbours.Or(), p.Neighbours.Or())
	}
	if l.Peers == nil {
		return nil, fmt.Errorf("%s has no way to authenticate the other owners' keys (method.Local.Peers)", l.Name)
	}
	opts := proto.OwnerOptions{Params: p, Index: k, Accountant: l.Accountant, Source: l.Source,
		Auth: OwnerAuth(l.Peers, s.Owners)}
	st, err := l.SharedStatistics(s.Schema)
	if err != nil {
		return nil, err
	}
	if st != nil {
		// The adaptive workload has triples too; auto never gives the
		// adaptive method with max_cells 1 (AutoMethod), which the next
		// check asks for, so only a named method is refused here.
		if m := s.Settings.Resolved().Method; m == marginal.MethodAdaptive {
			return nil, fmt.Errorf("%s brings statistics (1- and 2-way counts), which cannot score the adaptive method's candidate triples: the session needs method paper, got %s", l.Name, m)
		}
		// Refused here, before anything is charged: a combined marginal of
		// three or more attributes (max_cells above 1 allows them) is not
		// a sum of the file's 1- and 2-way counts, and the owner would
		// have to stop the session half-way through its budget.
		if s.Settings.MaxCells != 1 {
			return nil, fmt.Errorf("%s brings statistics (1- and 2-way counts), which cannot answer the engine's combined marginals of 3 or more attributes: the session needs max_cells 1 (pairs only), got %d", l.Name, s.Settings.MaxCells)
		}
		opts.Statistics = st
		o, err := proto.NewOwner(opts)
		if err != nil {
			return nil, err
		}
		l.Note(Name, o.Records(), 0, "attributes", len(s.Schema.Attributes), "source", "statistics")
		return method.Rename(o, s.ID, s.names()), nil
	}
	t, err := l.SharedTable(s.Schema)
	if err != nil {
		return nil, err
	}
	l.Note(Name, t.Len(), outOfBounds(t), "attributes", len(s.Schema.Attributes))
	opts.Table = t
	o, err := proto.NewOwner(opts)
	if err != nil {
		return nil, err
	}
	return method.Rename(o, s.ID, s.names()), nil
}

// OwnerAuth is the protocol's KeyAuth over a member's Peers: owner k is
// the k-th of owners, checked with the identity the member itself holds
// for that name.
func OwnerAuth(peers method.Peers, owners []string) proto.KeyAuth {
	return ownerAuth{peers: peers, owners: owners}
}

type ownerAuth struct {
	peers  method.Peers
	owners []string
}

func (a ownerAuth) Sign(msg []byte) ([]byte, error) { return a.peers.Sign(msg) }

func (a ownerAuth) Verify(k int, msg, sig []byte) error {
	if k < 0 || k >= len(a.owners) {
		return fmt.Errorf("no owner %d among %d", k+1, len(a.owners))
	}
	return a.peers.Verify(a.owners[k], msg, sig)
}

// Result is the in-process detail of a run (Outcome.Detail).
type Result struct {
	Engine *marginal.Result
	Domain *domain.Domain
	// Records are the owners' public record counts, in owner order (nil
	// under add/remove, where they are private).
	Records []int
	// N is the record count the run used: Σ Records, or under add/remove
	// the noisy total released first.
	N int
	// Rho is each owner's budget, BinRho the part spent on bins' own
	// releases, CountRho the part spent on the record count (add/remove
	// only).
	Rho, BinRho, CountRho float64
	// OneWays are the numeric attributes whose bins were chosen from
	// their one-way marginal, released once at the adaptive rounds'
	// one-way ρ OneWayRho and handed to the engine as its one-way
	// measurement (marginal.OneWayFirst; none on most tables).
	OneWays   []string
	OneWayRho float64
	// Method is the method the engine ran (auto resolved), Auto why
	// auto chose it (empty when the method was named).
	Method marginal.Method
	Auto   string
	// Selections are the adaptive method's selections across owners,
	// one per round after the one-way marginals (none for the paper's).
	Selections []proto.SelectRound
}

// Progress is the coordinator's attachment in one process: the engine's
// stages.
type Progress func(stage string, done, total int)

// Coordinate builds the coordinator: once the owners have said hello it
// chooses the numeric bins from noisy pooled histograms, announces the
// domain and runs the engine, each measurement one request to all owners.
func (s *session) Coordinate(src *randx.Source, attach any) (*method.Coordination, error) {
	p, rho, err := s.params()
	if err != nil {
		return nil, err
	}
	progress, err := method.Attached[Progress](attach)
	if err != nil {
		return nil, err
	}
	noiseSrc, engineSrc, decodeSrc := src.Child(), src.Child(), src.Child()
	res := &Result{Rho: rho}
	engine := func(ctx context.Context, m *proto.Measurer) error {
		return s.run(ctx, m, res, engineSrc, progress)
	}
	c, err := proto.NewCoordinator(context.Background(), p, engine, noiseSrc)
	if err != nil {
		return nil, err
	}
	publish := func(accts []*privacy.Accountant) (*method.Outcome, error) {
		if res.Engine == nil {
			return nil, fmt.Errorf("the engine did not finish")
		}
		syn, err := res.Domain.Decode(res.Engine.Data, decodeSrc)
		if err != nil {
			return nil, err
		}
		report, err := Report(s.Settings, res, s.Owners, accts, src)
		if err != nil {
			return nil, err
		}
		records := fmt.Sprintf("%d records in all", res.N)
		if res.CountRho > 0 {
			records = fmt.Sprintf("about %d records in all (noisy count, add/remove neighbours)", res.N)
		}
		summary := fmt.Sprintf("%d owners, %s; %d of %d pairs selected, %d marginals measured",
			len(s.Owners), records, len(res.Engine.Selection.Chosen), len(res.Engine.Candidates), len(res.Engine.Measured))
		if res.Method == marginal.MethodAdaptive {
			summary = fmt.Sprintf("%d owners, %s; adaptive method: %d rounds, %d marginals measured",
				len(s.Owners), records, len(res.Engine.Rounds), len(res.Engine.Measured))
		}
		return &method.Outcome{Table: syn, Report: report, Summary: summary, Detail: res}, nil
	}
	return &method.Coordination{Role: method.Rename(c, s.ID, s.names()), Publish: publish, Cleanup: c.Stop}, nil
}

// run is the coordinator's computation: bins, domain, engine.
func (s *session) run(ctx context.Context, m *proto.Measurer, res *Result, src *randx.Source, progress Progress) error {
	st := s.Settings
	n, err := s.records(ctx, m, res)
	if err != nil {
		return err
	}
	res.Method, res.Auto = s.method(n, noiseRho(res.Rho, st.Neighbours.Or(), st.Noise, len(s.Owners)))
	plan, err := s.planBins(n, res, res.Method)
	if err != nil {
		return err
	}
	do := domain.Options{Bins: st.Bins, BinsFor: st.BinsFor}
	released, err := s.bins(ctx, m, n, plan, &do)
	if err != nil {
		return err
	}
	res.BinRho, res.OneWayRho = plan.rho, plan.oneWayRho
	dom, err := domain.New(s.Schema, do)
	if err != nil {
		return err
	}
	if err := m.SetDomain(ctx, do.Cuts); err != nil {
		return err
	}
	res.Domain = dom
	all := make([]int, dom.Len())
	for j := range all {
		all[j] = j
	}
	m.SelectCandidates = st.SelectCandidates
	o := s.engineOptions(res.Method, n, plan.engine, all)
	o.Domain = dom
	o.OneWayNoise, o.Source, o.Progress = measurement.Gaussian, src, progress
	if o.Adaptive.Premeasured, err = premeasured(dom, released, res); err != nil {
		return err
	}
	if res.Method == marginal.MethodAdaptive && o.Adaptive.Batch == 0 {
		label := -1
		if st.Label != "" {
			if label, err = dom.Index(st.Label); err != nil {
				return err
			}
		}
		o.Adaptive.Batch = AdaptiveBatch(dom.Sizes(), label)
	}
	res.Engine, err = marginal.Synthesize(ctx, m, o)
	res.Selections = m.Selections
	return err
}

// engineOptions are the engine's options for a run of method on n
// records in which the owners leave the engine rho over attrs, before
// the domain, randomness and progress are set.
func (s *session) engineOptions(method marginal.Method, n int, rho float64, attrs []int) marginal.Options {
	st := s.Settings
	o := st.Options(method, n)
	o.Parties = []marginal.Party{{Name: "owners", Rho: rho, Attrs: attrs}}
	o.Neighbours = st.Neighbours.Or()
	o.NoiseVariance = noiseVariance(st.Noise, len(s.Owners))
	return o
}

// noiseVariance is the variance of the noise every release really
// carries, as a multiple of its calibrated noise's, for k owners in noise
// mode mode: in insider-safe mode the coordinator's share comes on top of
// the owners' k, each a k-th of the calibrated variance, so (k+1)/k; in
// exact mode the owners' shares sum to the calibrated noise, 1. The
// engine plans its adaptive rounds from it (marginal.Options.NoiseVariance),
// as one owner plans from the noise its releases carry. At ε = 0.3 on
// the 8 000 training rows of zeroinfl, 3 owners planned T = 162 rounds
// from the calibrated σ (239.5, within the 3 % of n that DefaultRounds
// allows) and measured at σ·√(4/3) = 277; planned from that, T = 121
// (σ = 207 calibrated, 239 carried), and the 2-way / 3-way TVD of seeds
// 1–3 went from 0.1465 / 0.2282 to 0.1403 / 0.2179. Where the cap does not bind (zeroinfl at ε = 1, Musk2
// at ε = 0.3, NLTCS at ε = 1) the output is byte for byte the same.
func noiseVariance(mode proto.NoiseMode, k int) float64 {
	if mode != proto.NoiseInsiderSafe || k < 1 {
		return 1
	}
	return float64(k+1) / float64(k)
}

// records is the record count the run may use as public: Σ n_k of the
// owners' public counts under replace-one, and under add/remove the
// total released first (Measurer.ReleaseRecords) at
// measurement.DefaultCountShare of each owner's ρ, as one owner of
// synthesize spends on it; that noisy count stands for n everywhere after.
func (s *session) records(ctx context.Context, m *proto.Measurer, res *Result) (int, error) {
	res.Records = m.OwnerRecords()
	if s.Settings.Neighbours.PublicCount() {
		res.N = m.Records()
		return res.N, nil
	}
	res.CountRho = measurement.DefaultCountShare * res.Rho
	n, err := m.ReleaseRecords(ctx, res.CountRho)
	res.N = n
	return n, err
}

// outOfBounds counts the numeric values outside their declared bounds,
// which the owner's binning clamps (for the owner's own log).
func outOfBounds(t *data.Table) int {
	n := 0
	for j, a := range t.Schema.Attributes {
		if a.Kind != data.Numeric {
			continue
		}
		for _, row := range t.Rows {
			if row[j] < a.Min || row[j] > a.Max {
				n++
			}
		}
	}
	return n
}

// countShare is the share of ρ the record count costs under nb.
func countShare(nb dp.Neighbours) float64 {
	if nb.PublicCount() {
		return 0
	}
	return measurement.DefaultCountShare
}

// method is the method the engine runs for owners of n records in all
// whose releases carry the noise of a replace-one release at rho
// (noiseRho): method auto resolved by AutoMethod from the public domain
// and, for auto, the sentence the report gives for it.
func (s *session) method(n int, rho float64) (marginal.Method, string) {
	m := s.Settings.Resolved().Method
	if m != marginal.MethodAuto {
		return m, ""
	}
	return AutoMethod(publicSizes(s.Schema, s.Settings.Bins, s.Settings.BinsFor), n, len(s.Owners), s.Settings.MaxCells, rho)
}

// noiseRho is the ρ at which one owner's replace-one count release
// carries the noise the owners' releases at each owner's rho carry:
// twice rho under add/remove (L2 sensitivity 1 against √2), over
// noiseVariance in insider-safe mode, as the engine plans its rounds
// (marginal.Options.NoiseVariance).
func noiseRho(rho float64, nb dp.Neighbours, mode proto.NoiseMode, k int) float64 {
	_, l2 := measurement.CountSensitivity(nb)
	return rho * (measurement.CountL2 / l2) * (measurement.CountL2 / l2) / noiseVariance(mode, k)
}

// publicSizes are the attributes' sizes on the public domain: the
// categories and the equal-width bins (not the bins chosen from the
// data), so that a choice made from them costs nothing.
func publicSizes(sc data.Schema, bins int, binsFor map[string]int) []int {
	sizes := make([]int, len(sc.Attributes))
	for j, a := range sc.Attributes {
		switch a.Kind {
		case data.Numeric:
			sizes[j] = cmp.Or(binsFor[a.Name], bins, domain.DefaultBins)
		default:
			sizes[j] = max(len(a.Categories), 2)
		}
	}
	return sizes
}
