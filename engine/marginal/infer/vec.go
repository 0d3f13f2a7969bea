package infer

// Vector kernels for the contiguous runs of the strided loops: the
// products and sums a calibration takes over every clique cell at every
// mirror-descent step. Each cell's result is one IEEE multiplication or
// addition of the same operands as the scalar loop's, so the vector
// instructions (vec_amd64.s) give the same values to the bit, only more of
// them per instruction.

// mulVec sets dst[i] = a[i]·b[i] for i < len(a) (dst and b at least as
// long; dst may be a).
func mulVec(dst, a, b []float64) {
	if len(a) >= minVecLen && hasVec {
		mulVecAsm(dst[:len(a)], a, b[:len(a)])
		return
	}
	mulVecGo(dst, a, b)
}

// addVec adds a[i] to dst[i] for i < len(a) (dst at least as long).
func addVec(dst, a []float64) {
	if len(a) >= minVecLen && hasVec {
		addVecAsm(dst[:len(a)], a)
		return
	}
	addVecGo(dst, a)
}

// scaleVec sets dst[i] = a[i]·m for i < len(a) (dst at least as long; it
// may be a).
func scaleVec(dst, a []float64, m float64) {
	if len(a) >= minVecLen && hasVec {
		scaleVecAsm(dst[:len(a)], a, m)
		return
	}
	scaleVecGo(dst, a, m)
}

// axpyVec adds a[i]·y to dst[i] for i < len(a) (dst at least as long):
// a multiplication, then an addition, not a fused multiply-add.
func axpyVec(dst, a []float64, y float64) {
	if len(a) >= minVecLen && hasVec {
		axpyVecAsm(dst[:len(a)], a, y)
		return
	}
	axpyVecGo(dst, a, y)
}

// minVecLen is the shortest run the vector kernels take: below it the
// call costs more than the scalar loop.
const minVecLen = 8

func mulVecGo(dst, a, b []float64) {
	b, dst = b[:len(a)], dst[:len(a)]
	for i, x := range a {
		dst[i] = x * b[i]
	}
}

func addVecGo(dst, a []float64) {
	dst = dst[:len(a)]
	for i, x := range a {
		dst[i] += x
	}
}

func scaleVecGo(dst, a []float64, m float64) {
	dst = dst[:len(a)]
	for i, x := range a {
		dst[i] = x * m
	}
}

func axpyVecGo(dst, a []float64, y float64) {
	dst = dst[:len(a)]
	for i, x := range a {
		dst[i] += x * y
	}
}
