//go:build !amd64 || purego

package infer

const hasVec = false

func mulVecAsm(dst, a, b []float64)                    { mulVecGo(dst, a, b) }
func addVecAsm(dst, a []float64)                       { addVecGo(dst, a) }
func scaleVecAsm(dst, a []float64, m float64)          { scaleVecGo(dst, a, m) }
func axpyVecAsm(dst, a []float64, y float64)           { axpyVecGo(dst, a, y) }
func addPairsAsm(out, row []float64, idx []int32)      { addPairsGo(out, row, idx) }
func mulPairsAsm(dst, src, f []float64, idx []int32)   { mulPairsGo(dst, src, f, idx) }
func sumPairsAsm(out, src []float64, idx []int32)      { sumPairsGo(out, src, idx) }
func scalePairsAsm(dst, src, f []float64, idx []int32) { scalePairsGo(dst, src, f, idx) }

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
