package audit

import (
	"math"
	"testing"
)

func TestFeatures(t *testing.T) {
	tz, low := trailingZeros(8), lowBits(4)
	for _, c := range []struct {
		x       float64
		tz, low int
	}{
		{1, 8, 0}, {0, 8, 0}, {math.Copysign(0, -1), 8, 0}, {1 + 0x1p-52, 0, 1}, {1 + 0x1p-50, 2, 4},
		{3 * 0x1p-1074, 0, 3}, {0x1p-1074 * 4, 2, 4}, {-(1 + 0x1p-49), 3, 8},
	} {
		if g := tz.of(c.x); g != c.tz {
			t.Errorf("trailing zeros of %g: %d, want %d", c.x, g, c.tz)
		}
		if g := low.of(c.x); g != c.low {
			t.Errorf("low bits of %g: %d, want %d", c.x, g, c.low)
		}
	}
	for _, c := range []struct{ v, g, want float64 }{
		{1.0 / 3, 0.125, 0.375}, {1.0 / 3, 0, 1.0 / 3}, {5, 0.125, 5}, {1e300, 0x1p-1074, 1e300}, {-0.3, 0.25, -0.25},
	} {
		if got := SnapToGrid(c.v, c.g); got != c.want {
			t.Errorf("snap(%g, %g) = %g, want %g", c.v, c.g, got, c.want)
		}
	}
}
