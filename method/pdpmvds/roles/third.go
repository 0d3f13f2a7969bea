package roles

import (
	"fmt"

	"github.com/dppub/dppub/crypto/paillier"
	"github.com/dppub/dppub/crypto/sspp"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// ThirdPartyOptions configure S.
type ThirdPartyOptions struct {
	Session Session
	// PublicKey is the parties' shared key (Paillier suite).
	PublicKey *paillier.PublicKey
	// Source draws S's randomness (default randx.NewSecure()).
	Source *randx.Source
	// Workers bounds parallelism inside a step (0: GOMAXPROCS).
	Workers int
}

// ThirdParty is the semi-trusted third party S of the paper. It holds no
// data and no decryption key. In the Paillier suite it aggregates
// ciphertexts under the shared key and performs the sign step's
// selection (Algorithm 1, steps 4, 6, 8); in the commodity suite it deals
// correlated randomness for the scalar products and answers the sign
// step on masked values. In the default noise mode it also draws a
// noise share. It must not collude with any party.
type ThirdParty struct {
	base
	o         ThirdPartyOptions
	src       *randx.Source
	noiser    *dp.Noiser
	shared    *paillier.PublicKey
	maskSeeds map[[3]int]sspp.Seed // (owner, attribute, recipient) → seed
	masks     sspp.MaskCache
}

var _ protocol.Role = (*ThirdParty)(nil)

// NewThirdParty validates o.
func NewThirdParty(o ThirdPartyOptions) (*ThirdParty, error) {
	if err := o.Session.Validate(); err != nil {
		return nil, err
	}
	if o.Session.Suite == SuitePaillier && o.PublicKey == nil {
		return nil, fmt.Errorf("pdpmvds: S needs the shared public key for the Paillier suite")
	}
	if o.Source == nil {
		o.Source = randx.NewSecure()
	}
	t := &ThirdParty{
		base: base{id: ThirdPartyID, session: o.Session, jobs: map[uint64]*job{}},
		o:    o, src: o.Source, noiser: dp.NewNoiser(o.Source.Child()), maskSeeds: map[[3]int]sspp.Seed{}, masks: sspp.MaskCache{},
	}
	t.openJob = t.open
	return t, nil
}

func (t *ThirdParty) open(q *Request) (*job, error) {
	if q.Kind == KindSetup {
		return newJob(q, t.setup), nil
	}
	pl, err := t.session.plan(q)
	if err != nil {
		return nil, err
	}
	if pl.local {
		return nil, fmt.Errorf("pdpmvds: S was sent request %d about one party's attributes", q.ID)
	}
	if t.session.Suite == SuiteCommodity {
		return newJob(q, t.commodityFlow(pl)), nil
	}
	return newJob(q, t.paillierFlow(pl)), nil
}

func (t *ThirdParty) setup(j *job) (bool, error) {
	s := t.session
	if s.Suite == SuitePaillier {
		pk, err := paillier.NewPublicKey(t.o.PublicKey.N)
		if err != nil {
			return false, err
		}
		if err := pk.Precompute(paillier.NewReader(t.src.Child())); err != nil {
			return false, err
		}
		t.shared = pk
		return true, t.send(CoordinatorID, &Body{Kind: "ready", ID: j.req.ID})
	}
	for k := range s.Parties {
		var w []uint64
		for _, a := range s.attrsOf(k) {
			for q := range s.Parties {
				if q == k {
					continue
				}
				sd := sspp.NewSeed(t.src)
				t.maskSeeds[[3]int{k, a, q}] = sd
				w = append(w, uint64(a), uint64(q))
				w = append(w, seedWords(sd)...)
			}
		}
		if err := t.send(PartyID(k), &Body{Kind: "mask-seeds", ID: j.req.ID, Words: w}); err != nil {
			return false, err
		}
	}
	return true, t.send(CoordinatorID, &Body{Kind: "ready", ID: j.req.ID})
}

// commodityFlow deals every product's correlated randomness, sends S's
// noise share in parts to the holders, and answers the sign step.
func (t *ThirdParty) commodityFlow(pl *plan) func(*job) (bool, error) {
	dealt := false
	return func(j *job) (bool, error) {
		if !dealt {
			if err := t.deal(j, pl); err != nil {
				return false, err
			}
			if pl.isContributor(ThirdPartyIndex) {
				if err := t.commodityNoise(j, pl); err != nil {
					return false, err
				}
			}
			if pl.req.Kind == KindScore {
				u := pl.enc.dither(t.src)
				if err := splitNoise(&t.base, t.src, pl, j.req.ID, "dither", ThirdPartyIndex, []uint64{u.Uint64()}); err != nil {
					return false, err
				}
			}
			dealt = true
		}
		if pl.req.Kind != KindScore {
			return true, nil
		}
		return t.answerSigns(j, pl)
	}
}

func (t *ThirdParty) deal(j *job, pl *plan) error {
	n := t.session.Records
	for _, pr := range pl.products {
		sa, sb, srb := sspp.NewSeed(t.src), sspp.NewSeed(t.src), sspp.NewSeed(t.src)
		var zero sspp.Seed
		wa, wb := sa, sb
		if pr.aAttr >= 0 {
			sa, wa = t.maskSeeds[[3]int{pr.a, pr.aAttr, pr.b}], zero
		}
		if pr.bAttr >= 0 {
			sb, wb = t.maskSeeds[[3]int{pr.b, pr.bAttr, pr.a}], zero
		}
		ra := t.masks.Get(sa, n*pr.du, pr.aAttr >= 0)
		rb := t.masks.Get(sb, n*pr.dz, pr.bAttr >= 0)
		corr, err := sspp.Correction(pr.mode, pr.du, pr.dz, ra, rb, srb, t.o.Workers)
		if err != nil {
			return err
		}
		a := append(seedWords(wa), corr...)
		if err := t.send(PartyID(pr.a), &Body{Kind: "deal", ID: j.req.ID, Stage: 0, Index: pr.index, Words: a}); err != nil {
			return err
		}
		b := append(seedWords(wb), seedWords(srb)...)
		if err := t.send(PartyID(pr.b), &Body{Kind: "deal", ID: j.req.ID, Stage: 1, Index: pr.index, Words: b}); err != nil {
			return err
		}
	}
	return nil
}

// commodityNoise draws S's integer noise share and splits it among the
// holders.
func (t *ThirdParty) commodityNoise(j *job, pl *plan) error {
	sp, err := t.session.shareSpec(pl.req.Release.Noise, pl.values, len(pl.contributors))
	if err != nil {
		return err
	}
	words, err := pl.enc.noiseWords(sp.draw(t.noiser, pl.values), pl.req.Kind, len(pl.contributors))
	if err != nil {
		return err
	}
	return splitNoise(&t.base, t.src, pl, j.req.ID, "noise", ThirdPartyIndex, words)
}

// answerSigns sums the pair's masked values V = s·(r·t + r') and returns
// one bit per cell: 1 when V < 0. S learns |r·t + r'| per cell, not the
// sign of t (s is unknown to it).
func (t *ThirdParty) answerSigns(j *job, pl *plan) (bool, error) {
	a, b := PartyID(pl.holders[0]), PartyID(pl.holders[1])
	if !j.has("sign-query", a, 0, 0) || !j.has("sign-query", b, 0, 0) {
		return false, nil
	}
	wa, wb := j.take("sign-query", a, 0, 0).Words, j.take("sign-query", b, 0, 0).Words
	cells := t.session.Sizes[pl.attrs[0]] * t.session.Sizes[pl.attrs[1]]
	if len(wa) != cells || len(wb) != cells {
		return false, fmt.Errorf("sign queries of %d and %d words for %d cells", len(wa), len(wb), cells)
	}
	bits, err := sspp.SignBits(wa, wb)
	if err != nil {
		return false, err
	}
	for _, h := range pl.holders {
		if err := t.send(PartyID(h), &Body{Kind: "signs", ID: j.req.ID, Words: bits}); err != nil {
			return false, err
		}
	}
	return true, nil
}
