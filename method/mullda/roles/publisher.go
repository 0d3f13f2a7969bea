package roles

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"

	"github.com/dppub/dppub/internal/wire"
	"github.com/dppub/dppub/ledger"
	"github.com/dppub/dppub/method/mullda/lda"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
	"gonum.org/v1/gonum/mat"
)

// PublisherOptions configure the publisher.
type PublisherOptions struct {
	Params Params
	// Agreed, instead of Params, are the session's parameters checked
	// once with their plan (Agree), taken as they are.
	Agreed *Agreed
	// Source draws the synthetic projections.
	Source *randx.Source
	// Ledger, if set, records the means, the direction and the artifact,
	// and checks the owners' entries behind their statistics. The
	// publisher is the log operator: the ledger's checkpoints are signed
	// with its key.
	Ledger *Ledger
}

// Publisher is the paper's blockchain-based data publisher (Algorithm 2,
// lines 7 and 15–17): it aggregates the owners' noisy statistics with its
// share, computes and publishes the DP means and direction(s), and the
// labelled projections.
type Publisher struct {
	o      PublisherOptions
	plan   *lda.Plan
	share  *Shares
	sums   map[string]Sums
	second map[string]Second
	projs  map[string]Projections
	agg    *lda.Stats
	result *Result
	done   bool
}

// Result is what the publisher publishes.
type Result struct {
	// Directions are the unit discriminant directions (p×d, d = C−1).
	Directions *mat.Dense
	// Estimate holds the DP class means, counts and S_w.
	Estimate *lda.Estimate
	// Model is the DP class-conditional Gaussian model of the projections.
	Model *lda.Model
	// Projections (n×d) and Labels are the published labelled rows:
	// synthetic (DP) or the owners' real projections (NOT DP), in owner
	// order.
	Projections *mat.Dense
	Labels      []int
	Output      Output
	// Ridge is the ridge that was added to S_w.
	Ridge float64
	// ArtifactSHA256 is the digest recorded in the artifact-published entry
	// (ArtifactDigest of Projections and Labels).
	ArtifactSHA256 string
}

// NewPublisher validates o.
func NewPublisher(o PublisherOptions) (*Publisher, error) {
	agreed, err := protocol.Settle(&o.Agreed, &o.Params, Params.check)
	if err != nil {
		return nil, err
	}
	if o.Source == nil {
		return nil, fmt.Errorf("mullda: the publisher needs a randomness source")
	}
	if err := o.Ledger.validate(o.Params.Publisher); err != nil {
		return nil, err
	}
	return &Publisher{o: o, plan: agreed.Derived(), sums: map[string]Sums{}, second: map[string]Second{}, projs: map[string]Projections{}}, nil
}

// ID is the publisher's name.
func (pb *Publisher) ID() string { return pb.o.Params.Publisher }

// Start does nothing: the dealer and the owners speak first.
func (pb *Publisher) Start() ([]protocol.Envelope, error) { return nil, nil }

// Done reports whether the artifact is published.
func (pb *Publisher) Done() bool { return pb.done }

// Handle collects shares, statistics and projections.
func (pb *Publisher) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	p := pb.o.Params
	if e.Type == TypeShares {
		return pb.handleShares(e)
	}
	if p.ownerIndex(e.From) < 0 {
		return nil, fmt.Errorf("mullda: %q sent %q but is not an owner", e.From, e.Type)
	}
	switch e.Type {
	case TypeSums:
		var m Sums
		if err := m.UnmarshalBinary(e.Payload); err != nil {
			return nil, err
		}
		if m.Classes != pb.plan.Options.Classes || m.P != pb.plan.Options.P {
			return nil, fmt.Errorf("mullda: %s sent sums for %d classes × p=%d", e.From, m.Classes, m.P)
		}
		return accept(pb, pb.sums, e, m, pb.maybeMeans)
	case TypeSecond:
		var m Second
		if err := m.UnmarshalBinary(e.Payload); err != nil {
			return nil, err
		}
		if m.P != pb.plan.Options.P {
			return nil, fmt.Errorf("mullda: %s sent Σxxᵀ for p=%d", e.From, m.P)
		}
		if pb.agg == nil {
			return nil, fmt.Errorf("mullda: %s sent Σxxᵀ before the means were published", e.From)
		}
		return accept(pb, pb.second, e, m, pb.maybeDirection)
	case TypeProjections:
		var m Projections
		if err := m.UnmarshalBinary(e.Payload); err != nil {
			return nil, err
		}
		if p.output() != RealProjections || pb.result == nil {
			return nil, fmt.Errorf("mullda: unexpected projections from %s", e.From)
		}
		if _, dup := pb.projs[e.From]; dup {
			return nil, nil
		}
		if err := pb.checkProjections(e.From, m); err != nil {
			return nil, err
		}
		if err := pb.verify(e); err != nil {
			return nil, err
		}
		pb.projs[e.From] = m
		if len(pb.projs) == len(p.Owners) {
			return nil, pb.publishReal()
		}
		return nil, nil
	}
	return nil, fmt.Errorf("mullda: the publisher cannot handle %q", e.Type)
}

func (pb *Publisher) handleShares(e protocol.Envelope) ([]protocol.Envelope, error) {
	p := pb.o.Params
	if !p.NeedsDealer() || e.From != p.Dealer {
		return nil, fmt.Errorf("mullda: unexpected shares from %q", e.From)
	}
	if pb.share != nil {
		return nil, nil
	}
	var s Shares
	if err := s.UnmarshalBinary(e.Payload); err != nil {
		return nil, err
	}
	o := pb.plan.Options
	if s.Classes != o.Classes || s.P != o.P || (pb.plan.CountSigma > 0) != (len(s.Counts) > 0) {
		return nil, fmt.Errorf("mullda: the publisher's shares do not fit the session")
	}
	pb.share = &s
	if len(pb.sums) == len(p.Owners) {
		return pb.maybeMeans()
	}
	return nil, nil
}

// accept keeps owner e.From's message m in got, once the ledger vouches
// for it, and then runs next; a second message from the same owner is a
// replay and is ignored.
func accept[M any](pb *Publisher, got map[string]M, e protocol.Envelope, m M, next func() ([]protocol.Envelope, error)) ([]protocol.Envelope, error) {
	if _, dup := got[e.From]; dup {
		return nil, nil
	}
	if err := pb.verify(e); err != nil {
		return nil, err
	}
	got[e.From] = m
	return next()
}

// verify checks the sender's ledger entry for the message.
func (pb *Publisher) verify(e protocol.Envelope) error {
	return pb.o.Ledger.verifyMessage(e.From, ledger.KindStatisticsSubmitted, pb.o.Params.Session, e.Type, e.Payload)
}

func (pb *Publisher) ready(n int) bool {
	return n == len(pb.o.Params.Owners) && (pb.share != nil || !pb.o.Params.NeedsDealer())
}

// maybeMeans is Algorithm 2 line 7: μ^(k) = (Σ_m owner sums + ḡ_0)/N^(k).
// The shares cancel exactly (integers on the block's grid), leaving the
// owners' own noise: variance κ²σ² in total.
func (pb *Publisher) maybeMeans() ([]protocol.Envelope, error) {
	if pb.agg != nil || !pb.ready(len(pb.sums)) {
		return nil, nil
	}
	o := pb.plan.Options
	agg := lda.NewStats(o.Classes, o.P)
	sb, err := pb.plan.SumsNoise()
	if err != nil {
		return nil, err
	}
	var sums, counts [][]float64
	for _, id := range pb.o.Params.Owners {
		sums = append(sums, pb.sums[id].Sums)
		counts = append(counts, pb.sums[id].Counts)
	}
	var shareSums, shareCounts []int64
	if pb.share != nil {
		shareSums, shareCounts = pb.share.Sums, pb.share.Counts
	}
	if err := gridSum(agg.Sums.RawMatrix().Data, sb.Plan.Grid, sums, shareSums); err != nil {
		return nil, fmt.Errorf("mullda: class sums: %w", err)
	}
	if pb.plan.CountSigma > 0 {
		cb, err := pb.plan.CountsNoise()
		if err != nil {
			return nil, err
		}
		if err := gridSum(agg.Counts, cb.Plan.Grid, counts, shareCounts); err != nil {
			return nil, fmt.Errorf("mullda: class counts: %w", err)
		}
	} else {
		for _, c := range counts {
			addTo(agg.Counts, c) // exact (public) counts
		}
	}
	pb.agg = agg
	est, err := lda.NewEstimate(agg)
	if err != nil {
		return nil, err
	}
	msg := Means{Classes: o.Classes, P: o.P, Means: est.Means.RawMatrix().Data, Counts: est.Counts}
	content := map[string]any{"means": msg.Means, "counts": msg.Counts, "classes": o.Classes, "p": o.P}
	return pb.broadcast(msg, KindMeansComputed, content)
}

// maybeDirection is Algorithm 2 lines 15–16 with a regularised solve.
func (pb *Publisher) maybeDirection() ([]protocol.Envelope, error) {
	if pb.result != nil || !pb.ready(len(pb.second)) {
		return nil, nil
	}
	p := pb.o.Params
	o := pb.plan.Options
	ub, err := pb.plan.SecondNoise()
	if err != nil {
		return nil, err
	}
	upper := make([]float64, lda.UpperLen(o.P))
	var msgs [][]float64
	for _, id := range p.Owners {
		msgs = append(msgs, pb.second[id].Upper)
	}
	var share []int64
	if pb.share != nil {
		share = pb.share.Upper
	}
	if err := gridSum(upper, ub.Plan.Grid, msgs, share); err != nil {
		return nil, fmt.Errorf("mullda: Σxxᵀ: %w", err)
	}
	stats, err := lda.StatsFromVectors(o.Classes, o.P, pb.agg.SumsVector(), pb.agg.Counts, upper)
	if err != nil {
		return nil, err
	}
	est, err := lda.NewEstimate(stats)
	if err != nil {
		return nil, err
	}
	ridge := p.Ridge
	if ridge == 0 {
		ridge = lda.NoiseRidge(o.P, pb.plan.AggregateSigma(pb.plan.SecondSigma))
	}
	W, err := est.Directions(lda.SolveOptions{Ridge: ridge})
	if err != nil {
		return nil, err
	}
	model, err := est.Model(W)
	if err != nil {
		return nil, err
	}
	pb.result = &Result{Directions: W, Estimate: est, Model: model, Output: p.output(), Ridge: ridge}
	_, d := W.Dims()
	msg := Direction{P: o.P, D: d, W: mat.DenseCopyOf(W).RawMatrix().Data}
	content := map[string]any{"directions": msg.W, "p": o.P, "d": d, "ridge": ridge,
		"projected_means": model.Means.RawMatrix().Data, "projected_covariance": mat.DenseCopyOf(model.Cov).RawMatrix().Data}
	out, err := pb.broadcast(msg, ledger.KindDirectionComputed, content)
	if err != nil {
		return nil, err
	}
	if p.output() == Synthetic {
		return out, pb.publishSynthetic()
	}
	return out, nil
}

// publishSynthetic draws the labelled projections from the DP model.
func (pb *Publisher) publishSynthetic() error {
	z, y, err := pb.result.Model.Sample(pb.o.Source)
	if err != nil {
		return err
	}
	return pb.publish(z, y)
}

// publishReal stacks the owners' real projections (NOT DP).
func (pb *Publisher) publishReal() error {
	_, d := pb.result.Directions.Dims()
	var data []float64
	var y []int
	for _, id := range pb.o.Params.Owners {
		m := pb.projs[id]
		data = append(data, m.Z...)
		for _, c := range m.Labels {
			y = append(y, int(c))
		}
	}
	return pb.publish(mat.NewDense(len(y), d, data), y)
}

func (pb *Publisher) publish(z *mat.Dense, y []int) error {
	pb.result.Projections, pb.result.Labels = z, y
	pb.result.ArtifactSHA256 = ArtifactDigest(z, y)
	_, d := z.Dims()
	content := map[string]any{"output": string(pb.result.Output), "rows": len(y), "d": d}
	if err := pb.o.Ledger.record(ledger.KindArtifactPublished, pb.o.Params.Session,
		EntryPayload{Message: "labelled-projections", SHA256: pb.result.ArtifactSHA256, Content: content}); err != nil {
		return err
	}
	pb.done = true
	return nil
}

func (pb *Publisher) checkProjections(from string, m Projections) error {
	_, d := pb.result.Directions.Dims()
	if m.D != d {
		return fmt.Errorf("mullda: %s sent projections of width %d, want %d", from, m.D, d)
	}
	for _, c := range m.Labels {
		if c >= uint64(pb.plan.Options.Classes) {
			return fmt.Errorf("mullda: %s sent label %d of %d classes", from, c, pb.plan.Options.Classes)
		}
	}
	return nil
}

// broadcast records the message on the ledger (with its content, which is
// DP), then sends it to every owner.
func (pb *Publisher) broadcast(m protocol.Message, kind string, content any) ([]protocol.Envelope, error) {
	p := pb.o.Params
	out, err := protocol.Broadcast(p.Session, p.Publisher, p.Owners, m)
	if err != nil || len(out) == 0 {
		return out, err
	}
	if err := pb.o.Ledger.recordMessage(kind, p.Session, m.MessageType(), out[0].Payload, content); err != nil {
		return nil, err
	}
	return out, nil
}

// Result returns the published output once Done.
func (pb *Publisher) Result() (*Result, error) {
	if !pb.done {
		return nil, fmt.Errorf("mullda: the session is not finished")
	}
	return pb.result, nil
}

// ArtifactDigest is the hex SHA-256 of the canonical encoding of labelled
// projections (wire.Writer: width, values row-major, labels), the
// digest the artifact-published entry records.
func ArtifactDigest(z *mat.Dense, y []int) string {
	var w wire.Writer
	_, d := z.Dims()
	w.Int(d)
	w.Float64s(mat.DenseCopyOf(z).RawMatrix().Data)
	labels := make([]uint64, len(y))
	for i, c := range y {
		labels[i] = uint64(c)
	}
	w.Uint64s(labels)
	sum := sha256.Sum256(w.Data())
	return hex.EncodeToString(sum[:])
}

func addTo(dst, src []float64) {
	for i, v := range src {
		dst[i] += v
	}
}

// gridMax bounds the grid steps of one received value, so that the sum of
// up to 2^10 messages stays inside int64.
const gridMax = 1 << 52

// gridSum sets dst to the sum of the owners' messages and the publisher's
// share on a block's public grid g: every received value must be an
// integer multiple of g (owners send g·(round(x/g) + K + G)), the sum is
// taken exactly in integer grid steps (where the zero-sum shares cancel
// exactly) and scaled back by g.
func gridSum(dst []float64, g float64, msgs [][]float64, share []int64) error {
	if len(msgs) >= 1<<10 {
		return fmt.Errorf("%d messages to sum", len(msgs))
	}
	for i := range dst {
		var total int64
		if share != nil {
			total = share[i]
			if total > gridMax || total < -gridMax {
				return fmt.Errorf("share entry %d is %d grid steps, beyond ±2^52", i, total)
			}
		}
		for k, m := range msgs {
			u := m[i] / g
			if u != math.Trunc(u) || math.Abs(u) > gridMax {
				return fmt.Errorf("message %d entry %d = %v is not on the public grid %g (within ±2^52 steps)", k, i, m[i], g)
			}
			total += int64(u)
		}
		dst[i] = float64(total) * g
	}
	return nil
}
