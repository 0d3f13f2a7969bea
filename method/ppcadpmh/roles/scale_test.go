package roles

import (
	"context"
	"math"
	"testing"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/dp"
	"github.com/dppub/dppub/internal/testenv"
	"github.com/dppub/dppub/method/ppcadpmh/ppca"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/protocol"
	"github.com/dppub/dppub/randx"
)

// An owner of 330 000 Adult-like rows (Adult resampled, 106 encoded
// columns) completes a session: its synthetic rows used to travel as one
// message of 280 MB that the envelope's field limit refused beyond
// ~316 000 rows. They now arrive in chunks of at most protocol.ChunkBytes,
// the curator's result holds every row, and the synthetic column means
// are close to the real ones (the model's mean is the DP mean; at ε = 1
// over 330 000 rows its noise is ~10^-4, the sampling error of 330 000
// rows ~10^-3: 0.02 is a loose bound).
func TestOwnerBeyondOneMessage(t *testing.T) {
	if testing.Short() {
		t.Skip("330 000 rows of 106 columns: skipped with -short")
	}
	adult, err := datasets.LoadFrom("adult", testenv.SharedData(t, "adult"))
	if err != nil {
		t.Fatal(err)
	}
	const n = 330_000
	src := randx.NewSeeded(19)
	big := &data.Table{Schema: adult.Schema, Rows: make([][]float64, n)}
	for i := range big.Rows {
		big.Rows[i] = adult.Rows[src.IntN(adult.Len())]
	}
	enc, err := data.NewEncoder(adult.Schema, data.EncoderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := enc.Dim()
	if p != 106 {
		t.Fatalf("Adult encodes to %d columns, want 106", p)
	}
	b := ppca.RowBounds{P: p}
	for _, a := range enc.Attributes() {
		cols, _ := enc.Columns(a)
		b.Groups = append(b.Groups, len(cols))
	}
	pr := Params{Session: "s", Owners: []string{"owner-a"}, Curator: "curator", Noise: Local,
		Plan: ppca.PlanOptions{Calibration: ppca.Sound, Mechanism: ppca.Laplace, Epsilon: 1, Bounds: b},
		Fit:  ppca.FitOptions{Contribution: 0.9}}
	acct, _ := privacy.NewAccountant(privacy.AccountantOptions{Party: "owner-a", Budget: dp.Pure(1)})
	owner, err := NewOwner(OwnerOptions{ID: "owner-a", Params: pr, Table: big, Encoder: enc, Accountant: acct, Source: src.Child()})
	if err != nil {
		t.Fatal(err)
	}
	cur, err := NewCurator(pr)
	if err != nil {
		t.Fatal(err)
	}
	largest := 0
	chunks := 0
	watch := &sizeWatch{Role: cur, largest: &largest, rows: &chunks}
	if _, err := protocol.RunLocal(context.Background(), owner, watch); err != nil {
		t.Fatal(err)
	}
	res, err := cur.Result()
	if err != nil {
		t.Fatal(err)
	}
	if r, c := res.Synthetic.Dims(); r != n || c != p {
		t.Fatalf("synthetic table %d×%d, want %d×%d", r, c, n, p)
	}
	if largest > protocol.ChunkBytes+64 || chunks < n*p*8/protocol.ChunkBytes {
		t.Fatalf("largest message %d bytes over %d chunks (limit %d per chunk)", largest, chunks, protocol.ChunkBytes)
	}
	m, _, err := ppca.TableMoments(big, enc, 0)
	if err != nil {
		t.Fatal(err)
	}
	realSum := m.Packed()[:p]
	for j := 0; j < p; j++ {
		s := 0.0
		for i := 0; i < n; i++ {
			s += res.Synthetic.At(i, j)
		}
		if d := math.Abs(s/n - realSum[j]/n); d > 0.02 {
			t.Errorf("column %d: synthetic mean %.4f, real %.4f", j, s/n, realSum[j]/n)
		}
	}
}

// sizeWatch records the largest payload and the number of row chunks a
// role receives.
type sizeWatch struct {
	protocol.Role
	largest, rows *int
}

func (w *sizeWatch) Handle(e protocol.Envelope) ([]protocol.Envelope, error) {
	*w.largest = max(*w.largest, len(e.Payload))
	if e.Type == TypeRows {
		*w.rows++
	}
	return w.Role.Handle(e)
}
