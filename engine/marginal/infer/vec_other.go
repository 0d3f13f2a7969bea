//go:build !amd64 || purego

package infer

const hasVec = false

func mulVecAsm(dst, a, b []float64)           { mulVecGo(dst, a, b) }
func addVecAsm(dst, a []float64)              { addVecGo(dst, a) }
func scaleVecAsm(dst, a []float64, m float64) { scaleVecGo(dst, a, m) }
func axpyVecAsm(dst, a []float64, y float64)  { axpyVecGo(dst, a, y) }

func mulRowsAsm(dst, src, g []float64) {
	for o := 0; o < len(src); o += len(g) {
		mulVecGo(dst[o:o+len(g)], src[o:o+len(g)], g)
	}
}

func addRowsAsm(g, v []float64) {
	for o := 0; o < len(v); o += len(g) {
		addVecGo(g, v[o:o+len(g)])
	}
}

// The pair kernels' plain loops (vec_amd64.s has them in SSE2).

func addPairsAsm(out, row []float64, idx []int32) {
	for k, x := range idx {
		out[x] += row[k]
	}
}

func mulPairsAsm(dst, src, f []float64, idx []int32) {
	for k, x := range idx {
		dst[k] = src[k] * f[x]
	}
}

func sumPairsAsm(out, src []float64, idx []int32) {
	for k, x := range idx {
		out[x] += src[2*k] + src[2*k+1]
	}
}

func scalePairsAsm(dst, src, f []float64, idx []int32) {
	for k, x := range idx {
		m := f[x]
		dst[2*k], dst[2*k+1] = src[2*k]*m, src[2*k+1]*m
	}
}
