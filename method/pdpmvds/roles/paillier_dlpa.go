package roles

import (
	"fmt"
	"slices"

	"github.com/dppub/dppub/crypto/dlpa"
)

// dlpaLambda is the Laplace scale of the DLPA noise η̂ in its integer
// units, G/fine (encoding): the release's discrete Laplace scale t grid
// steps, drawn fine = 2^dlpa.FineBits times finer and rounded back to the
// grid by the decoder.
func (s *Session) dlpaLambda(pl *plan) float64 {
	return pl.enc.plan.Units() * float64(pl.enc.fine)
}

// dlpaCommit draws the party's DLPA shares for every released value and
// sends their encryptions to the involved parties after it (round 1).
func (p *Party) dlpaCommit(j *job, st *paillierState) error {
	pl := st.pl
	idx := slices.Index(pl.involved, p.index) + 1
	st.dlpaParties = make([]*dlpa.Party, pl.values)
	blobs := make([][]byte, pl.values)
	for v := range blobs {
		d, err := dlpa.New(dlpa.Options{PublicKey: p.shared, Parties: len(pl.involved), Index: idx,
			Lambda: p.session.dlpaLambda(pl), Random: p.src.Child()})
		if err != nil {
			return err
		}
		msg, err := d.Commit()
		if err != nil {
			return err
		}
		p.meter.enc.Add(4)
		st.dlpaParties[v] = d
		if blobs[v], err = msg.MarshalBinary(); err != nil {
			return err
		}
	}
	for _, q := range pl.involved {
		if q > p.index {
			if err := p.send(PartyID(q), &Body{Kind: "dlpa-commit", ID: j.req.ID, Index: p.index, Blobs: blobs}); err != nil {
				return err
			}
		}
	}
	return nil
}

// dlpaContribute sends S the party's round-2 DLPA contribution for every
// value once the earlier parties' commitments are there.
func (p *Party) dlpaContribute(j *job, st *paillierState) (bool, error) {
	pl := st.pl
	if st.dlpaParties == nil {
		return true, nil
	}
	var earlier []int
	for _, q := range pl.involved {
		if q < p.index {
			if !j.has("dlpa-commit", PartyID(q), 0, q) {
				return false, nil
			}
			earlier = append(earlier, q)
		}
	}
	msgs := make([][]*dlpa.SharesMessage, pl.values)
	for _, q := range earlier {
		m := j.take("dlpa-commit", PartyID(q), 0, q)
		if len(m.Blobs) != pl.values {
			return false, fmt.Errorf("DLPA commitments for %d values, want %d", len(m.Blobs), pl.values)
		}
		for v, b := range m.Blobs {
			var sm dlpa.SharesMessage
			if err := sm.UnmarshalBinary(b); err != nil {
				return false, err
			}
			msgs[v] = append(msgs[v], &sm)
		}
	}
	blobs := make([][]byte, pl.values)
	for v, d := range st.dlpaParties {
		c, err := d.Contribute(msgs[v])
		if err != nil {
			return false, err
		}
		p.meter.enc.Add(4)
		p.meter.exp.Add(int64(4 * len(earlier)))
		if blobs[v], err = c.MarshalBinary(); err != nil {
			return false, err
		}
	}
	return true, p.send(ThirdPartyID, &Body{Kind: "dlpa-contrib", ID: j.req.ID, Index: p.index, Blobs: blobs})
}
