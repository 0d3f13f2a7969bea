package pdpmvds

import (
	"testing"

	"github.com/dppub/dppub/randx"
)

func randomSeed(src *randx.Source) seed {
	var s seed
	for i := range s {
		s[i] = byte(src.Uint64())
	}
	return s
}

// TestCommodityProductMatchesPlaintext checks u + v = UᵀZ (sum mode) and
// U_r ⊗ Z_r (row mode) mod 2^64 against direct computation.
func TestCommodityProductMatchesPlaintext(t *testing.T) {
	src := randx.NewSeeded(7)
	const n, du, dz = 1000, 3, 4
	u := make([]uint64, n*du)
	for i := range u {
		u[i] = src.Uint64() // arbitrary words, as in a chained product
	}
	col := make([]int32, n)
	for i := range col {
		col[i] = int32(src.IntN(dz))
	}
	for _, mode := range []productMode{sumMode, rowMode} {
		sa, sb, srb := randomSeed(src), randomSeed(src), randomSeed(src)
		corr := dealCorrection(mode, du, dz, expand(sa, n*du), expand(sb, n*dz), srb, 2)
		maskedU := maskWords(u, sa)
		maskedZ := maskOneHot(col, dz, sb)
		a := productA(mode, du, dz, expand(sa, n*du), corr, maskedZ, 2)
		b := productB(mode, du, dz, maskedU, col, srb, 2)
		addInto(a, b)
		var want []uint64
		if mode == sumMode {
			want = make([]uint64, du*dz)
			for r := range n {
				for i := range du {
					want[i*dz+int(col[r])] += u[r*du+i]
				}
			}
		} else {
			want = make([]uint64, n*du*dz)
			for r := range n {
				for i := range du {
					want[r*du*dz+i*dz+int(col[r])] = u[r*du+i]
				}
			}
		}
		for i := range want {
			if a[i] != want[i] {
				t.Fatalf("mode %d: cell %d = %d, want %d", mode, i, a[i], want[i])
			}
		}
	}
}
