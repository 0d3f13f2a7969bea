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

// mulRows sets each row of dst (rows of len(g) cells) to the same row of
// src times g: a clique's rows times a table over its trailing attributes,
// in one call rather than one per row (rows are often 20–60 cells).
func mulRows(dst, src, g []float64) {
	n := len(g)
	if n == 0 || len(src)%n != 0 || len(dst) < len(src) {
		panic("infer: mulRows: lengths do not match")
	}
	if n >= 4 && hasVec {
		mulRowsAsm(dst[:len(src)], src, g)
		return
	}
	for o := 0; o < len(src); o += n {
		mulVecGo(dst[o:o+n], src[o:o+n], g)
	}
}

// addRows adds every row of v (rows of len(g) cells), in order, to g.
func addRows(g, v []float64) {
	n := len(g)
	if n == 0 || len(v)%n != 0 {
		panic("infer: addRows: lengths do not match")
	}
	if n >= 4 && hasVec {
		addRowsAsm(g, v)
		return
	}
	for o := 0; o < len(v); o += n {
		addVecGo(g, v[o:o+n])
	}
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

// The pair kernels run a stride's maps where a binary attribute ends the
// table: through idx (largest entry top), one index per pair of cells.
// They check the lengths once, then run without bounds checks.

// addPairs adds row[k] to out[idx[k]] for every k, where the cells come
// in pairs (k even) that map to consecutive cells of out.
func addPairs(out, row []float64, idx []int32, top int) {
	if len(row) != len(idx) || len(row)%2 != 0 || top+1 > len(out) {
		panic("infer: addPairs: lengths do not match")
	}
	addPairsAsm(out, row, idx)
}

// mulPairs sets dst[k] = src[k]·f[idx[k]] for every k, where the cells
// come in pairs (k even) that map to consecutive cells of f.
func mulPairs(dst, src, f []float64, idx []int32, top int) {
	if len(src) != len(idx) || len(dst) != len(idx) || len(idx)%2 != 0 || top+1 > len(f) {
		panic("infer: mulPairs: lengths do not match")
	}
	mulPairsAsm(dst, src, f, idx)
}

// sumPairs adds src[2k] + src[2k+1] to out[idx[k]] for every k.
func sumPairs(out, src []float64, idx []int32, top int) {
	if len(src) != 2*len(idx) || top+1 > len(out) {
		panic("infer: sumPairs: lengths do not match")
	}
	sumPairsAsm(out, src, idx)
}

// scalePairs sets dst[2k] and dst[2k+1] to src's times f[idx[k]] for
// every k.
func scalePairs(dst, src, f []float64, idx []int32, top int) {
	if len(src) != 2*len(idx) || len(dst) != len(src) || top+1 > len(f) {
		panic("infer: scalePairs: lengths do not match")
	}
	scalePairsAsm(dst, src, f, idx)
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
